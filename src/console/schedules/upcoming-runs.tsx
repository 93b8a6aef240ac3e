import type { Schedule } from '../../../sdk/src/types.js';
import { useSession } from '../shell/context.js';
import { ErrorNotice } from '../ui/error-notice.js';
import { usePolled } from '../ui/use-polled.js';
import { RunPreview } from './run-preview.js';
import { zoneOf } from './timing-words.js';

/**
 * The schedule's next ten runs, from Ferry's preview of the saved schedule (its timing, bounds, daylight-saving
 * policy and jitter), in its zone and in UTC.
 */
export function UpcomingRuns({ schedule }: { schedule: Schedule }) {
  const { api } = useSession();
  // Asked again whenever the saved schedule changes.
  const key = JSON.stringify([schedule.id, schedule.timing, schedule.updated_at]);
  const runs = usePolled(async () => [...(await api.reads.schedules.previewRuns({ schedule_id: schedule.id }, { count: 10 }))], [key], { everyMs: 0 });
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
