import type { Clock } from '../../../domain/clock.js';
import { FIRST_POSITION, type Buckets, type TimerPosition } from './timer.js';

export interface TimerFloorSettings {
  /**
   * Longest time from fixing a timer's due time to its row landing, clock differences between processes
   * included: a timer written by another process is never assumed to have landed before a floor older than this.
   */
  readonly lateWriteMs: number;
  /** Every bucket is read from its start at least this often, which finds a timer that landed later than that. */
  readonly fullReadEveryMs: number;
}

/**
 * A due time is fixed moments before its timer is written (an accepted request is written within the driver's
 * timeout, a change within the Cassandra write timeout, and a schedule's next occurrence is nearly always still to
 * come), so 15 s leaves room for slow writes and clocks that differ by seconds. A timer that lands later still is
 * found within 30 s.
 */
export const TIMER_FLOORS: TimerFloorSettings = { lateWriteMs: 15_000, fullReadEveryMs: 30_000 };

/** Buckets remembered at most; beyond that, floors no longer in use are dropped. */
const MAX_FLOORS = 4096;

interface Floor {
  /** No timer of the bucket was due before this... */
  readonly dueAt: number;
  /** ...when a read issued at this time looked. */
  readonly seenAt: number;
  /** When the bucket was last read from its start. */
  readonly fullReadAt: number;
}

/**
 * Where the timers of each bucket begin, as this process last saw. Timers are taken in due order and deleted when
 * done, so a read from the start of a bucket passes the deletions (tombstones) of every timer done in it so far:
 * thousands per read at a few dozen deliveries per second per shard, and Cassandra fails a read past 100,000. A
 * read that starts at the floor passes only the deletions of the last `lateWriteMs`.
 *
 * A floor is a fact about one moment: no timer before it was there when a read looked. Timers this process writes
 * lower the floor of their bucket once written (`wrote`), so its next read includes them. Any other timer lands
 * behind a floor only if its due time was fixed more than `lateWriteMs` before the read that set the floor; the read
 * from the start that every bucket gets each `fullReadEveryMs` finds such a timer.
 */
export class TimerFloors {
  private readonly floors = new Map<string, Floor>();

  constructor(
    private readonly clock: Pick<Clock, 'now'>,
    private readonly buckets: Buckets,
    private readonly settings: TimerFloorSettings = TIMER_FLOORS,
  ) {}

  /** The time a read issued now is seen at, for `saw`. */
  now(): number {
    return this.clock.now();
  }

  /** Where a read of the bucket may start: `FIRST_POSITION` (its start), or the first place a timer can be. */
  start(shard: number, bucket: number): TimerPosition {
    const from = this.from(shard, bucket);
    return from <= this.buckets.start(bucket) ? FIRST_POSITION : { dueAt: from, id: '' };
  }

  /** Whether the bucket is known to hold no timer. */
  empty(shard: number, bucket: number): boolean {
    return this.from(shard, bucket) >= this.buckets.start(bucket + 1);
  }

  /**
   * What a read of the bucket issued at `seenAt`, from `start` as given by `start()`, found: its first timer, due
   * at `firstDueAt`, or, when it found none, that no timer is due up to `dueBy`.
   */
  saw(shard: number, bucket: number, start: TimerPosition, seenAt: number, firstDueAt: number | undefined, dueBy: number): void {
    const key = keyOf(shard, bucket);
    const fullReadAt = start === FIRST_POSITION ? seenAt : this.floors.get(key)?.fullReadAt;
    // A read from a floor dropped meanwhile: its start may no longer be vouched for.
    if (fullReadAt === undefined) return;
    const dueAt = firstDueAt ?? Math.min(dueBy + 1, this.buckets.start(bucket + 1));
    this.floors.set(key, { dueAt, seenAt, fullReadAt });
    if (this.floors.size > MAX_FLOORS) this.dropStale();
  }

  /** A timer this process has written: reads of its bucket include it from now on. */
  wrote(shard: number, dueAt: number): void {
    const key = keyOf(shard, this.buckets.of(dueAt));
    const floor = this.floors.get(key);
    if (floor !== undefined && dueAt < floor.dueAt) this.floors.set(key, { ...floor, dueAt });
  }

  forget(shard: number, bucket: number): void {
    this.floors.delete(keyOf(shard, bucket));
  }

  private from(shard: number, bucket: number): number {
    const floor = this.floors.get(keyOf(shard, bucket));
    if (floor === undefined || this.clock.now() - floor.fullReadAt >= this.settings.fullReadEveryMs) return Number.MIN_SAFE_INTEGER;
    return Math.min(floor.dueAt, floor.seenAt - this.settings.lateWriteMs);
  }

  private dropStale(): void {
    const now = this.clock.now();
    for (const [key, floor] of this.floors) {
      if (now - floor.fullReadAt >= this.settings.fullReadEveryMs) this.floors.delete(key);
    }
    // All in use (more buckets read within `fullReadEveryMs` than the bound): start over from full reads.
    if (this.floors.size > MAX_FLOORS) this.floors.clear();
  }
}

function keyOf(shard: number, bucket: number): string {
  return `${shard}/${bucket}`;
}
