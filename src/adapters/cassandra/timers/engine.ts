import type { Clock } from '../../../domain/clock.js';
import { StorageUnavailable } from '../../../ports/errors.js';
import type { CassandraSession, Statement } from '../session.js';
import { WriteCoalescer, type CoalescerLimits } from '../write-coalescer.js';
import { TimerFloors, type TimerFloorSettings } from './floors.js';
import { TimerRemovals } from './removals.js';
import { ShardScan, inDueOrder, markedTimers, type ScanLimits } from './scan.js';
import { SWEEP_MARGIN_US, TimerStamps, TimerTable } from './table.js';
import type { Background, Buckets, Timer, TimerKind } from './timer.js';

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
