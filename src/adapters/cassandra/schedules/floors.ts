import type { Clock } from '../../../domain/clock.js';
import { bucketStart } from './timers.js';

export interface ScanFloorSettings {
  /**
   * How far before a read a timer written after it may be due: a timer is written when its due time is fixed, and
   * that is nearly always a time still to come (the next occurrence), so only a write slower than this, or a due
   * time already this far past when written (by another process), can land behind a floor.
   */
  readonly lateWriteMs: number;
  /** Every bucket is read from its start at least this often, which finds any timer that landed behind a floor. */
  readonly fullReadEveryMs: number;
}

export const SCAN_FLOORS: ScanFloorSettings = { lateWriteMs: 15_000, fullReadEveryMs: 30_000 };

/** Buckets remembered at most; beyond that, floors no longer in use are dropped. */
const MAX_FLOORS = 4096;

/** The start of a bucket: a read from here sees every timer of it. */
export const FROM_START = Number.MIN_SAFE_INTEGER;

interface Floor {
  /** No timer of the bucket was due before this... */
  readonly clearUntil: number;
  /** ...when a read issued at this time (by the store's clock) looked. */
  readonly seenAt: number;
  /** When the bucket was last read from its start. */
  readonly fullReadAt: number;
}

/**
 * Where the timers of each hour bucket begin, as this process last saw. Every occurrence that fires deletes its
 * timer, so a read from the start of the current hour passes the deletions (tombstones) of all occurrences fired
 * in it so far; a read from the floor passes only those of the last `lateWriteMs`.
 *
 * Timers this process writes lower the floor of their bucket as they are written, so a scan that starts after
 * such a write includes it. Any other timer lands behind a floor only when it was due more than `lateWriteMs`
 * before the read that set the floor (written by another process, or while that read was under way); the read from
 * the start that each bucket gets every `fullReadEveryMs` finds it.
 */
export class ScanFloors {
  private readonly floors = new Map<string, Floor>();

  constructor(
    private readonly clock: Pick<Clock, 'now'>,
    private readonly settings: ScanFloorSettings = SCAN_FLOORS,
  ) {}

  /** The time a read issued now is seen at, for `saw`. */
  now(): number {
    return this.clock.now();
  }

  /** The earliest due time a read of the bucket must include; `FROM_START` for a read from its start. */
  start(shard: number, bucket: number): number {
    const floor = this.floors.get(keyOf(shard, bucket));
    if (floor === undefined || this.clock.now() - floor.fullReadAt >= this.settings.fullReadEveryMs) return FROM_START;
    const from = Math.min(floor.clearUntil, floor.seenAt - this.settings.lateWriteMs);
    return from <= bucketStart(bucket) ? FROM_START : from;
  }

  /**
   * What a read of the bucket issued at `seenAt` from `start` (as `start()` gave it) found: its first timer due at
   * `firstDueAt`, or, when it found none, that no timer is due up to `dueBy`.
   */
  saw(shard: number, bucket: number, start: number, seenAt: number, firstDueAt: number | undefined, dueBy: number): void {
    const key = keyOf(shard, bucket);
    const fullReadAt = start === FROM_START ? seenAt : this.floors.get(key)?.fullReadAt;
    // A read from a floor dropped meanwhile: its start is no longer vouched for.
    if (fullReadAt === undefined) return;
    const clearUntil = firstDueAt ?? Math.min(dueBy + 1, bucketStart(bucket + 1));
    this.floors.set(key, { clearUntil, seenAt, fullReadAt });
    if (this.floors.size > MAX_FLOORS) this.dropStale();
  }

  /** A timer this process is writing: a read of its bucket must include it from now on. */
  wrote(shard: number, bucket: number, dueAt: number): void {
    const key = keyOf(shard, bucket);
    const floor = this.floors.get(key);
    if (floor !== undefined && dueAt < floor.clearUntil) this.floors.set(key, { ...floor, clearUntil: dueAt });
  }

  forget(shard: number, bucket: number): void {
    this.floors.delete(keyOf(shard, bucket));
  }

  private dropStale(): void {
    const now = this.clock.now();
    for (const [key, floor] of this.floors) {
      if (now - floor.fullReadAt >= this.settings.fullReadEveryMs) this.floors.delete(key);
    }
    // All in use: start over from full reads.
    if (this.floors.size > MAX_FLOORS) this.floors.clear();
  }
}

function keyOf(shard: number, bucket: number): string {
  return `${shard}/${bucket}`;
}
