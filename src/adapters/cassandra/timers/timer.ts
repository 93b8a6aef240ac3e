import type { Clock } from '../../../domain/clock.js';

/** A place in a bucket, in (due time, ID) order: the order in which timers are read and taken. */
export interface TimerPosition {
  readonly dueAt: number;
  readonly id: string;
}

/** One row of a timer table: what `id` names (a request, a schedule) may fall due at `dueAt`, in `shard`. */
export interface Timer extends TimerPosition {
  readonly shard: number;
}

/** Before every timer of any bucket. */
export const FIRST_POSITION: TimerPosition = { dueAt: Number.MIN_SAFE_INTEGER, id: '' };

/** Due time, then ID: the order reads answer in and claims take timers in. */
export function compareTimers(a: TimerPosition, b: TimerPosition): number {
  return a.dueAt - b.dueAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** One timer row, as a key for the sets that remember timers. */
export function timerKey(t: Timer): string {
  return `${t.shard}/${t.dueAt}/${t.id}`;
}

/**
 * Time buckets of one width: bucket `n` holds the timers due in `[n × ms, (n + 1) × ms)`. `first` and `last`
 * are the bounds of the `bucket` column's type, before and after every bucket.
 */
export class Buckets {
  constructor(
    readonly ms: number,
    readonly first: number,
    readonly last: number,
  ) {}

  of(dueAt: number): number {
    return Math.floor(dueAt / this.ms);
  }

  start(bucket: number): number {
    return bucket * this.ms;
  }

  /** A bucket within the column's range, for times far outside it (a caller asking about the end of time). */
  bounded(bucket: number): number {
    return Math.min(Math.max(bucket, this.first), this.last);
  }
}

/** Bounds of a `bigint` bucket column, as far as a JavaScript number is exact. */
export const BIGINT_BUCKETS = { first: Number.MIN_SAFE_INTEGER, last: Number.MAX_SAFE_INTEGER } as const;
/** Bounds of an `int` bucket column. */
export const INT_BUCKETS = { first: -(2 ** 31), last: 2 ** 31 - 1 } as const;

/**
 * What makes one use of the timer engine: its two tables, the column naming what a timer stands for, the bucket
 * width, and any further columns of a timer row. The tables are laid out alike:
 * `timers ((shard, bucket), due_at, <idColumn>, ...columns)` and `entries (shard, bucket)`.
 */
export interface TimerKind<T extends Timer> {
  /** The table of timers. */
  readonly timers: string;
  /** The table listing, per shard, the buckets that may hold timers. */
  readonly entries: string;
  readonly idColumn: string;
  readonly buckets: Buckets;
  /** Further columns of a timer row, written from `values` and read back by `fromRow`. */
  readonly columns: readonly string[];
  values(t: T): readonly unknown[];
  fromRow(timer: Timer, row: Record<string, unknown>): T;
  /** A boolean column marking the timers `TimerEngine.marked` reads on their own (a delivering request's lease). */
  readonly marker?: string;
  /** What these timers are called in errors ("schedule timers"). */
  readonly noun: string;
}

/** Starts work no caller waits for; its failure is dropped, as every timer and bucket entry is only a hint. */
export type Background = (task: () => Promise<unknown>) => void;

/**
 * How long after its end an empty bucket's entry is kept (by the clock of the scan that finds it empty). Timers
 * are seldom written into the past, so a bucket this old stays empty; one written into it anyway lists the bucket
 * again (see `TimerTable.statements`, `SWEEP_MARGIN_US`).
 */
export const EMPTY_BUCKET_AGE_MS = 10 * 60_000;

/**
 * How far before a scan a deletion it decides on (a stale timer, an empty bucket's entry) is dated. A scan cannot
 * tell a stale timer from a fresh one whose request or schedule is still being written, nor an empty bucket from
 * one a timer is being written into: a write issued within this time before the scan, even one it could not see
 * yet, has a later stamp and survives the deletion. It covers the driver's timeouts and clock differences.
 */
export const SWEEP_MARGIN_US = 60_000_000;

/**
 * Write timestamps (microseconds) of every timer row and bucket entry, inserts and deletions alike, from the
 * store's clock and never repeating in this process. A deletion dated when the operation that decided it began
 * shadows only rows written before that, never the same timer written again by a later change, whichever lands
 * first. Only this adapter writes these tables, so the stamps compare among themselves whatever the clock shows.
 */
export class TimerStamps {
  private last = 0;

  constructor(private readonly clock: Pick<Clock, 'now'>) {}

  next(): number {
    this.last = Math.max(this.clock.now() * 1000, this.last + 1);
    return this.last;
  }
}
