import type { RequestStatus, StoredRequest } from '../../../domain/request.js';
import { CLAIMED_FROM, isLeased } from '../../../domain/request-lifecycle/index.js';
import { shardOf } from '../../../domain/shards.js';
import { BIGINT_BUCKETS, Buckets, type Timer, type TimerKind } from '../timers/timer.js';

/** Statuses a claim takes; only these have timers. */
const CLAIMABLE: ReadonlySet<RequestStatus> = new Set(CLAIMED_FROM);

/** One row of `timers`: request `id` may fall due at `dueAt`. */
export interface RequestTimer extends Timer {
  /** Written for a delivering request: the time its lease runs out. */
  readonly lease: boolean;
}

/**
 * Request timers: minute buckets in `timers`, listed in `timer_buckets` (migration 2). A minute keeps a due scan to
 * a few partitions and each partition small; the deletions of timers done in the current minute are what floors
 * keep out of most reads. Lease timers are marked, so releasing leases reads only those.
 */
export const REQUEST_TIMERS: TimerKind<RequestTimer> = {
  timers: 'timers',
  entries: 'timer_buckets',
  idColumn: 'request_id',
  buckets: new Buckets(60_000, BIGINT_BUCKETS.first, BIGINT_BUCKETS.last),
  columns: ['lease'],
  values: (t) => [t.lease],
  fromRow: (timer, row) => ({ ...timer, lease: row['lease'] === true }),
  marker: 'lease',
  noun: 'timers',
};

/** Whether the timer of `after` differs from that of `before`, and so must be written and the old one dropped. */
export function timerChange(
  shardCount: number,
  before: Pick<StoredRequest, 'id' | 'status' | 'dueAt'>,
  after: Pick<StoredRequest, 'id' | 'status' | 'dueAt'>,
): { add: RequestTimer | null; drop: RequestTimer | null } {
  const old = timerOf(shardCount, before);
  const next = timerOf(shardCount, after);
  const sameRow = old !== null && next !== null && old.dueAt === next.dueAt;
  return {
    add: next !== null && !(sameRow && old.lease === next.lease) ? next : null,
    drop: old !== null && !sameRow ? old : null,
  };
}

/** The timer a request in this state needs, or null when no claim could take it. */
export function timerOf(shardCount: number, r: Pick<StoredRequest, 'id' | 'status' | 'dueAt'>): RequestTimer | null {
  if (r.dueAt === null || !CLAIMABLE.has(r.status)) return null;
  return { shard: shardOf(r.id, shardCount), dueAt: r.dueAt, id: r.id, lease: isLeased(r.status) };
}

/** Whether `r` is the request `timer` stands for, claimable from that timer. */
export function matchesTimer(r: StoredRequest, timer: Timer): boolean {
  return CLAIMABLE.has(r.status) && r.dueAt === timer.dueAt;
}
