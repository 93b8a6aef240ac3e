import { useEffect, useMemo, useState } from 'preact/hooks';
import type { RequestSummary } from '../../../sdk/src/types.js';
import { BulkBar } from '../bulk/bulk-bar.js';
import { bulkFilterOf } from '../bulk/bulk-words.js';
import { holdReasonText, kindText } from '../flow/budget-words.js';
import { useSession } from '../shell/context.js';
import { hrefOf, navigate } from '../shell/router.js';
import { CopyId } from '../ui/copy-id.js';
import { ErrorNotice } from '../ui/error-notice.js';
import { TrailPager } from '../ui/pager.js';
import { StatusBadge } from '../ui/status-badge.js';
import { Time } from '../ui/time.js';
import { usePolled } from '../ui/use-polled.js';
import { filterKeyOf, hasFilters, listQueryOf } from './list-query.js';
import { RequestFilters } from './request-filters.js';
import './requests.css';

/** How often the open list is read again, so statuses move on screen as deliveries happen. */
const LIVE_EVERY_MS = 3_000;

export function RequestsPage({ query }: { query: URLSearchParams }) {
  const { api } = useSession();
  const queryText = query.toString();
  const cursor = query.get('cursor') ?? '';
  const filterKey = filterKeyOf(query);
  // The cursors of the newer pages already seen, to step back through: the API pages forward only.
  const [trail, setTrail] = useState<string[]>([]);
  useEffect(() => setTrail([]), [filterKey]);

  const polled = usePolled(async () => await api.reads.requests.list(listQueryOf(query)), [queryText], { everyMs: LIVE_EVERY_MS });
  const list = polled.data;
  const filter = useMemo(() => bulkFilterOf(query), [filterKey]);

  const goTo = (nextCursor: string) => {
    const next = new URLSearchParams(query);
    if (nextCursor === '') next.delete('cursor');
    else next.set('cursor', nextCursor);
    navigate({ page: 'requests', query: next });
  };

  return (
    <>
      <div class="spread">
        <h1>Requests</h1>
        <span class="row">
          <span class="muted live-note">Live: refreshed every {LIVE_EVERY_MS / 1_000} s</span>
          <a class="button-link" href={hrefOf({ page: 'send' })}>
            Send a test request
          </a>
        </span>
      </div>
      <RequestFilters query={query} />
      <details class="bulk-toggle">
        <summary>Replay or cancel all matching</summary>
        <BulkBar filter={filter} kinds={['replay', 'cancel']} />
      </details>
      {polled.error ? <ErrorNotice error={polled.error} /> : null}
      {list === null ? (
        polled.error ? null : <p class="muted">Loading…</p>
      ) : (
        <>
          {list.has_hidden_history ? (
            <p class="notice">
              Ended requests created before <Time value={list.history_cutoff_at} /> are past this project's {list.history_retention_days}-day
              history and no longer listed.
            </p>
          ) : null}
          {list.items.length === 0 ? (
            <EmptyList filtered={hasFilters(query)} paged={cursor !== ''} />
          ) : (
            <RequestTable items={list.items} />
          )}
          <TrailPager cursor={cursor} trail={trail} setTrail={setTrail} goTo={goTo} nextCursor={list.next_cursor} />
        </>
      )}
    </>
  );
}

/**
 * The list as a table; on a narrow screen each row folds into a block of lines (requests.css), so nothing of it
 * lies past the window's edge. The small labels are shown only then, where the column headings are out of sight.
 */
function RequestTable({ items }: { items: RequestSummary[] }) {
  const now = Date.now();
  return (
    <div class="table-wrap">
      <table class="requests">
        <thead>
          <tr>
            <th scope="col">Status</th>
            <th scope="col">ID</th>
            <th scope="col">Method</th>
            <th scope="col">URL</th>
            <th scope="col">Created</th>
            <th scope="col">Next / ended</th>
            <th scope="col" class="wide">
              Source
            </th>
          </tr>
        </thead>
        <tbody>
          {items.map((r) => (
            <tr key={r.id}>
              <td class="status">{r.status ? <StatusBadge status={r.status} /> : <span class="muted">—</span>}</td>
              <td class="id">
                <CopyId id={r.id} href={hrefOf({ page: 'request', id: r.id })} />
              </td>
              <td class="method">
                <code>{r.method}</code>
              </td>
              <td class="url">
                {r.url}
                {r.flow_keys.length > 0 ? <div class="muted flow-keys-line">keys: {r.flow_keys.join(', ')}</div> : null}
              </td>
              <td class="created">
                <FoldedLabel text="Created" />
                <Time value={r.created_at} now={now} />
              </td>
              <td class="next">
                <FoldedLabel text="Next / ended" />
                <NextOrEnded request={r} now={now} />
              </td>
              <td class="wide">
                <SourceCell request={r} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A cell's heading, shown inside it only when the row is folded; hidden from screen readers, which have the column's. */
function FoldedLabel({ text }: { text: string }) {
  return (
    <span class="folded-label" aria-hidden="true">
      {text}
    </span>
  );
}

/** What the list can say about "when": the due time of a delayed request, the end of an ended one. */
function NextOrEnded({ request, now }: { request: RequestSummary; now: number }) {
  switch (request.status) {
    case 'scheduled':
      return (
        <>
          due <Time value={request.scheduled_at} now={now} planned />
        </>
      );
    case 'queued':
      if (request.waiting_for !== null) {
        const w = request.waiting_for;
        return <span title={`waiting for ${kindText(w.kind)} ${w.name}`}>held: {holdReasonText(w.reason)}</span>;
      }
      return <span>{request.started_at === null ? 'first attempt due now' : 'retry pending'}</span>;
    case 'delivering':
      return <span>attempt under way</span>;
    default:
      return request.completed_at !== null ? <Time value={request.completed_at} now={now} /> : <span class="muted">—</span>;
  }
}

function SourceCell({ request }: { request: RequestSummary }) {
  if (request.schedule_id !== null) return <a href={hrefOf({ page: 'schedule', id: request.schedule_id })}>schedule</a>;
  if (request.replayed_from_request_id !== null) {
    return <a href={hrefOf({ page: 'request', id: request.replayed_from_request_id })}>replay</a>;
  }
  return <span class="muted">API</span>;
}

function EmptyList({ filtered, paged }: { filtered: boolean; paged: boolean }) {
  if (filtered || paged) {
    return (
      <div class="notice empty">
        <strong>No request matches {paged ? 'on this page' : 'these filters'}.</strong>
        <p>
          Widen the filters, or <a href={hrefOf({ page: 'requests', query: new URLSearchParams() })}>clear them</a> to see every request.
        </p>
      </div>
    );
  }
  return (
    <div class="notice empty">
      <strong>No requests yet.</strong>
      <p>
        <a href={hrefOf({ page: 'send' })}>Send a test request</a>, or call <code>POST /send</code> or <code>POST /requests</code> with this
        project's API key: requests appear here as soon as Ferry accepts them, and their statuses change live.
      </p>
    </div>
  );
}
