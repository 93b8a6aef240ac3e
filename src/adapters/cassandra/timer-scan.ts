import type { InFlight } from './request-pool.js';
import {
  FIRST_POSITION,
  TIMER_BUCKET_MS,
  bucketOf,
  bucketStart,
  compareTimers,
  deletionTime,
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
  private reading: { bucket: number; after: TimerPosition } | null = null;
  private page: Timer[] = [];
  private index = 0;

  constructor(
    private readonly timers: TimerTable,
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
        this.reading = { bucket, after: FIRST_POSITION };
      }
      const { bucket, after } = this.reading;
      const page = await this.timers.due(this.shard, bucket, after, this.now, this.pageSize, DURING);
      this.reading = page.length < this.pageSize ? null : { bucket, after: page.at(-1)! };
      if (page.length > 0) {
        this.page = page;
        this.index = 0;
        return true;
      }
    }
  }

  /** Lists the next buckets up to now, keeps those holding timers and drops the entries of old empty ones. */
  private async listBuckets(): Promise<void> {
    const buckets = await this.timers.buckets(this.shard, this.listedAfter, bucketOf(this.now), BUCKETS_PER_READ, DURING);
    if (buckets.length < BUCKETS_PER_READ) this.listedAll = true;
    if (buckets.length === 0) return;
    this.listedAfter = buckets.at(-1)!;
    const asOf = deletionTime() - BUCKET_WRITE_MARGIN_US;
    const earliest = await this.timers.earliest(this.shard, buckets, DURING);
    for (const bucket of buckets) {
      if (earliest.has(bucket)) this.occupied.push(bucket);
      else if (bucketStart(bucket + 1) <= this.now - EMPTY_BUCKET_AGE_MS) {
        this.inFlight.background(() => this.timers.forgetBucket(this.shard, bucket, asOf, DURING));
      }
    }
  }
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
