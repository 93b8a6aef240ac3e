import type { TimerFloors } from './floors.js';
import {
  EMPTY_BUCKET_AGE_MS,
  FIRST_POSITION,
  SWEEP_MARGIN_US,
  compareTimers,
  type Background,
  type Timer,
  type TimerKind,
  type TimerPosition,
  type TimerStamps,
} from './timer.js';

/** Bucket entries listed per read of the entries table. */
export const BUCKETS_PER_READ = 32;

/** What a scan reads, and drops bucket entries through: the kind's `TimerTable`. */
export interface ScanTable<T extends Timer> {
  readonly kind: TimerKind<T>;
  readonly stamps: TimerStamps;
  /** Listed buckets of a shard after `after` and up to `upTo`, oldest first. */
  entries(shard: number, after: number, upTo: number, limit: number, during: string): Promise<number[]>;
  /** The first timer of each of `buckets` that holds any. */
  earliest(shard: number, buckets: readonly number[], during: string): Promise<Map<number, T>>;
  /** Timers of one bucket due by `dueBy`, after `after` in (due time, ID) order. */
  due(shard: number, bucket: number, after: TimerPosition, dueBy: number, limit: number, during: string): Promise<T[]>;
  /** Drops a bucket's entry as of `asOf`. */
  forgetEntry(shard: number, bucket: number, asOf: number, during: string): Promise<void>;
}

/** What a scan of a shard reads. */
export interface ScanLimits {
  /** The last bucket read. */
  readonly throughBucket: number;
  /** Timers due after this are left out. */
  readonly dueBy: number;
  /**
   * Whether the entries of buckets found empty, ended `EMPTY_BUCKET_AGE_MS` ago by the store's clock, are dropped:
   * a scan of due work does it, a look ahead need not.
   */
  readonly forget: boolean;
  /** Listed buckets looked at, at most; every one up to `throughBucket` when left out. */
  readonly buckets?: number;
}

/** A listed bucket to read: from its floor, or past its first timer when a look at its start found that. */
interface Occupied<T> {
  readonly bucket: number;
  readonly first: T | undefined;
}

/**
 * The timers of one shard in due order, within `limits`, read a page at a time. Buckets are listed a few dozen at
 * once; a bucket with a floor (see `TimerFloors`) is read from there, one known empty is passed by, and the others
 * are looked at together with one query for the first timer of each, which reads them from their start and so
 * tells their floors, and which of them are empty (an old empty one has its entry dropped).
 */
export class ShardScan<T extends Timer> {
  private readonly occupied: Occupied<T>[] = [];
  private listedAfter: number;
  private listedAll = false;
  private bucketsLeft: number;
  private firstListed: number | undefined;
  /** The bucket being read; `start` until its first page is read, then null. */
  private reading: { bucket: number; after: TimerPosition; start: TimerPosition | null } | null = null;
  private page: T[] = [];
  private index = 0;
  private readonly during: string;

  constructor(
    private readonly table: ScanTable<T>,
    private readonly floors: TimerFloors,
    private readonly background: Background,
    private readonly shard: number,
    private readonly limits: ScanLimits,
    private readonly pageSize: number,
  ) {
    this.listedAfter = table.kind.buckets.first;
    this.bucketsLeft = limits.buckets ?? Infinity;
    this.during = `scanning ${table.kind.noun}`;
  }

  /** The next timer, without taking it; undefined when the shard has no more within the limits. */
  async peek(): Promise<T | undefined> {
    while (this.index >= this.page.length) {
      if (!(await this.readPage())) return undefined;
    }
    return this.page[this.index];
  }

  take(): void {
    this.index += 1;
  }

  /** The timers one after another, each taken as it is handed out. */
  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for (let next = await this.peek(); next !== undefined; next = await this.peek()) {
      this.take();
      yield next;
    }
  }

  /** The first bucket listed so far, if any. */
  get firstBucket(): number | undefined {
    return this.firstListed;
  }

  private async readPage(): Promise<boolean> {
    for (;;) {
      if (this.reading === null) {
        const next = await this.nextBucket();
        if (next === undefined) return false;
        if (next.first !== undefined) {
          // Later timers of the bucket are due later still.
          if (next.first.dueAt > this.limits.dueBy) continue;
          this.reading = { bucket: next.bucket, after: next.first, start: null };
          this.page = [next.first];
          this.index = 0;
          return true;
        }
        const start = this.floors.start(this.shard, next.bucket);
        this.reading = { bucket: next.bucket, after: start, start };
      }
      const { bucket, after, start } = this.reading;
      const seenAt = this.floors.now();
      const page = await this.table.due(this.shard, bucket, after, this.limits.dueBy, this.pageSize, this.during);
      if (start !== null) this.floors.saw(this.shard, bucket, start, seenAt, page[0]?.dueAt, this.limits.dueBy);
      this.reading = page.length < this.pageSize ? null : { bucket, after: page.at(-1)!, start: null };
      if (page.length > 0) {
        this.page = page;
        this.index = 0;
        return true;
      }
    }
  }

  private async nextBucket(): Promise<Occupied<T> | undefined> {
    while (this.occupied.length === 0 && !this.listedAll) await this.listBuckets();
    return this.occupied.shift();
  }

  /** Lists the next buckets and keeps those that may hold timers, dropping the entries of old empty ones. */
  private async listBuckets(): Promise<void> {
    const want = Math.min(BUCKETS_PER_READ, this.bucketsLeft);
    const buckets = await this.table.entries(this.shard, this.listedAfter, this.limits.throughBucket, want, this.during);
    this.bucketsLeft -= buckets.length;
    if (buckets.length < want || this.bucketsLeft <= 0) this.listedAll = true;
    if (buckets.length === 0) return;
    this.firstListed ??= buckets[0];
    this.listedAfter = buckets.at(-1)!;
    const floored = new Set<number>();
    const unknown: number[] = [];
    for (const bucket of buckets) {
      if (this.floors.empty(this.shard, bucket)) {
        if (this.forgettable(bucket)) unknown.push(bucket);
      } else if (this.floors.start(this.shard, bucket) === FIRST_POSITION) unknown.push(bucket);
      else floored.add(bucket);
    }
    // Dated before the look: a timer written meanwhile lists its bucket again (see `SWEEP_MARGIN_US`).
    const asOf = this.table.stamps.next() - SWEEP_MARGIN_US;
    const earliest = await this.earliestOf(unknown);
    for (const bucket of buckets) {
      const first = earliest.get(bucket);
      if (floored.has(bucket) || first !== undefined) this.occupied.push({ bucket, first });
      else if (unknown.includes(bucket) && this.forgettable(bucket)) this.forget(bucket, asOf);
    }
  }

  /** The first timer of each of `buckets` that holds any, in one query; what it finds is each bucket's floor. */
  private async earliestOf(buckets: readonly number[]): Promise<Map<number, T>> {
    if (buckets.length === 0) return new Map();
    const seenAt = this.floors.now();
    const earliest = await this.table.earliest(this.shard, buckets, this.during);
    for (const bucket of buckets) this.floors.saw(this.shard, bucket, FIRST_POSITION, seenAt, earliest.get(bucket)?.dueAt, Number.MAX_SAFE_INTEGER);
    return earliest;
  }

  /** Whether an empty bucket's entry may go: this scan drops entries, and the bucket ended long enough ago. */
  private forgettable(bucket: number): boolean {
    return this.limits.forget && this.table.kind.buckets.start(bucket + 1) <= this.floors.now() - EMPTY_BUCKET_AGE_MS;
  }

  private forget(bucket: number, asOf: number): void {
    this.floors.forget(this.shard, bucket);
    this.background(() => this.table.forgetEntry(this.shard, bucket, asOf, this.during));
  }
}

/** Timers of several shards merged into one due order. */
export async function* inDueOrder<T extends Timer>(shards: readonly ShardScan<T>[]): AsyncGenerator<T> {
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
