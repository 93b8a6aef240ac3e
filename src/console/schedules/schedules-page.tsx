import type { ScheduleSummary } from '../../../sdk/src/types.js';
import { useSession } from '../shell/context.js';
import { hrefOf, navigate } from '../shell/router.js';
import { ErrorNotice } from '../ui/error-notice.js';
import { StatusBadge } from '../ui/status-badge.js';
import { Time } from '../ui/time.js';
import { usePolled } from '../ui/use-polled.js';
import { timingAsGiven, timingInWords } from './timing-words.js';
import './schedules.css';

const PAGE_SIZES = ['25', '50', '100'];
const LIVE_EVERY_MS = 5_000;
/** Statuses to show; Ferry's schedule list has paging only, so this narrows the page already loaded. */
const SHOWN = ['', 'active', 'paused'] as const;

/** `#/schedules?limit=…&cursor=…&status=…`: the project's schedules, newest first, kept live. */
export function SchedulesPage({ query }: { query: URLSearchParams }) {
  const { api } = useSession();
  const limit = PAGE_SIZES.includes(query.get('limit') ?? '') ? query.get('limit')! : PAGE_SIZES[0]!;
  const cursor = query.get('cursor') ?? '';
  const status = SHOWN.find((s) => s === query.get('status')) ?? '';

  const list = usePolled(
    () => api.reads.schedules.list({ limit: Number(limit), ...(cursor ? { cursor } : {}) }),
    [limit, cursor],
    { everyMs: LIVE_EVERY_MS },
  );
  const goTo = (changes: Record<string, string>) => {
    const next = new URLSearchParams({ limit, cursor, status, ...changes });
    if (next.get('limit') === PAGE_SIZES[0]) next.delete('limit');
    navigate({ page: 'schedules', query: next });
  };
  const items = list.data?.items ?? [];
  const shown = status === '' ? items : items.filter((s) => s.status === status);
  const nextCursor = list.data?.next_cursor ?? null;
  const deleted = query.get('deleted');

  return (
    <section aria-labelledby="schedules-title" class="schedules-ui">
      <div class="spread">
        <h1 id="schedules-title">Schedules</h1>
        <a class="button primary" href={hrefOf({ page: 'new-schedule' })}>
          New schedule
        </a>
      </div>
      <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Show schedules">
        <div>
          <label for="schedules-status">Status on this page</label>
          <select id="schedules-status" value={status} onChange={(e) => goTo({ status: e.currentTarget.value })}>
            <option value="">Any</option>
            <option value="active">active</option>
            <option value="paused">paused</option>
          </select>
        </div>
        <div>
          <label for="schedules-limit">Per page</label>
          <select id="schedules-limit" value={limit} onChange={(e) => goTo({ limit: e.currentTarget.value, cursor: '' })}>
            {PAGE_SIZES.map((size) => (
              <option key={size} value={size}>
                {size}
              </option>
            ))}
          </select>
        </div>
        <p class="muted live-note" aria-live="polite">
          {list.loading && list.data === null ? 'Loading…' : 'Live: updated every 5 s'}
        </p>
      </form>
      {deleted ? (
        <p class="notice ok" role="status">
          Deleted “{deleted}”. Its future runs are cancelled; the requests it created stay under Requests.
        </p>
      ) : null}
      {list.error ? <ErrorNotice error={list.error} /> : null}
      {list.data !== null && items.length === 0 && cursor === '' ? <EmptyState /> : null}
      {list.data !== null && items.length > 0 ? <ScheduleTable schedules={shown} /> : null}
      {list.data !== null && items.length > 0 && shown.length === 0 ? <p class="muted">No {status} schedules on this page.</p> : null}
      {list.data !== null && items.length === 0 && cursor !== '' ? <p class="muted">No more schedules.</p> : null}
      <nav class="pager row" aria-label="Pages of schedules">
        {cursor !== '' ? <a href={hrefOf({ page: 'schedules', query: new URLSearchParams({ limit, status }) })}>First page</a> : null}
        {nextCursor !== null ? (
          <a href={hrefOf({ page: 'schedules', query: new URLSearchParams({ limit, status, cursor: nextCursor }) })}>Next page</a>
        ) : null}
      </nav>
    </section>
  );
}

function EmptyState() {
  return (
    <div class="panel empty-state">
      <h2>No schedules yet</h2>
      <p>
        A schedule sends a POST with your body and headers to an HTTPS URL on a cron expression in a time zone (say, every weekday at 09:00 in
        Europe/Berlin) or at a fixed interval. Each run becomes an ordinary request, with its own retries and attempts, that you can follow
        under Requests.
      </p>
      <a class="button primary" href={hrefOf({ page: 'new-schedule' })}>
        Create your first schedule
      </a>
    </div>
  );
}

function ScheduleTable({ schedules }: { schedules: ScheduleSummary[] }) {
  const now = Date.now();
  return (
    <div class="table-wrap">
      <table class="schedules">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Status</th>
            <th scope="col">Timing</th>
            <th scope="col">Next run</th>
            <th scope="col" class="wide">Last run</th>
            <th scope="col" class="wide">Destination</th>
          </tr>
        </thead>
        <tbody>
          {schedules.map((s) => (
            <tr key={s.id}>
              <td>
                <a href={hrefOf({ page: 'schedule', id: s.id })}>{s.name || s.id}</a>
                <div class="muted mono small">{s.id}</div>
              </td>
              <td>{s.status ? <StatusBadge status={s.status} /> : null}</td>
              <td>
                {timingInWords(s.timing)}
                <div class="muted mono small">{timingAsGiven(s.timing)}</div>
              </td>
              <td>{s.status === 'paused' ? <span class="muted">paused</span> : <Time value={s.next_run_at} now={now} planned />}</td>
              <td class="wide">
                <Time value={s.last_run_at} now={now} />
                {s.last_run_outcome ? <div class="small">{outcomeText(s.last_run_outcome)}</div> : null}
              </td>
              <td class="wide url mono small">{s.url}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** What the latest run did, in words. */
export function outcomeText(outcome: string): string {
  if (outcome === 'enqueued') return 'request created';
  if (outcome === 'skipped_usage_limit') return 'skipped: monthly allowance reached';
  if (outcome === 'skipped_overlap') return 'skipped: the previous run was still active';
  if (outcome === 'missed') return 'missed: Ferry was down';
  if (outcome === 'triggered') return 'triggered by hand';
  if (outcome === 'backfilled') return 'backfilled';
  return outcome.replace(/_/g, ' ');
}
