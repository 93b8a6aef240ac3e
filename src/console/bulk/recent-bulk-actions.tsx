import { useEffect, useState } from 'preact/hooks';
import type { BulkAction } from '../../../sdk/src/types.js';
import { useSession } from '../shell/context.js';
import { ErrorNotice } from '../ui/error-notice.js';
import { Time } from '../ui/time.js';
import { usePolled } from '../ui/use-polled.js';
import { Progress } from './bulk-progress.js';

/** How many of the newest actions are shown: enough to see what ran today; older ones are in `GET /bulk-actions`. */
const SHOWN = 10;
/** Read again at this pace while one of them runs (the live panel reads its own every second), else rarely. */
const RUNNING_EVERY_MS = 2_000;
const IDLE_EVERY_MS = 15_000;

/** The project's newest bulk actions, running ones first in mind: what each matched, did and left alone. */
export function RecentBulkActions({ version }: { version: number }) {
  const { api } = useSession();
  const [running, setRunning] = useState(true);
  const polled = usePolled(async () => (await api.reads.bulkActions.list({ limit: SHOWN })).items, [version], {
    everyMs: running ? RUNNING_EVERY_MS : IDLE_EVERY_MS,
  });
  const items = polled.data;
  useEffect(() => setRunning(items === null || items.some((a) => a.state === 'running')), [items]);
  return (
    <section class="recent-bulk" aria-labelledby="recent-bulk-title">
      <h2 id="recent-bulk-title">Recent bulk actions</h2>
      {polled.error !== null ? <ErrorNotice error={polled.error} /> : null}
      {items === null ? (
        polled.error === null ? <p class="muted">Loading…</p> : null
      ) : items.length === 0 ? (
        <p class="muted">None yet: select failed requests, or replay all a filter matches, and the action shows here.</p>
      ) : (
        <div class="table-wrap">
          <table class="bulk-actions">
            <thead>
              <tr>
                <th scope="col">ID</th>
                <th scope="col">Progress</th>
                <th scope="col">Created</th>
                <th scope="col">Ended</th>
              </tr>
            </thead>
            <tbody>
              {items.map((a: BulkAction) => (
                <tr key={a.id}>
                  <td class="bulk-id">
                    <code>{a.id}</code>
                  </td>
                  <td class="progress-cell">
                    <Progress action={a} compact />
                  </td>
                  <td class="created">
                    <Time value={a.created_at} />
                  </td>
                  <td class="ended">
                    <Time value={a.completed_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
