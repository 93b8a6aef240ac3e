import type { Clock } from '../../domain/clock.js';
import type { RequestStatus, StoredRequest } from '../../domain/request.js';
import { shardOf } from '../../domain/shards.js';
import { StorageUnavailable } from '../../ports/errors.js';
import { millis, type CassandraSession, type Statement } from './session.js';
import { WriteCoalescer, type CoalescerLimits } from './write-coalescer.js';
import { WrittenEntries } from './written-entries.js';

/** Width of a timer partition. A minute keeps a due scan to a few partitions and each partition small. */
export const TIMER_BUCKET_MS = 60_000;

/** Statuses a claim takes; only these have timers. */
const CLAIMABLE: ReadonlySet<RequestStatus> = new Set(['queued', 'scheduled', 'delivering']);

/** One row of `timers`: request `requestId` may fall due at `dueAt`. */
export interface Timer {
  readonly shard: number;
  readonly dueAt: number;
  readonly requestId: string;
  /** Written for a delivering request: the time its lease runs out. */
  readonly lease: boolean;
}

export function bucketOf(dueAt: number): number {
  return Math.floor(dueAt / TIMER_BUCKET_MS);
}

export function bucketStart(bucket: number): number {
  return bucket * TIMER_BUCKET_MS;
}

/** Whether the timer of `after` differs from that of `before`, and so must be written and the old one dropped. */
export function timerChange(shardCount: number, before: StoredRequest, after: StoredRequest): { add: Timer | null; drop: Timer | null } {
  const old = timerOf(shardCount, before);
  const next = timerOf(shardCount, after);
  const sameRow = old !== null && next !== null && old.dueAt === next.dueAt;
  return {
    add: next !== null && !(sameRow && old.lease === next.lease) ? next : null,
    drop: old !== null && !sameRow ? old : null,
  };
}

/** The timer a request in this state needs, or null when no claim could take it. */
export function timerOf(shardCount: number, r: Pick<StoredRequest, 'id' | 'status' | 'dueAt'>): Timer | null {
  if (r.dueAt === null || !CLAIMABLE.has(r.status)) return null;
  return { shard: shardOf(r.id, shardCount), dueAt: r.dueAt, requestId: r.id, lease: r.status === 'delivering' };
}

/** Whether `r` is the request `timer` stands for, claimable from that timer. */
export function matchesTimer(r: StoredRequest, timer: Timer): boolean {
  return CLAIMABLE.has(r.status) && r.dueAt === timer.dueAt;
}

/**
 * A bucket entry this process wrote is not written again while the bucket ended less than this long ago: a scan
 * drops an entry only once its bucket ended `EMPTY_BUCKET_AGE_MS` (ten minutes) ago by the scanner's clock, so
 * this leaves five minutes for clocks that differ.
 */
const BUCKET_ENTRY_TRUSTED_MS = 5 * TIMER_BUCKET_MS;

/** Timer writes under way at once, and timers per write: a due scan's claims share a lease bucket per shard. */
const TIMER_WRITES: CoalescerLimits = {
  writesAtOnce: 8,
  itemsPerWrite: 32,
  bytesPerWrite: Infinity,
  maxWaiting: 4096,
  maxWaitingBytes: Infinity,
};

/** Reads and writes of `timers` and `timer_buckets`. */
export class TimerTable {
  private readonly listedBuckets = new WrittenEntries();
  /** Timers of changes made at once (the claims of one due scan, say) are written together. */
  private readonly writes = new WriteCoalescer<Timer>(
    (group) => this.writeGroup(group),
    () => 0,
    TIMER_WRITES,
    () => new StorageUnavailable('Cassandra is not keeping up with timer writes; try again shortly.'),
  );
  private readonly insertTimer: string;
  private readonly insertBucket: string;
  private readonly deleteTimer: string;
  private readonly deleteBucket: string;
  private readonly selectBuckets: string;
  private readonly selectOccupied: string;
  private readonly selectDue: string;
  private readonly selectLeases: string;

  constructor(
    private readonly session: CassandraSession,
    private readonly clock: Clock,
  ) {
    const timers = session.table('timers');
    const buckets = session.table('timer_buckets');
    this.insertTimer = `INSERT INTO ${timers} (shard, bucket, due_at, request_id, lease) VALUES (?, ?, ?, ?, ?)`;
    this.insertBucket = `INSERT INTO ${buckets} (shard, bucket) VALUES (?, ?)`;
    this.deleteTimer = `DELETE FROM ${timers} USING TIMESTAMP ? WHERE shard = ? AND bucket = ? AND due_at = ? AND request_id = ?`;
    this.deleteBucket = `DELETE FROM ${buckets} USING TIMESTAMP ? WHERE shard = ? AND bucket = ?`;
    this.selectBuckets = `SELECT bucket FROM ${buckets} WHERE shard = ? AND bucket > ? AND bucket <= ? LIMIT ?`;
    this.selectOccupied = `SELECT bucket, due_at, request_id, lease FROM ${timers} WHERE shard = ? AND bucket IN ? PER PARTITION LIMIT 1`;
    // Both bounds in tuple form: CQL does not mix single- and multi-column restrictions of clustering columns.
    this.selectDue = `SELECT due_at, request_id, lease FROM ${timers}
      WHERE shard = ? AND bucket = ? AND (due_at, request_id) > (?, ?) AND (due_at) <= (?) LIMIT ?`;
    // Filtering within one partition: reads that partition only, and sends back just the leases.
    this.selectLeases = `SELECT due_at, request_id, lease FROM ${timers}
      WHERE shard = ? AND bucket = ? AND (due_at, request_id) > (?, ?) AND lease = true LIMIT ? ALLOW FILTERING`;
  }

  /**
   * A write timestamp (microseconds, like the driver's own) for deleting rows that an operation starting now made
   * obsolete. A timer written again later, for a later change, carries a later timestamp and survives the delete,
   * even when the delete arrives last. One microsecond less, because on equal timestamps a delete wins.
   */
  deletionTime(): number {
    return this.clock.now() * 1000 - 1;
  }

  /** The timer row, for a batch. */
  timerStatement(t: Timer): Statement {
    return { query: this.insertTimer, params: [t.shard, bucketOf(t.dueAt), t.dueAt, t.requestId, t.lease] };
  }

  /** The entry of the timer's bucket, or null when this process wrote it lately (see `BUCKET_ENTRY_TRUSTED_MS`). */
  bucketStatement(t: Timer, now = this.clock.now()): Statement | null {
    const bucket = bucketOf(t.dueAt);
    if (this.listedBuckets.has(`${t.shard}/${bucket}`) && bucketStart(bucket + 1) > now - BUCKET_ENTRY_TRUSTED_MS) return null;
    return { query: this.insertBucket, params: [t.shard, bucket] };
  }

  /** Remembers the bucket entries of timers whose writes have succeeded. */
  bucketsWritten(timers: readonly Timer[]): void {
    for (const t of timers) this.listedBuckets.add(`${t.shard}/${bucketOf(t.dueAt)}`);
  }

  write(t: Timer): Promise<void> {
    return this.writes.submit(t);
  }

  /**
   * The rows of new timers: each timer, and the entry of each of their buckets once (none for a bucket this
   * process wrote lately); the same row many times would only weigh on a batch.
   */
  statementsFor(timers: readonly Timer[], now = this.clock.now()): Statement[] {
    const statements: Statement[] = [];
    const buckets = new Set<string>();
    for (const t of timers) {
      statements.push(this.timerStatement(t));
      const key = `${t.shard}/${bucketOf(t.dueAt)}`;
      const bucketRow = buckets.has(key) ? null : this.bucketStatement(t, now);
      buckets.add(key);
      if (bucketRow !== null) statements.push(bucketRow);
    }
    return statements;
  }

  private async writeGroup(group: readonly Timer[]): Promise<void> {
    const statements = this.statementsFor(group);
    await this.session.writeTogether(statements, 'writing timers');
    this.bucketsWritten(group);
  }

  /** The deletion of a timer as of `asOf` (see `deletionTime`); `TimerRemovals` writes it. */
  removeStatement(t: Timer, asOf: number): Statement {
    return { query: this.deleteTimer, params: [asOf, t.shard, bucketOf(t.dueAt), t.dueAt, t.requestId] };
  }

  /** Drops a bucket's entry as of `asOf`: a timer written into the bucket after that re-lists it. */
  async forgetBucket(shard: number, bucket: number, asOf: number, during: string): Promise<void> {
    this.listedBuckets.forget(`${shard}/${bucket}`);
    await this.session.execute(this.deleteBucket, [asOf, shard, bucket], during, { idempotent: true });
  }

  /** Listed buckets of a shard after `after` and up to `upTo`, oldest first. */
  async buckets(shard: number, after: number, upTo: number, limit: number, during: string): Promise<number[]> {
    const rs = await this.session.read(this.selectBuckets, [shard, after, upTo, limit], during);
    return rs.rows.map((row) => millis(row['bucket'])!);
  }

  /** The earliest timer of each of `buckets` that holds any: one query for all of them. */
  async earliest(shard: number, buckets: readonly number[], during: string): Promise<Map<number, Timer>> {
    const rs = await this.session.read(this.selectOccupied, [shard, buckets], during);
    return new Map(rs.rows.map((row) => [millis(row['bucket'])!, timerFromRow(shard, row)]));
  }

  /** Timers of one bucket due by `dueBy`, after `after` in (dueAt, requestId) order. */
  async due(shard: number, bucket: number, after: TimerPosition, dueBy: number, limit: number, during: string): Promise<Timer[]> {
    const rs = await this.session.read(this.selectDue, [shard, bucket, after.dueAt, after.requestId, dueBy, limit], during);
    return rs.rows.map((row) => timerFromRow(shard, row));
  }

  /** Lease timers of one bucket, after `after` in (dueAt, requestId) order. */
  async leases(shard: number, bucket: number, after: TimerPosition, limit: number, during: string): Promise<Timer[]> {
    const rs = await this.session.read(this.selectLeases, [shard, bucket, after.dueAt, after.requestId, limit], during);
    return rs.rows.map((row) => timerFromRow(shard, row));
  }
}

export interface TimerPosition {
  readonly dueAt: number;
  readonly requestId: string;
}

/** Before every timer of any bucket. */
export const FIRST_POSITION: TimerPosition = { dueAt: Number.MIN_SAFE_INTEGER, requestId: '' };

function timerFromRow(shard: number, row: Record<string, unknown>): Timer {
  return { shard, dueAt: millis(row['due_at'])!, requestId: row['request_id'] as string, lease: row['lease'] === true };
}

/** Orders timers as claims take them: due time, then ID. */
export function compareTimers(a: TimerPosition, b: TimerPosition): number {
  return a.dueAt - b.dueAt || (a.requestId < b.requestId ? -1 : a.requestId > b.requestId ? 1 : 0);
}
