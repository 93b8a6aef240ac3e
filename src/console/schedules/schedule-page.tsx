import { useState } from 'preact/hooks';
import type { Schedule } from '../../../sdk/src/types.js';
import { useSession } from '../shell/context.js';
import { hrefOf } from '../shell/router.js';
import { CopyId } from '../ui/copy-id.js';
import { ErrorNotice } from '../ui/error-notice.js';
import { StatusBadge } from '../ui/status-badge.js';
import { Time, zonedText } from '../ui/time.js';
import { usePolled } from '../ui/use-polled.js';
import { EditPolicy } from './edit-policy.js';
import { EditTiming } from './edit-timing.js';
import { policyInWords } from './policy-fields.js';
import { RunHistory } from './run-history.js';
import { RunNow } from './run-now.js';
import { Occurrences } from './occurrences.js';
import { RequestDefinition } from './request-definition.js';
import { ScheduleActions } from './schedule-actions.js';
import { outcomeText } from './schedules-page.js';
import { timingAsGiven, timingInWords, zoneOf } from './timing-words.js';
import { UpcomingRuns } from './upcoming-runs.js';
import './schedules.css';

/** `#/schedules/<id>`: one schedule, what it sends, when it runs next, what its runs did; kept live. */
export function SchedulePage({ id }: { id: string }) {
  const { api } = useSession();
  const schedule = usePolled(() => api.reads.schedules.get(id), [id], { everyMs: 5_000 });
  const [editing, setEditing] = useState<'timing' | 'policy' | null>(null);
  const [said, setSaid] = useState<string | null>(null);
  const back = <a href={hrefOf({ page: 'schedules', query: new URLSearchParams() })}>← Schedules</a>;

  if (schedule.error?.status === 404) {
    return (
      <section>
        {back}
        <h1>No such schedule in this project</h1>
        <p>
          Ferry knows no schedule <code>{id}</code> in the project of this API key: it may have been deleted, or belong to another project.
        </p>
      </section>
    );
  }
  const s = schedule.data;
  const changed = (text: string) => {
    setSaid(text);
    setEditing(null);
    schedule.refresh();
  };
  return (
    <section aria-labelledby="schedule-title" class="schedules-ui">
      {back}
      {schedule.error ? <ErrorNotice error={schedule.error} /> : null}
      {s === null ? (
        schedule.error ? null : <p class="muted">Loading…</p>
      ) : (
        <>
          <div class="spread schedule-head">
            <div>
              <h1 id="schedule-title">{s.name || s.id}</h1>
              <div class="row">
                {s.status ? <StatusBadge status={s.status} /> : null}
                <CopyId id={s.id} />
              </div>
            </div>
            <ScheduleActions schedule={s} onChanged={changed} onEdit={setEditing} editing={editing} />
          </div>
          <p class="notice ok" role="status" hidden={said === null}>
            {said}
          </p>
          <Facts schedule={s} />
          {editing === 'timing' ? <EditTiming schedule={s} onSaved={changed} onCancel={() => setEditing(null)} /> : null}
          {editing === 'policy' ? <EditPolicy schedule={s} onSaved={changed} onCancel={() => setEditing(null)} /> : null}
          <UpcomingRuns schedule={s} />
          <RunNow schedule={s} onChanged={changed} />
          <RunHistory schedule={s} />
          <RequestDefinition schedule={s} />
          <Occurrences scheduleId={s.id} />
        </>
      )}
    </section>
  );
}

function Facts({ schedule: s }: { schedule: Schedule }) {
  const zone = zoneOf(s.timing);
  const inZone = (at: string | null) => (at && s.timing?.type === 'cron' ? <div class="muted small">{zonedText(Date.parse(at), zone)}</div> : null);
  return (
    <section class="panel" aria-label="Timing and status">
      <dl class="facts">
        <dt>Timing</dt>
        <dd>
          <strong>{timingInWords(s.timing)}</strong>
          <div class="muted mono small">{timingAsGiven(s.timing)}</div>
        </dd>
        <dt>Status</dt>
        <dd>
          {s.status ?? '—'}
          {s.status === 'paused' && s.pause_reason ? (
            <div class="small" data-pause-reason={s.pause_reason}>
              {s.pause_reason === 'failures' ? 'paused by its policy after failed runs in a row' : 'paused by hand'}
            </div>
          ) : null}
          {s.status === 'ended' ? <div class="small">it reached its run limit or the end of its timing, and runs no more</div> : null}
        </dd>
        <dt>Policy</dt>
        <dd>{policyInWords(s.policy)}</dd>
        <dt>Next run</dt>
        <dd>
          {s.status === 'paused' ? (
            <span class="muted">none while paused</span>
          ) : s.status === 'ended' ? (
            <span class="muted">none: ended</span>
          ) : (
            <Time value={s.next_run_at} planned />
          )}
          {s.status === 'active' ? inZone(s.next_run_at) : null}
        </dd>
        <dt>Last run</dt>
        <dd>
          <Time value={s.last_run_at} />
          {inZone(s.last_run_at)}
          {s.last_run_outcome ? <div>{outcomeText(s.last_run_outcome)}</div> : null}
        </dd>
        <dt>Created</dt>
        <dd>
          <Time value={s.created_at} />
        </dd>
        <dt>Changed</dt>
        <dd>
          <Time value={s.updated_at} />
        </dd>
      </dl>
    </section>
  );
}
