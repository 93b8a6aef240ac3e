import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { ClaimChanges } from '../../src/adapters/cassandra/requests/claim-changes.js';
import { CassandraClaim, ClaimsOut } from '../../src/adapters/cassandra/requests/claim.js';
import type { RequestChanges } from '../../src/adapters/cassandra/requests/changes.js';
import type { RequestRows } from '../../src/adapters/cassandra/requests/rows.js';
import { InFlight } from '../../src/adapters/cassandra/shared/concurrency.js';
import type { StoredRequest } from '../../src/domain/request.js';
import { applied, claimed, handedBack, type Transition } from '../../src/domain/request-lifecycle/index.js';
import { VersionConflict } from '../../src/ports/requests.js';
import { FakeClock } from '../support/fake-clock.js';
import { aRequest } from '../contract/suite/harness.js';

/** Hand-backs of requests never attempted. */
const NEVER_ATTEMPTED = { attemptCount: 0 };

const T = Date.UTC(2030, 0, 1);
const STORE_AFTER_MS = 1_000;
const LEASE_MS = 60_000;

interface Apply {
  readonly current: StoredRequest;
  readonly change: Transition;
  readonly during: string;
  readonly extras: { version?: number; storedAs?: unknown };
}

/** Claim changes over stores that do what the test says: `applies` answers each write (a request, null, or a throw). */
function setUp(applies: Array<'write' | 'moved' | 'unreachable'> = [], read: StoredRequest | null = null) {
  const clock = new FakeClock(T);
  const out: ClaimsOut = new ClaimsOut(clock, (claim) => void claims.storeHeld(claim));
  const writes: Apply[] = [];
  const changes = {
    basis: () => 1,
    apply: async (current: StoredRequest, change: Transition, _asOf: number, _basis: number, during: string, extras: Apply['extras'] = {}) => {
      writes.push({ current, change, during, extras });
      await nextTurn();
      const answer = applies.shift() ?? 'write';
      if (answer === 'unreachable') throw new Error('storage unreachable');
      return answer === 'moved' ? null : applied(current, change, extras.version ?? current.version + 1);
    },
  } as unknown as RequestChanges;
  const rows = { request: async () => read } as unknown as RequestRows;
  const claims = new ClaimChanges(rows, changes, out, () => 0, new InFlight('test'), clock, STORE_AFTER_MS, 4);
  return { clock, out, writes, claims };
}

/** A claim of a request queued due at `T`, claimed at `T` (held, unless `stored`). */
function aClaim(stored = false): { claim: CassandraClaim; before: StoredRequest } {
  const before = aRequest({ status: 'queued', dueAt: T, version: 4 });
  const request = applied(before, claimed(T, T + LEASE_MS));
  return { claim: new CassandraClaim(request, 1, stored ? null : { status: before.status, dueAt: before.dueAt }, !stored), before };
}

describe('claims of the Cassandra request store', () => {
  it('writes a held claim with its change as one write, on the request as stored; the claim is then spent', async () => {
    const { out, writes, claims, clock } = setUp();
    const { claim } = aClaim();
    claims.hold(claim);
    expect([out.inHand(claim.request.id), out.heldCount]).toEqual([true, 1]);

    const next = await claims.change(claim, handedBack(NEVER_ATTEMPTED, T + 1, T + 1_000), 'handing back');
    expect(next).toMatchObject({ status: 'queued', dueAt: T + 1_000, startedAt: null, version: 6 });
    expect(writes).toHaveLength(1);
    expect(writes[0]!.extras.storedAs).toEqual({ status: 'queued', dueAt: T });
    expect([out.inHand(claim.request.id), out.heldCount]).toEqual([false, 0]);
    await expect(claims.change(claim, handedBack(NEVER_ATTEMPTED, T + 2, T + 2_000), 'again')).rejects.toBeInstanceOf(VersionConflict);
    clock.advance(10 * STORE_AFTER_MS);
    expect(writes).toHaveLength(1);
  });

  it('stores a claim held too long on its own; its change then starts from the stored claim', async () => {
    const { out, writes, claims, clock } = setUp();
    const { claim } = aClaim();
    claims.hold(claim);
    clock.advance(STORE_AFTER_MS - 1);
    expect(writes).toHaveLength(0);
    clock.advance(1);
    await expect.poll(() => out.heldCount).toBe(0);
    expect(writes[0]).toMatchObject({ during: 'storing a claim', extras: { version: claim.request.version, storedAs: { status: 'queued', dueAt: T } } });
    expect(out.inHand(claim.request.id)).toBe(false);

    await claims.change(claim, handedBack(NEVER_ATTEMPTED, T + 1, T + 1_000), 'handing back');
    expect(writes[1]!.extras.storedAs).toBeNull();
  });

  it('loses a claim whose storing found the shard gone, so that its change fails', async () => {
    const { out, claims, clock } = setUp(['moved']);
    const { claim } = aClaim();
    claims.hold(claim);
    clock.advance(STORE_AFTER_MS);
    await expect.poll(() => out.heldCount).toBe(0);
    await expect(claims.change(claim, handedBack(NEVER_ATTEMPTED, T + 1, T + 1_000), 'handing back')).rejects.toBeInstanceOf(VersionConflict);
  });

  it('keeps a claim held while storing it fails, tries again later, and drops it once its lease is over', async () => {
    const { out, writes, claims, clock } = setUp(Array.from({ length: 100 }, () => 'unreachable' as const));
    const { claim } = aClaim();
    claims.hold(claim);
    clock.advance(STORE_AFTER_MS);
    await expect.poll(() => writes.length).toBe(1);
    await nextTurn();
    expect([out.inHand(claim.request.id), out.heldCount]).toEqual([true, 1]);
    for (let t = 0; t < LEASE_MS / STORE_AFTER_MS && out.heldCount > 0; t++) {
      clock.advance(STORE_AFTER_MS);
      await nextTurn();
      await nextTurn();
    }
    expect(out.heldCount).toBe(0);
    expect(writes.length).toBeGreaterThan(10);
    await expect(claims.change(claim, handedBack(NEVER_ATTEMPTED, T + 1, T + 1_000), 'handing back')).rejects.toBeInstanceOf(VersionConflict);
  });

  it('holds a claim again when its change failed unanswered, so that the change can be tried again', async () => {
    const { out, claims } = setUp(['unreachable']);
    const { claim } = aClaim();
    claims.hold(claim);
    await expect(claims.change(claim, handedBack(NEVER_ATTEMPTED, T + 1, T + 1_000), 'handing back')).rejects.toThrow('unreachable');
    expect([out.inHand(claim.request.id), out.heldCount]).toEqual([true, 1]);
    await expect(claims.change(claim, handedBack(NEVER_ATTEMPTED, T + 1, T + 1_000), 'handing back')).resolves.toMatchObject({ status: 'queued' });
  });

  it('lets one of two changes made through one claim at once win, the other conflicts', async () => {
    const { writes, claims } = setUp();
    const { claim } = aClaim(true);
    const results = await Promise.allSettled([claims.change(claim, handedBack(NEVER_ATTEMPTED, T + 1, T + 1_000), 'a'), claims.change(claim, handedBack(NEVER_ATTEMPTED, T + 1, T + 2_000), 'b')]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(VersionConflict);
    expect(writes).toHaveLength(1);
  });

  it('fails a change through a claim the store fenced off, or one a newer claim of the request replaced', async () => {
    const { out, claims } = setUp();
    const fenced = aClaim(true).claim;
    out.handOut(fenced);
    out.fence(fenced.request.id);
    await expect(claims.change(fenced, handedBack(NEVER_ATTEMPTED, T + 1, T + 1_000), 'a')).rejects.toBeInstanceOf(VersionConflict);

    const { claim: older } = aClaim(true);
    out.handOut(older);
    out.handOut(new CassandraClaim(older.request, 1, null, false));
    await expect(claims.change(older, handedBack(NEVER_ATTEMPTED, T + 1, T + 1_000), 'a')).rejects.toBeInstanceOf(VersionConflict);
  });

  it('reads the request first when a cancel was noticed since a stored claim, and writes the change on it', async () => {
    const { claim } = aClaim(true);
    const read = { ...claim.request, cancelRequestedAt: T + 5 };
    const { out, writes, claims } = setUp([], read);
    out.handOut(claim);
    out.cancelAsked(claim.request.id);
    await claims.change(claim, handedBack(NEVER_ATTEMPTED, T + 10, T + 1_000), 'handing back');
    expect(writes[0]!.current).toBe(read);

    const { claim: moved } = aClaim(true);
    const other = setUp([], { ...moved.request, version: moved.request.version + 1 });
    other.out.handOut(moved);
    other.out.cancelAsked(moved.request.id);
    await expect(other.claims.change(moved, handedBack(NEVER_ATTEMPTED, T + 10, T + 1_000), 'handing back')).rejects.toBeInstanceOf(VersionConflict);
    expect(other.writes).toHaveLength(0);
  });

  it('holds no claim when storing at once, and forgets every held claim on close', () => {
    const none = new ClaimChanges({} as RequestRows, {} as RequestChanges, new ClaimsOut(new FakeClock(T), () => undefined), () => 0, new InFlight('test'), new FakeClock(T), 0, 4);
    expect(none.holding).toBe(false);
    const { out, claims, clock } = setUp();
    expect(claims.holding).toBe(true);
    const { claim } = aClaim();
    claims.hold(claim);
    out.close();
    expect([out.inHand(claim.request.id), out.heldCount, clock.timers]).toEqual([false, 0, 0]);
  });

  it('stores held claims in the order they fall due, with one timer for all of them', async () => {
    const { out, writes, claims, clock } = setUp();
    const [a, b, c] = [aClaim().claim, aClaim().claim, aClaim().claim];
    claims.hold(a);
    clock.advance(100);
    claims.hold(b);
    claims.hold(c);
    expect(clock.timers).toBe(1);
    await claims.change(b, handedBack(NEVER_ATTEMPTED, T + 1, T + 1_000), 'handing back');
    clock.advance(STORE_AFTER_MS - 100);
    await expect.poll(() => writes.map((w) => [w.current.id, w.during])).toEqual([
      [b.request.id, 'handing back'],
      [a.request.id, 'storing a claim'],
    ]);
    clock.advance(100);
    await expect.poll(() => out.heldCount).toBe(0);
    expect(writes.map((w) => w.current.id)).toEqual([b.request.id, a.request.id, c.request.id]);
    expect(clock.timers).toBe(0);
  });
});
