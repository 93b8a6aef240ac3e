import type { Clock } from '../../../domain/clock.js';
import type { HeldEpoch, ShardEpochs } from '../../../ports/shard-epochs.js';

/**
 * Write timestamps of a shard's owner. Cassandra keeps, of two writes to one cell, the one with the higher
 * timestamp, so an owner's writes carry
 *
 *     2^55 + epoch · 2^42 + µs since the owner took the epoch
 *
 * Every clock-based timestamp (µs since 1970, about 2^50.6 today) is below 2^55 for centuries, so a late insert of
 * a request can never bring an old state back over an owner's change; and every owner of an earlier epoch writes
 * below every later one, so an owner that was paused and wakes up after its shard moved loses each cell it writes.
 *
 * An epoch spans 2^42 µs (about 50.9 days): past that, its timestamps would reach the next epoch's. Shard ownership
 * takes the epoch again after `RETAKE_EPOCH_AFTER_MS`, and a write past the span is refused all the same.
 */
const BASE = 2n ** 55n;
const EPOCH_TICKS = 2n ** 42n;

/** How long one epoch's timestamps last, in milliseconds (2^42 µs, rounded down). */
export const EPOCH_SPAN_MS = Number(EPOCH_TICKS / 1000n);

/** Ownership takes a shard's epoch again once it has held it this long: well inside `EPOCH_SPAN_MS`. */
export const RETAKE_EPOCH_AFTER_MS = 30 * 86_400_000;

/** The owner timestamp `elapsedMicros` after taking `epoch`; null when that lies past the epoch's span. */
export function ownerTimestamp(epoch: number, elapsedMicros: bigint): bigint | null {
  if (!Number.isSafeInteger(epoch) || epoch < 0) throw new RangeError(`Not a shard epoch: ${epoch}.`);
  const elapsed = elapsedMicros < 0n ? 0n : elapsedMicros;
  if (elapsed >= EPOCH_TICKS) return null;
  return BASE + BigInt(epoch) * EPOCH_TICKS + elapsed;
}

/** The epoch an owner timestamp was issued under. */
export function epochOf(timestamp: bigint): number {
  return Number((timestamp - BASE) / EPOCH_TICKS);
}

/**
 * Issues owner timestamps per shard, strictly increasing within each shard (a tie with the last one issued, as two
 * writes in one millisecond of the clock make, gets one more). Per shard, not per process: a shard held under a
 * lower epoch must never be pushed up into the range of a higher epoch that another owner may hold.
 */
export class OwnerTimestamps {
  private readonly last = new Map<number, bigint>();

  constructor(
    private readonly epochs: ShardEpochs,
    private readonly clock: Clock,
  ) {}

  /** The epoch this process holds `shard` under now, to note with what it reads or claims there; null when none. */
  basis(shard: number): number | null {
    return this.epochs.held(shard)?.epoch ?? null;
  }

  /**
   * The next timestamp for a write to `shard` of a change computed from what this process read or claimed under
   * epoch `basis`; null when it does not hold the shard, when someone else took the shard since `basis` (what it
   * read may be stale, and its new epoch would let the stale change win), or when the epoch ran out.
   */
  next(shard: number, basis: number): bigint | null {
    const held = this.heldSince(shard, basis);
    return held === null ? null : this.issue(shard, held);
  }

  /** The epoch `shard` is held under now, if this process has held it without a break since epoch `basis`. */
  heldSince(shard: number, basis: number): HeldEpoch | null {
    const held = this.epochs.held(shard);
    return held === null || basis < held.heldFrom || basis > held.epoch ? null : held;
  }

  private issue(shard: number, held: HeldEpoch): bigint | null {
    const t = ownerTimestamp(held.epoch, BigInt(Math.max(0, this.clock.now() - held.since)) * 1000n);
    if (t === null) return null;
    const previous = this.last.get(shard);
    const issued = previous !== undefined && previous >= t ? previous + 1n : t;
    // Ties carried this far would spill into the next epoch: refuse rather than write there.
    if (epochOf(issued) !== held.epoch) return null;
    this.last.set(shard, issued);
    return issued;
  }
}
