import { FROM_START, type ScanFloors } from './floors.js';
import { FIRST_POSITION, bucketStart, compareTimers, type ScheduleTimer, type ScheduleTimerTable, type TimerPosition } from './timers.js';

/** Bucket entries listed per read of `schedule_timer_buckets`. */
const BUCKETS_PER_READ = 32;

/** Before and after every bucket, as `int` bounds. */
export const FIRST_BUCKET = -(2 ** 31);
export const LAST_BUCKET = 2 ** 31 - 1;

/** A bucket bound within the column's range, for times far outside it (a caller asking about the end of time). */
export function boundedBucket(bucket: number): number {
  return Math.min(Math.max(bucket, FIRST_BUCKET), LAST_BUCKET);
}

/**
 * How long after its end an empty bucket's entry is kept. Timers are seldom written into the past, so a bucket
 * this old stays empty; one written into it anyway lists the bucket again (see `ENTRY_DELETE_MARGIN_US`).
 */
export const EMPTY_BUCKET_AGE_MS = 10 * 60_000;

/**
 * How far before a scan a deletion it decides on (a bucket entry, a stale timer) is dated: a write issued within
 * this time before the scan, even one the scan could not see yet (a change whose timer is written before its
 * schedule row), has a later stamp and survives the deletion. It covers the driver's timeouts and clock drift.
 */
export const ENTRY_DELETE_MARGIN_US = 60_000_000;

export interface ShardScanLimits {
  /** The last bucket read. */
  readonly throughBucket: number;
  /** Timers due after this are left out. */
  readonly dueBy: number;
  /** Drop the entries of buckets found empty that ended `EMPTY_BUCKET_AGE_MS` before this; null never drops one. */
  readonly forgetBefore: number | null;
}

/** Background work of the store: failures are dropped, as every timer and entry is only a hint. */
export type Background = (task: () => Promise<unknown>) => void;

const DURING = 'scanning schedule timers';

/** The timers of one shard in due order, across its listed buckets, read a page at a time. */
export class ShardTimers {
  private readonly listed: number[] = [];
  private listedAfter = FIRST_BUCKET;
  private listedAll = false;
  /** The bucket being read: where the next page starts, and the floor start of its first page (null after it). */
  private reading: { bucket: number; after: TimerPosition; start: number | null } | null = null;
  private page: ScheduleTimer[] = [];
  private index = 0;

  constructor(
    private readonly table: ScheduleTimerTable,
    private readonly floors: ScanFloors,
    private readonly background: Background,
    private readonly shard: number,
    private readonly limits: ShardScanLimits,
    private readonly pageSize: number,
  ) {}

  /** The next timer, without taking it; undefined when the shard has no more within the limits. */
  async peek(): Promise<ScheduleTimer | undefined> {
    while (this.index >= this.page.length) {
      if (!(await this.readPage())) return undefined;
    }
    return this.page[this.index];
  }

  take(): void {
    this.index += 1;
  }

  private async readPage(): Promise<boolean> {
    for (;;) {
      if (this.reading === null) {
        const bucket = await this.nextBucket();
        if (bucket === undefined) return false;
        // A bucket that may be dropped is read from its start: only a full read can tell it is empty.
        const start = this.forgettable(bucket) ? FROM_START : this.floors.start(this.shard, bucket);
        this.reading = { bucket, after: start === FROM_START ? FIRST_POSITION : { dueAt: start, scheduleId: '' }, start };
      }
      const { bucket, after, start } = this.reading;
      const seenAt = this.floors.now();
      const page = await this.table.due(this.shard, bucket, after, this.limits.dueBy, this.pageSize, DURING);
      if (start !== null) {
        this.floors.saw(this.shard, bucket, start, seenAt, page[0]?.dueAt, this.limits.dueBy);
        if (page.length === 0 && start === FROM_START && this.forgettable(bucket)) this.forget(bucket);
      }
      this.reading = page.length < this.pageSize ? null : { bucket, after: page.at(-1)!, start: null };
      if (page.length > 0) {
        this.page = page;
        this.index = 0;
        return true;
      }
    }
  }

  private async nextBucket(): Promise<number | undefined> {
    while (this.listed.length === 0 && !this.listedAll) {
      const buckets = await this.table.buckets(this.shard, this.listedAfter, this.limits.throughBucket, BUCKETS_PER_READ, DURING);
      if (buckets.length < BUCKETS_PER_READ) this.listedAll = true;
      if (buckets.length > 0) this.listedAfter = buckets.at(-1)!;
      this.listed.push(...buckets);
    }
    return this.listed.shift();
  }

  /** Whether the bucket ended long enough ago for an empty one to be dropped (a past one read whole is empty). */
  private forgettable(bucket: number): boolean {
    const before = this.limits.forgetBefore;
    return before !== null && bucketStart(bucket + 1) <= before - EMPTY_BUCKET_AGE_MS && this.limits.dueBy >= bucketStart(bucket + 1);
  }

  private forget(bucket: number): void {
    this.floors.forget(this.shard, bucket);
    const asOf = this.table.times.next() - ENTRY_DELETE_MARGIN_US;
    this.background(() => this.table.forgetBucket(this.shard, bucket, asOf, DURING));
  }
}

/** Timers of several shards merged into one due order. */
export async function* inDueOrder(shards: readonly ShardTimers[]): AsyncGenerator<ScheduleTimer> {
  for (;;) {
    const heads = await Promise.all(shards.map((s) => s.peek()));
    let first = -1;
    heads.forEach((head, i) => {
      if (head !== undefined && (first < 0 || compareTimers(head, heads[first]!) < 0)) first = i;
    });
    if (first < 0) return;
    shards[first]!.take();
    yield heads[first]!;
  }
}
