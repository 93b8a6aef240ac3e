import type { QueueBacklog, Stats } from '../../../sdk/src/types.js';
import { useSession } from '../shell/context.js';
import { hrefOf } from '../shell/router.js';
import { ErrorNotice } from '../ui/error-notice.js';
import { useNow } from '../ui/use-now.js';
import { usePolled } from '../ui/use-polled.js';
import { ActivityChart } from './activity-chart.js';
import { bucketsOf, rateText } from './buckets.js';
import './overview.css';

const LIVE_EVERY_MS = 10_000;
const DAY_MS = 24 * 3_600_000;

/** `#/` (the front page): the last 24 hours at a glance, and what waits now. */
export function OverviewPage() {
  const { api } = useSession();
  const stats = usePolled(() => api.reads.stats.get(), [], { everyMs: LIVE_EVERY_MS });
  const data = stats.data;
  return (
    <section aria-labelledby="overview-title" class="overview">
      <div class="spread">
        <h1 id="overview-title">Overview</h1>
        <p class="muted live-note" aria-live="polite">
          {stats.loading && data === null ? 'Loading…' : `Last 24 hours · live: updated every ${LIVE_EVERY_MS / 1_000} s`}
        </p>
      </div>
      {stats.error !== null ? <ErrorNotice error={stats.error} /> : null}
      {data === null ? null : <Body stats={data} />}
    </section>
  );
}

function Body({ stats }: { stats: Stats }) {
  const t = stats.totals;
  const since = new Date(Date.parse(stats.as_of) - DAY_MS).toISOString();
  const failedHref = hrefOf({ page: 'requests', query: new URLSearchParams({ status: 'failed', from: since }) });
  const rateClass = stats.failure_rate === null ? '' : stats.failure_rate >= 0.05 ? 'bad' : stats.failure_rate > 0 ? 'warn' : 'ok';
  return (
    <>
      <ul class="tiles" aria-label="Totals of the last 24 hours">
        <Tile label="Accepted" value={t.accepted} href={hrefOf({ page: 'requests', query: new URLSearchParams({ from: since }) })} />
        <Tile label="Delivered" value={t.delivered} tone="ok" />
        <Tile label="Failed" value={t.failed} tone={t.failed > 0 ? 'bad' : ''} href={failedHref} />
        <Tile label="Retried attempts" value={t.retried} tone={t.retried > 0 ? 'warn' : ''} />
        <Tile label="Callbacks" value={t.callbacks} href={hrefOf({ page: 'requests', query: new URLSearchParams({ source: 'callback', from: since }) })} />
        <li class={`tile ${rateClass}`}>
          <span class="tile-label">Failure rate</span>
          <span class="tile-value" data-testid="failure-rate">
            {rateText(stats.failure_rate)}
          </span>
        </li>
      </ul>
      <div class="panel chart-panel">
        <div class="spread">
          <h2>Requests per 15 minutes</h2>
          <p class="legend muted">
            <span class="key delivered" /> delivered <span class="key failed" /> failed <span class="key accepted" /> accepted
          </p>
        </div>
        <ActivityChart buckets={bucketsOf(stats)} />
        <p class="muted hint">Times in UTC. Click a bar for the requests created in its 15 minutes; its red part for those that failed.</p>
      </div>
      <Backlog stats={stats} />
    </>
  );
}

function Tile({ label, value, tone = '', href }: { label: string; value: number; tone?: string; href?: string }) {
  const text = value.toLocaleString('en-GB');
  return (
    <li class={`tile ${tone}`}>
      <span class="tile-label">{label}</span>
      <span class="tile-value">{href === undefined ? text : <a href={href}>{text}</a>}</span>
    </li>
  );
}

function Backlog({ stats }: { stats: Stats }) {
  const now = useNow(5_000);
  if (stats.backlog.length === 0) {
    return (
      <div class="panel">
        <h2>Backlog</h2>
        <p class="muted">Nothing waits: every queue is empty.</p>
      </div>
    );
  }
  return (
    <div class="panel">
      <h2>Backlog, longest waiting first</h2>
      {stats.backlog_counted ? null : (
        <p class="muted">This deployment does not count waiting requests; in flight and held back are what the delivering processes report.</p>
      )}
      {stats.backlog_truncated ? <p class="muted">More requests wait than one reading counts: the counts are lower bounds.</p> : null}
      <div class="table-wrap">
        <table aria-label="Backlog by queue">
          <thead>
            <tr>
              <th scope="col">Queue</th>
              <th scope="col">Queued</th>
              <th scope="col">Scheduled</th>
              <th scope="col">In flight</th>
              <th scope="col">Held back</th>
              <th scope="col">Oldest due</th>
            </tr>
          </thead>
          <tbody>
            {stats.backlog.map((q) => (
              <BacklogRow key={q.queue} q={q} now={now} />
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

function BacklogRow({ q, now }: { q: QueueBacklog; now: number }) {
  const due = q.oldest_due_at === null ? null : Date.parse(q.oldest_due_at);
  const late = due !== null && due < now;
  return (
    <tr>
      <td>
        <a href={hrefOf({ page: 'queue', name: q.queue })}>{q.queue}</a>
        {q.paused ? <span class="badge paused-badge">paused</span> : null}
      </td>
      <td>{q.queued === null ? '—' : <a href={hrefOf({ page: 'requests', query: new URLSearchParams({ queue: q.queue, status: 'queued' }) })}>{q.queued}</a>}</td>
      <td>{q.scheduled ?? '—'}</td>
      <td>{q.delivering}</td>
      <td class={q.held > 0 ? 'warn' : ''}>{q.held}</td>
      <td class={late ? 'late' : ''}>{due === null ? '—' : late ? `${ago(now - due)} ago` : `in ${ago(due - now)}`}</td>
    </tr>
  );
}

function ago(ms: number): string {
  const s = Math.round(ms / 1_000);
  if (s < 90) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 90) return `${m} min`;
  const h = Math.round(m / 60);
  return h < 48 ? `${h} h` : `${Math.round(h / 24)} d`;
}
