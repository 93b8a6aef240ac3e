import { useSession } from '../shell/context.js';
import { hrefOf } from '../shell/router.js';
import { ErrorNotice } from '../ui/error-notice.js';
import { StatusBadge } from '../ui/status-badge.js';
import { Time } from '../ui/time.js';
import { usePolled } from '../ui/use-polled.js';

/** How many of the latest runs to show; the list links to all of them. */
const SHOWN = 20;

/** The requests the schedule's runs created, each linking to its own page; kept live. */
export function Occurrences({ scheduleId }: { scheduleId: string }) {
  const { api } = useSession();
  const recent = usePolled(
    async () => (await api.reads.requests.list({ schedule_id: scheduleId, limit: SHOWN })).items,
    [scheduleId],
    { everyMs: 10_000 },
  );
  const allRuns = hrefOf({ page: 'requests', query: new URLSearchParams({ schedule_id: scheduleId }) });
  return (
    <section class="panel" aria-labelledby="occurrences-title">
      <h2 id="occurrences-title">Recent runs</h2>
      {recent.error ? <ErrorNotice error={recent.error} /> : null}
      {recent.data === null && recent.error === null ? <p class="muted">Loading…</p> : null}
      {recent.data !== null && recent.data.length === 0 ? (
        <p class="muted">No run of this schedule yet. Each run appears here as a request.</p>
      ) : null}
      {recent.data !== null && recent.data.length > 0 ? (
        <div class="table-wrap">
          <table class="occurrences">
            <thead>
              <tr>
                <th scope="col">Request</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
                <th scope="col" class="wide">Completed</th>
              </tr>
            </thead>
            <tbody>
              {recent.data.map((r) => (
                <tr key={r.id}>
                  <td>
                    <a class="mono" href={hrefOf({ page: 'request', id: r.id })}>
                      {r.id}
                    </a>
                  </td>
                  <td>
                    {r.status ? <StatusBadge status={r.status} /> : null}
                  </td>
                  <td>
                    <Time value={r.created_at} />
                  </td>
                  <td class="wide">
                    <Time value={r.completed_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <p class="hint">
        The latest {SHOWN} runs, newest first. <a href={allRuns}>Every request of this schedule</a>
      </p>
    </section>
  );
}
