import type { InFlight } from './request-pool.js';
import type { TimerFloors } from './timer-floors.js';
import {
  FIRST_POSITION,
  TIMER_BUCKET_MS,
  bucketOf,
  bucketStart,
  compareTimers,
  type Timer,
  type TimerPosition,
  type TimerTable,
} from './timers.js';

/** Bucket entries listed per read of `timer_buckets`. */
const BUCKETS_PER_READ = 32;

/** Before and after every bucket. */
export const FIRST_BUCKET = Number.MIN_SAFE_INTEGER;
export const LAST_BUCKET = Number.MAX_SAFE_INTEGER;

/**
 * How old (by the caller's clock) an empty bucket must be before a claim drops its entry. Timers are seldom
 * written into the past, so a bucket this old stays empty; and a timer written into it anyway lists the bucket
 * again (see `BUCKET_WRITE_MARGIN_US`).
 */
export const EMPTY_BUCKET_AGE_MS = 10 * TIMER_BUCKET_MS;

/**
 * How far before the scan a bucket entry's deletion is dated: a timer write issued within this time before the
 * scan, even one the scan could not see yet, re-lists its bucket with a later timestamp that the delete does not
 * shadow. It covers the driver's write timeout and clock differences between processes.
 */
const BUCKET_WRITE_MARGIN_US = 60_000_000;

const DURING = 'scanning due timers';

/** The due timers of one shard in claim order, read a page at a time. */
export class ShardDueTimers {
  /** Listed buckets that hold timers, oldest first, not yet read. */
  private readonly occupied: number[] = [];
  private listedAfter = FIRST_BUCKET;
  private listedAll = false;
  /** The bucket being read; `start` until its first page is read, then null. */
  private reading: { bucket: number; after: TimerPosition; start: TimerPosition | null } | null = null;
  private page: Timer[] = [];
  private index = 0;

  constructor(
    private readonly timers: TimerTable,
    private readonly floors: TimerFloors,
    private readonly inFlight: InFlight,
    private readonly shard: number,
    private readonly now: number,
    private readonly pageSize: number,
  ) {}

  /** The next timer, without taking it; undefined when no timer of the shard is due. */
  async peek(): Promise<Timer | undefined> {
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
        const bucket = this.occupied.shift();
        if (bucket === undefined) {
          if (this.listedAll) return false;
          await this.listBuckets();
          continue;
        }
        const start = this.floors.start(this.shard, bucket);
        this.reading = { bucket, after: start, start };
      }
      const { bucket, after, start } = this.reading;
      const seenAt = this.floors.now();
      const page = await this.timers.due(this.shard, bucket, after, this.now, this.pageSize, DURING);
      if (start !== null) this.floors.saw(this.shard, bucket, start, seenAt, page[0], this.now);
      this.reading = page.length < this.pageSize ? null : { bucket, after: page.at(-1)!, start: null };
      if (page.length > 0) {
        this.page = page;
        this.index = 0;
        return true;
      }
    }
  }

  /**
   * Lists the next buckets up to now and keeps those that may hold timers: a bucket with a floor (see
   * `TimerFloors`) is read from there; the others are looked at together, and the entries of old empty ones
   * dropped.
   */
  private async listBuckets(): Promise<void> {
    const buckets = await this.timers.buckets(this.shard, this.listedAfter, bucketOf(this.now), BUCKETS_PER_READ, DURING);
    if (buckets.length < BUCKETS_PER_READ) this.listedAll = true;
    if (buckets.length === 0) return;
    this.listedAfter = buckets.at(-1)!;
    const { floored, unknown } = splitByFloor(this.floors, this.shard, buckets, this.now);
    const asOf = this.timers.deletionTime() - BUCKET_WRITE_MARGIN_US;
    const earliest = await earliestOf(this.timers, this.floors, this.shard, unknown, DURING);
    for (const bucket of buckets) {
      if (floored.has(bucket) || earliest.has(bucket)) this.occupied.push(bucket);
      else if (unknown.includes(bucket) && forgettable(bucket, this.now)) {
        this.floors.forget(this.shard, bucket);
        this.inFlight.background(() => this.timers.forgetBucket(this.shard, bucket, asOf, DURING));
      }
    }
  }
}

/** Whether a bucket is old enough for a claim that finds it empty to drop its entry. */
function forgettable(bucket: number, now: number): boolean {
  return bucketStart(bucket + 1) <= now - EMPTY_BUCKET_AGE_MS;
}

/**
 * How to look at listed buckets: those with a floor are read from it, those known empty skipped, and the rest
 * (including empty ones old enough to drop) looked at with one `earliest` query.
 */
export function splitByFloor(floors: TimerFloors, shard: number, buckets: readonly number[], now: number): { floored: Set<number>; unknown: number[] } {
  const floored = new Set<number>();
  const unknown: number[] = [];
  for (const bucket of buckets) {
    if (floors.empty(shard, bucket)) {
      if (forgettable(bucket, now)) unknown.push(bucket);
    } else if (floors.start(shard, bucket) === FIRST_POSITION) unknown.push(bucket);
    else floored.add(bucket);
  }
  return { floored, unknown };
}

/**
 * The earliest timer of each of `buckets` that holds any, in one query. It reads each bucket from its start, so
 * what it finds (or that it finds nothing) is each bucket's floor.
 */
export async function earliestOf(timers: TimerTable, floors: TimerFloors, shard: number, buckets: readonly number[], during: string): Promise<Map<number, Timer>> {
  if (buckets.length === 0) return new Map();
  const seenAt = floors.now();
  const earliest = await timers.earliest(shard, buckets, during);
  for (const bucket of buckets) floors.saw(shard, bucket, FIRST_POSITION, seenAt, earliest.get(bucket), Number.MAX_SAFE_INTEGER);
  return earliest;
}

/** Due timers of several shards merged into one claim order. */
export async function* inClaimOrder(shards: readonly ShardDueTimers[]): AsyncGenerator<Timer> {
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

/** Every lease timer of the shards, bucket by bucket, a page at a time. */
export async function* leaseTimers(timers: TimerTable, shards: readonly number[], pageSize: number): AsyncGenerator<Timer> {
  for (const shard of shards) {
    let listedAfter = FIRST_BUCKET;
    for (;;) {
      const buckets = await timers.buckets(shard, listedAfter, LAST_BUCKET, BUCKETS_PER_READ, 'scanning leases');
      for (const bucket of buckets) {
        let after = FIRST_POSITION;
        for (;;) {
          const page = await timers.leases(shard, bucket, after, pageSize, 'scanning leases');
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
