import { useEffect, useMemo, useState } from 'preact/hooks';
import { BulkBar } from '../bulk/bulk-bar.js';
import { bulkFilterOf } from '../bulk/bulk-words.js';
import { RecentBulkActions } from '../bulk/recent-bulk-actions.js';
import { filterKeyOf, hasFilters, listQueryOf } from '../requests/list-query.js';
import { RequestFilters } from '../requests/request-filters.js';
import { useSession } from '../shell/context.js';
import { hrefOf, navigate } from '../shell/router.js';
import { ErrorNotice } from '../ui/error-notice.js';
import { TrailPager } from '../ui/pager.js';
import { usePolled } from '../ui/use-polled.js';
import { FailureTable } from './failure-table.js';
import './failures.css';

/** How often the list is read again: failures arrive as deliveries end. */
const LIVE_EVERY_MS = 5_000;
const FAILED = { status: 'failed' } as const;

/**
 * `#/failures`: the requests that ended `failed`, with what their destination last answered and why Ferry stopped,
 * filtered as the requests list is (queue, flow key, last response code, time range …). Rows can be selected and
 * replayed by ID, or everything the filter matches replayed after a dry run's count; a failed request can only be
 * replayed (a cancel would leave it alone as ended), so cancelling by filter lives on the requests list.
 */
export function FailuresPage({ query }: { query: URLSearchParams }) {
  const { api } = useSession();
  const queryText = query.toString();
  const cursor = query.get('cursor') ?? '';
  const filterKey = filterKeyOf(query);
  const [trail, setTrail] = useState<string[]>([]);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [version, setVersion] = useState(0);
  useEffect(() => {
    setTrail([]);
    setSelected(new Set());
  }, [filterKey]);

  const polled = usePolled(async () => await api.reads.requests.list({ ...listQueryOf(query), ...FAILED }), [queryText], { everyMs: LIVE_EVERY_MS });
  const list = polled.data;
  const filter = useMemo(() => bulkFilterOf(query, FAILED), [filterKey]);

  const goTo = (nextCursor: string) => {
    const next = new URLSearchParams(query);
    if (nextCursor === '') next.delete('cursor');
    else next.set('cursor', nextCursor);
    navigate({ page: 'failures', query: next });
  };

  return (
    <>
      <div class="spread">
        <h1>Failures</h1>
        <span class="muted live-note">Failed requests · live: refreshed every {LIVE_EVERY_MS / 1_000} s</span>
      </div>
      <RequestFilters query={query} page="failures" />
      <BulkBar
        filter={filter}
        selected={[...selected]}
        kinds={['replay']}
        onStarted={() => {
          setSelected(new Set());
          setVersion((v) => v + 1);
        }}
        onSettled={() => setVersion((v) => v + 1)}
      />
      {polled.error ? <ErrorNotice error={polled.error} /> : null}
      {list === null ? (
        polled.error ? null : <p class="muted">Loading…</p>
      ) : (
        <>
          {selected.size > 0 ? (
            <p class="row selection-line">
              <span>{selected.size.toLocaleString('en-GB')} selected</span>
              <button type="button" onClick={() => setSelected(new Set())}>
                Clear selection
              </button>
            </p>
          ) : null}
          {list.items.length === 0 ? (
            <NoFailures filtered={hasFilters(query)} paged={cursor !== ''} />
          ) : (
            <FailureTable items={list.items} selected={selected} onSelect={setSelected} />
          )}
          <TrailPager cursor={cursor} trail={trail} setTrail={setTrail} goTo={goTo} nextCursor={list.next_cursor} />
        </>
      )}
      <RecentBulkActions version={version} />
    </>
  );
}

function NoFailures({ filtered, paged }: { filtered: boolean; paged: boolean }) {
  return (
    <div class="notice empty">
      <strong>{filtered || paged ? `No failed request matches ${paged ? 'on this page' : 'these filters'}.` : 'No failed requests.'}</strong>
      <p>
        {filtered || paged ? (
          <>
            Widen the filters, or <a href={hrefOf({ page: 'failures', query: new URLSearchParams() })}>clear them</a>.
          </>
        ) : (
          'A request that ends without a success shows here, with what its destination last answered.'
        )}
      </p>
    </div>
  );
}
