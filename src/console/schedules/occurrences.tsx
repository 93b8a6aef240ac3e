import type { RequestSummary } from '../../../sdk/src/types.js';
import { useSession } from '../shell/context.js';
import { hrefOf } from '../shell/router.js';
import { ErrorNotice } from '../ui/error-notice.js';
import { StatusBadge } from '../ui/status-badge.js';
import { Time } from '../ui/time.js';
import { usePolled } from '../ui/use-polled.js';

/** How far back to look: Ferry's request list filters by source but not by schedule, so pages are read and sifted. */
const PAGES = 3;
const PAGE_SIZE = 100;
const SHOWN = 20;

/** This schedule's requests among the project's latest recurring requests, newest first. */
async function recentOccurrences(
  list: (cursor?: string) => Promise<{ items: RequestSummary[]; next_cursor: string | null }>,
  scheduleId: string,
): Promise<RequestSummary[]> {
  const found: RequestSummary[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < PAGES && found.length < SHOWN; page++) {
    const { items, next_cursor } = await list(cursor);
    found.push(...items.filter((r) => r.schedule_id === scheduleId));
    if (next_cursor === null) break;
    cursor = next_cursor;
  }
  return found.slice(0, SHOWN);
}

/** The requests the schedule's runs created, each linking to its own page; kept live. */
export function Occurrences({ scheduleId }: { scheduleId: string }) {
  const { api } = useSession();
  const recent = usePolled(
    () => recentOccurrences((cursor) => api.reads.requests.list({ source: 'recurring', limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) }), scheduleId),
    [scheduleId],
    { everyMs: 10_000 },
  );
  const allRecurring = hrefOf({ page: 'requests', query: new URLSearchParams({ source: 'recurring' }) });
  return (
    <section class="panel" aria-labelledby="occurrences-title">
      <h2 id="occurrences-title">Recent runs</h2>
      {recent.error ? <ErrorNotice error={recent.error} /> : null}
      {recent.data === null && recent.error === null ? <p class="muted">Loading…</p> : null}
      {recent.data !== null && recent.data.length === 0 ? (
        <p class="muted">No run of this schedule among the latest {PAGES * PAGE_SIZE} recurring requests yet. Each run appears here as a request.</p>
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
        Ferry's request list filters by source, not by schedule: shown are this schedule's among the latest {PAGES * PAGE_SIZE} recurring requests.{' '}
        <a href={allRecurring}>All recurring requests</a>
      </p>
    </section>
  );
}
