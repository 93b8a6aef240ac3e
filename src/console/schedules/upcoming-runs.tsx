import type { Schedule, Timing } from '../../../sdk/src/types.js';
import { useSession } from '../shell/context.js';
import { ErrorNotice } from '../ui/error-notice.js';
import { usePolled } from '../ui/use-polled.js';
import { RunPreview } from './run-preview.js';
import { zoneOf } from './timing-words.js';

/**
 * What to ask the preview for so that it shows this schedule's own next runs. A cron's runs depend only on the
 * expression and zone. An interval's runs are anchored where the schedule started, which the preview cannot know
 * from `every_seconds` alone: anchoring it at the stored next run gives that run and the ones after it.
 */
function previewCall(schedule: Schedule): { timing: Timing; after?: string } | null {
  const t = schedule.timing;
  if (t === null) return null;
  const justBefore = schedule.next_run_at ? new Date(Date.parse(schedule.next_run_at) - 1_000).toISOString() : undefined;
  if (t.type === 'cron') return { timing: { type: 'cron', expression: t.expression ?? '', timezone: t.timezone ?? 'UTC' }, after: justBefore };
  const startsAt = schedule.next_run_at ?? t.starts_at ?? undefined;
  return { timing: { type: 'interval', every_seconds: t.every_seconds ?? 0, ...(startsAt ? { starts_at: startsAt } : {}) }, after: justBefore };
}

/** The schedule's next ten runs, from Ferry's preview, in its zone and in UTC. */
export function UpcomingRuns({ schedule }: { schedule: Schedule }) {
  const { api } = useSession();
  const call = previewCall(schedule);
  const key = JSON.stringify(call);
  const runs = usePolled(
    async () => (call === null ? [] : [...(await api.reads.schedules.preview(call.timing, { count: 10, ...(call.after ? { after: call.after } : {}) }))]),
    [key],
    { everyMs: 0 },
  );
  const paused = schedule.status === 'paused';
  return (
    <section class="panel" aria-labelledby="upcoming-title">
      <h2 id="upcoming-title">Next 10 runs</h2>
      {paused ? <p class="notice">Paused: none of these fire until the schedule is resumed. Shown is when they would fall.</p> : null}
      {runs.error ? <ErrorNotice error={runs.error} /> : null}
      {runs.data === null && runs.error === null ? <p class="muted">Loading…</p> : null}
      {runs.data !== null ? <RunPreview runs={runs.data} zone={zoneOf(schedule.timing)} caption="Next runs of the saved timing" /> : null}
    </section>
  );
}
