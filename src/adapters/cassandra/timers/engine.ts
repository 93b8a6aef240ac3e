import type { Clock, TimerHandle } from '../../../domain/clock.js';
import { StorageUnavailable } from '../../../ports/errors.js';
import { RecentKeys } from '../shared/recent-keys.js';
import type { CassandraSession, Statement } from '../session.js';
import { WriteCoalescer, type CoalescerLimits } from '../shared/write-coalescer.js';
import { TimerFloors, type TimerFloorSettings } from './floors.js';
import { BUCKETS_PER_READ, ShardScan, inDueOrder, type ScanLimits } from './scan.js';
import { TimerTable } from './table.js';
import { FIRST_POSITION, SWEEP_MARGIN_US, TimerStamps, timerKey, type Background, type Buckets, type Timer, type TimerKind } from './timer.js';

// What the stores need besides the engine itself: the rest of this folder is the engine's own.
export type { TimerFloorSettings } from './floors.js';
export type { ScanLimits } from './scan.js';
export { EMPTY_BUCKET_AGE_MS, compareTimers, type Timer } from './timer.js';

/** Timer writes under way at once, and timers per write: the claims of one due scan share a lease bucket per shard. */
const TIMER_WRITES: CoalescerLimits = {
  writesAtOnce: 8,
  itemsPerWrite: 32,
  bytesPerWrite: Infinity,
  maxWaiting: 4096,
  maxWaitingBytes: Infinity,
};

export interface TimerEngineOptions {
  /** The only source of time: stamps, floors, and the age of empty buckets. */
  readonly clock: Clock;
  /** Runs clean-up no caller waits for (deletions, dropped bucket entries); the store's close waits for it. */
  readonly background: Background;
  /** Default `TIMER_FLOORS`. */
  readonly floors?: TimerFloorSettings;
}

/**
 * Due work found through timers: one row per (thing, due time) in partitions of one shard and one time bucket,
 * with a table listing each shard's buckets. A timer is a hint that the caller checks against the row it stands
 * for, so a stale one is harmless, and every change writes its new timer before it and deletes the old one after.
 *
 * The rules, the same for every kind of timer (see the README beside this folder):
 * - every row is written and deleted at a stamp of this process (`TimerStamps`); a deletion is dated when the
 *   operation that decided it began (`stamp`), or, decided by a scan, a minute before it (`sweepStamp`);
 * - a bucket's entry is written with its first timer and again only once the bucket is old (`TimerTable`); a scan
 *   drops the entry of an old bucket it finds empty (`ShardScan`);
 * - reads of a bucket start at its floor (`TimerFloors`), and timers written here lower it (`written`);
 * - deletions are gathered and written per partition (`TimerRemovals`), and timer writes share batches.
 */
export class TimerEngine<T extends Timer> {
  readonly buckets: Buckets;
  private readonly table: TimerTable<T>;
  private readonly floors: TimerFloors;
  private readonly removals: TimerRemovals<T>;
  private readonly writes: WriteCoalescer<T>;

  constructor(
    private readonly session: CassandraSession,
    kind: TimerKind<T>,
    private readonly options: TimerEngineOptions,
  ) {
    this.buckets = kind.buckets;
    this.table = new TimerTable(session, kind, new TimerStamps(options.clock));
    this.floors = new TimerFloors(options.clock, kind.buckets, options.floors);
    this.removals = new TimerRemovals(session, this.table, options.background, options.clock);
    this.writes = new WriteCoalescer<T>(
      (group) => this.writeGroup(group),
      () => 0,
      TIMER_WRITES,
      () => new StorageUnavailable(`Cassandra is not keeping up with writes of ${kind.noun}; try again shortly.`),
    );
  }

  /**
   * The stamp of deletions that an operation starting now decides on (the old timer of a change): a timer written
   * again later, for a later change, has a later stamp and survives them, whichever lands first.
   */
  stamp(): number {
    return this.table.stamps.next();
  }

  /**
   * The stamp of deletions that a scan starting now decides on (a timer found stale): `SWEEP_MARGIN_US` earlier,
   * since what the scan took for stale may be a timer written a moment ago for a change still landing.
   */
  sweepStamp(): number {
    return this.stamp() - SWEEP_MARGIN_US;
  }

  /** The rows of new timers, for a batch with other rows; `written` once it has succeeded. */
  statements(timers: readonly T[]): Statement[] {
    return this.table.statements(timers, this.options.clock.now());
  }

  /** Timers whose rows (from `statements`) have landed: their bucket entries are there, and scans here include them. */
  written(timers: readonly T[]): void {
    this.table.written(timers);
    for (const t of timers) this.floors.wrote(t.shard, t.dueAt);
  }

  /** Writes a timer, in a batch with the timers of changes made at the same time. */
  write(t: T): Promise<void> {
    return this.writes.submit(t);
  }

  /** Deletes `t` as of `asOf` (`stamp` or `sweepStamp`), soon. */
  remove(t: T, asOf: number): void {
    this.removals.remove(t, asOf);
  }

  /** Deletes `t` once `first` has succeeded; it stays in place if `first` fails. */
  removeAfter(t: T, asOf: number, first: () => Promise<void>): void {
    this.removals.removeAfter(t, asOf, first);
  }

  /** True while this process is deleting `t`, and for a short while after (see `TimerRemovals`). */
  pending(t: T): boolean {
    return this.removals.pending(t);
  }

  /** The deletion of `t` as of `asOf`, for a batch with other rows. */
  removeStatement(t: T, asOf: number): Statement {
    return this.table.removeStatement(t, asOf);
  }

  /** The timers of `shards` within `limits`, merged into one due order. */
  scan(shards: readonly number[], limits: ScanLimits, pageSize: number): AsyncGenerator<T> {
    return inDueOrder(shards.map((shard) => this.shardScan(shard, limits, pageSize)));
  }

  shardScan(shard: number, limits: ScanLimits, pageSize: number): ShardScan<T> {
    return new ShardScan(this.table, this.floors, this.options.background, shard, limits, pageSize);
  }

  /** The first `limit` buckets listed for a shard, oldest first. */
  listed(shard: number, limit: number, during: string): Promise<number[]> {
    return this.table.entries(shard, this.buckets.first, this.buckets.last, limit, during);
  }

  /** Every marked timer of `shards` (see `TimerKind.marker`). */
  marked(shards: readonly number[], pageSize: number): AsyncGenerator<T> {
    return markedTimers(this.table, shards, pageSize);
  }

  /** Writes the deletions waiting now, and from now on each at once; the store's close waits for them. */
  close(): void {
    this.removals.close();
  }

  private async writeGroup(group: readonly T[]): Promise<void> {
    await this.session.writeTogether(this.statements(group), `writing ${this.table.kind.noun}`);
    this.written(group);
  }
}

/** Every marked timer of the shards (see `TimerKind.marker`), bucket by bucket, a page at a time. */
async function* markedTimers<T extends Timer>(table: TimerTable<T>, shards: readonly number[], pageSize: number): AsyncGenerator<T> {
  const during = `scanning ${table.kind.marker ?? 'marked'} ${table.kind.noun}`;
  const { first, last } = table.kind.buckets;
  for (const shard of shards) {
    for (let listedAfter = first; ; ) {
      const buckets = await table.entries(shard, listedAfter, last, BUCKETS_PER_READ, during);
      for (const bucket of buckets) {
        for (let after = FIRST_POSITION; ; ) {
          const page = await table.marked(shard, bucket, after, pageSize, during);
          yield* page;
          if (page.length < pageSize) break;
          after = page.at(-1)!;
        }
      }
      if (buckets.length < BUCKETS_PER_READ) break;
      listedAfter = buckets.at(-1)!;
    }
  }
}

/**
 * How long a timer whose deletion landed is still told `pending`: a scan reads a page of timers and takes from it
 * for a while, so a page read before the deletion can still hold it. Bounded by count, oldest forgotten first.
 */
const RECENTLY_REMOVED_MS = 15_000;
const MAX_RECENTLY_REMOVED = 50_000;

/** Deletions gathered before they are written: a count that fills a batch, or a short wait. */
const FLUSH_AT = 64;
const FLUSH_AFTER_MS = 5;

interface Waiting {
  readonly statement: Statement;
  readonly key: string;
}

/**
 * Timer deletions, gathered for a few milliseconds and written per timer partition, one unlogged batch (one
 * mutation) each, instead of one message per deletion. A timer is only a hint: a deletion that lands a little
 * later, or never after a crash, leaves a stale timer that readers already skip and drop.
 *
 * Until its deletion has landed, and for a short while after, a timer this process is removing is `pending`: a
 * claim may pass over it without reading what it stands for, which it would only find ended or moved on.
 */
class TimerRemovals<T extends Timer> {
  private readonly waiting = new Map<string, Waiting[]>();
  private readonly removing = new Map<string, number>();
  /** Timers deleted lately, still pending (see `RECENTLY_REMOVED_MS`). */
  private readonly removed: RecentKeys;
  private count = 0;
  private timer: TimerHandle | null = null;
  private closing = false;

  constructor(
    private readonly session: CassandraSession,
    private readonly table: TimerTable<T>,
    private readonly background: Background,
    private readonly clock: Clock,
  ) {
    this.removed = new RecentKeys(clock, RECENTLY_REMOVED_MS, MAX_RECENTLY_REMOVED);
  }

  /** Deletes `t` as of `asOf` (a stamp, see `TimerStamps`), soon. */
  remove(t: Timer, asOf: number): void {
    const key = timerKey(t);
    this.hold(key);
    const partition = `${t.shard}/${this.table.kind.buckets.of(t.dueAt)}`;
    const entry = { statement: this.table.removeStatement(t, asOf), key };
    const waiting = this.waiting.get(partition);
    if (waiting === undefined) this.waiting.set(partition, [entry]);
    else waiting.push(entry);
    this.count++;
    if (this.closing || this.count >= FLUSH_AT) this.flush();
    else this.timer ??= this.clock.setTimer(() => this.flush(), FLUSH_AFTER_MS);
  }

  /** Deletes `t` once `first` has succeeded; `t` is pending meanwhile, and stays in place if `first` fails. */
  removeAfter(t: Timer, asOf: number, first: () => Promise<void>): void {
    const key = timerKey(t);
    this.hold(key);
    this.background(async () => {
      try {
        await first();
        this.remove(t, asOf);
      } finally {
        this.release(key);
      }
    });
  }

  /** True while `t` is being deleted by this process, and for a short while after (see `RECENTLY_REMOVED_MS`). */
  pending(t: Timer): boolean {
    const key = timerKey(t);
    return this.removing.has(key) || this.removed.has(key);
  }

  /** Writes what is waiting now, and from now on every deletion at once (the store is closing). */
  close(): void {
    this.closing = true;
    this.flush();
  }

  private flush(): void {
    this.timer?.cancel();
    this.timer = null;
    const partitions = [...this.waiting.values()];
    this.waiting.clear();
    this.count = 0;
    for (const entries of partitions) {
      this.background(async () => {
        try {
          await this.session.writeTogether(
            entries.map((e) => e.statement),
            `removing ${this.table.kind.noun}`,
          );
          for (const e of entries) this.removed.add(e.key);
        } finally {
          for (const e of entries) this.release(e.key);
        }
      });
    }
  }

  private hold(key: string): void {
    this.removing.set(key, (this.removing.get(key) ?? 0) + 1);
  }

  private release(key: string): void {
    const left = (this.removing.get(key) ?? 1) - 1;
    if (left <= 0) this.removing.delete(key);
    else this.removing.set(key, left);
  }
}
