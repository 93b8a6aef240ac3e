import { describe, expect, it } from 'vitest';
import { EPOCH_SPAN_MS, OwnerTimestamps, RETAKE_EPOCH_AFTER_MS, epochOf, ownerTimestamp } from '../../src/adapters/cassandra/ownership/owner-timestamps.js';
import { timestampValue } from '../../src/adapters/cassandra/session.js';
import { systemClock, type Clock } from '../../src/domain/clock.js';
import type { HeldEpoch } from '../../src/ports/shard-epochs.js';
import { FakeClock } from '../support/fake-clock.js';

const DAY_MS = 86_400_000;

function stamps(clock: FakeClock, held: Map<number, HeldEpoch>): OwnerTimestamps {
  return new OwnerTimestamps({ held: (shard) => held.get(shard) ?? null }, clock);
}

describe('owner timestamps', () => {
  it('lie above every clock-based timestamp for centuries', () => {
    const year3000Micros = BigInt(Date.UTC(3000, 0, 1)) * 1000n;
    expect(ownerTimestamp(0, 0n)! > year3000Micros).toBe(true);
    expect(ownerTimestamp(1, 0n)).toBe(2n ** 55n + 2n ** 42n);
  });

  it('order every write of a later epoch above every write of an earlier one', () => {
    const lastOfEpoch3 = ownerTimestamp(3, 2n ** 42n - 1n)!;
    const firstOfEpoch4 = ownerTimestamp(4, 0n)!;
    expect(firstOfEpoch4 > lastOfEpoch3).toBe(true);
    expect(epochOf(lastOfEpoch3)).toBe(3);
    expect(epochOf(firstOfEpoch4)).toBe(4);
    // The largest epochs still fit a signed 64-bit timestamp.
    expect(ownerTimestamp(2 ** 20, 2n ** 42n - 1n)! < 2n ** 63n).toBe(true);
  });

  it('refuse a time past the epoch span, which lasts longer than ownership keeps an epoch', () => {
    expect(ownerTimestamp(5, 2n ** 42n)).toBeNull();
    expect(ownerTimestamp(5, 2n ** 42n - 1n)).not.toBeNull();
    expect(EPOCH_SPAN_MS).toBeGreaterThan(50 * DAY_MS);
    expect(RETAKE_EPOCH_AFTER_MS).toBeLessThan(EPOCH_SPAN_MS - 10 * DAY_MS);
  });

  it('increase strictly within a shard, even within one millisecond of the clock', () => {
    const clock = new FakeClock(1_000_000);
    const s = stamps(clock, new Map([[2, { epoch: 7, since: 1_000_000, heldFrom: 7 }]]));
    const a = s.next(2, 7)!;
    const b = s.next(2, 7)!;
    const c = s.next(2, 7)!;
    expect([b - a, c - b]).toEqual([1n, 1n]);
    clock.advance(5);
    const d = s.next(2, 7)!;
    expect(d).toBe(ownerTimestamp(7, 5_000n));
    expect(d > c).toBe(true);
  });

  it('count from when the epoch was taken, and a clock that steps back does not go below the last one issued', () => {
    let time = 10_000;
    const clock: Clock = { ...systemClock, now: () => time };
    const s = new OwnerTimestamps({ held: () => ({ epoch: 2, since: 4_000, heldFrom: 2 }) }, clock);
    const first = s.next(0, 2)!;
    expect(first).toBe(ownerTimestamp(2, 6_000_000n));
    time = 9_000;
    expect(s.next(0, 2)).toBe(first + 1n);
  });

  it('keep shards apart: ties in one shard never lift another above its epoch', () => {
    const clock = new FakeClock(0);
    const s = stamps(clock, new Map([[0, { epoch: 9, since: 0, heldFrom: 9 }], [1, { epoch: 3, since: 0, heldFrom: 3 }]]));
    for (let i = 0; i < 5; i++) s.next(0, 9);
    expect(epochOf(s.next(1, 3)!)).toBe(3);
    expect(s.next(1, 3)).toBe(ownerTimestamp(3, 1n));
  });

  it('answer null for a shard not held, and for an epoch held past its span', () => {
    const clock = new FakeClock(0);
    const held = new Map([[4, { epoch: 1, since: 0, heldFrom: 1 }]]);
    const s = stamps(clock, held);
    expect(s.next(5, 1)).toBeNull();
    expect(s.next(4, 1)).not.toBeNull();
    clock.advance(EPOCH_SPAN_MS + 1);
    expect(s.next(4, 1)).toBeNull();
    held.set(4, { epoch: 2, since: clock.now(), heldFrom: 2 });
    expect(epochOf(s.next(4, 2)!)).toBe(2);
  });

  it('refuse a change made from what was read under an epoch before someone else took the shard', () => {
    const clock = new FakeClock(0);
    const held = new Map([[0, { epoch: 4, since: 0, heldFrom: 3 }]]);
    const s = stamps(clock, held);
    expect(s.basis(0)).toBe(4);
    expect(s.basis(1)).toBeNull();
    // Epochs 3 and 4 were both this process's: state read under 3 is current.
    expect(epochOf(s.next(0, 3)!)).toBe(4);
    expect(s.next(0, 2)).toBeNull();
    // Lost and taken back: the new epoch must not carry a change read before it over the other owner's writes.
    held.set(0, { epoch: 6, since: 0, heldFrom: 6 });
    expect(s.next(0, 4)).toBeNull();
    expect(epochOf(s.next(0, 6)!)).toBe(6);
  });

  it('bind as a 64-bit integer without losing precision', () => {
    const t = ownerTimestamp(12, 123_456_789n)!;
    expect(timestampValue(t).toString()).toBe(t.toString());
  });
});
