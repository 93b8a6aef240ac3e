import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HeldClaims, type HeldClaim } from '../../src/adapters/cassandra/requests/held-claims.js';
import { systemClock } from '../../src/domain/clock.js';
import { applied, claimed } from '../../src/domain/request-lifecycle/index.js';
import { aRequest } from '../contract/suite/harness.js';

function aClaim(version = 4): HeldClaim {
  const stored = aRequest({ version });
  const change = claimed(stored.createdAt, stored.createdAt + 60_000);
  return { stored, claimed: applied(stored, change), change, basis: 1 };
}

describe('HeldClaims', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('hands a held claim to the first change at its version only, and skips reads from before that change', async () => {
    const stores: HeldClaim[] = [];
    const held = new HeldClaims(1_000, (c) => Promise.resolve(stores.push(c) > 0), systemClock);
    const c = aClaim();
    held.hold(c);
    expect(held.holds(c.claimed.id)).toBe(true);
    expect(await held.take(c.claimed.id, c.stored.version)).toBeUndefined();
    expect(await held.take(c.claimed.id, c.claimed.version)).toEqual(c);
    expect(await held.take(c.claimed.id, c.claimed.version)).toBeUndefined();
    expect(held.holds(c.claimed.id)).toBe(false);

    expect(held.outdated(c.stored)).toBe(true);
    expect(held.outdated({ ...c.stored, version: c.claimed.version + 1 })).toBe(false);
    held.untake(c.claimed.id);
    expect(held.outdated(c.stored)).toBe(false);

    await vi.advanceTimersByTimeAsync(5_000);
    expect(stores).toEqual([]);
  });

  it('stores a claim held too long; a change then finds the request stored, or the claim lost when the request had moved on', async () => {
    let applies = true;
    const held = new HeldClaims(1_000, () => Promise.resolve(applies), systemClock);
    const kept = aClaim();
    held.hold(kept);
    await vi.advanceTimersByTimeAsync(999);
    expect(held.holds(kept.claimed.id)).toBe(true);
    await vi.advanceTimersByTimeAsync(1);
    expect(await held.take(kept.claimed.id, kept.claimed.version)).toBeUndefined();
    expect(held.outdated(kept.stored)).toBe(true);

    applies = false;
    const moved = aClaim();
    held.hold(moved);
    await vi.advanceTimersByTimeAsync(1_000);
    // Another change stored the very version the claim was handed out at: a change from the claim must fail.
    expect(await held.take(moved.claimed.id, moved.claimed.version)).toBe('lost');
  });

  it('keeps a claim held when storing it failed, for the next change to store', async () => {
    const held = new HeldClaims(1_000, () => Promise.reject(new Error('unreachable')), systemClock);
    const c = aClaim();
    held.hold(c);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await held.take(c.claimed.id, c.claimed.version)).toEqual(c);
  });

  it('holds nothing when storing at once, and forgets every claim on close', () => {
    expect(new HeldClaims(0, () => Promise.resolve(true), systemClock).accepting).toBe(false);
    const held = new HeldClaims(1_000, () => Promise.resolve(true), systemClock);
    expect(held.accepting).toBe(true);
    const c = aClaim();
    held.hold(c);
    held.close();
    expect(held.holds(c.claimed.id)).toBe(false);
  });
});
