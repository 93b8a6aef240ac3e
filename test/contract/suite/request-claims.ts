import { describe, expect, it } from 'vitest';
import { VersionConflict } from '../../../src/ports/requests.js';
import { PROJECT_A, PROJECT_B, T0, aRequest, anAttempt, claimsStored, settled, useBackend, type BackendFactory } from './harness.js';

const SECOND = 1_000;
const LEASE = 90 * SECOND;

/**
 * How delivery workers take due requests: RequestStore.claimDue, nextDueAt and releaseLeases. Holds for a backend
 * that stores its claims at once and for one that holds them in the claiming process a while.
 */
export function describeRequestClaimContract(makeBackend: BackendFactory): void {
  describe('RequestStore: claiming due work', () => {
    const backend = useBackend(makeBackend);
    const store = () => backend().requests;
    const now = T0 + 60 * SECOND;

    it('claims due queued and scheduled requests of every project, oldest due first, up to the limit', async () => {
      const due3 = aRequest({ status: 'queued', dueAt: now - 3 * SECOND });
      const due1 = aRequest({ status: 'scheduled', scheduledAt: now - SECOND, dueAt: now - SECOND, projectId: PROJECT_B });
      const dueNow = aRequest({ status: 'queued', dueAt: now });
      const due2 = aRequest({ status: 'queued', dueAt: now - 2 * SECOND });
      const later = aRequest({ status: 'scheduled', dueAt: now + 1 });
      const done = aRequest({ status: 'succeeded', dueAt: null });
      const cancelled = aRequest({ status: 'cancelled', dueAt: now - 10 * SECOND });
      await store().insertMany([due3, due1, dueNow, due2, later, done, cancelled]);

      const first = await store().claimDue(now, 3, now + LEASE);
      expect(first.map((c) => c.request.id)).toEqual([due3.id, due2.id, due1.id]);
      const second = await store().claimDue(now, 3, now + LEASE);
      expect(second.map((c) => c.request.id)).toEqual([dueNow.id]);
      expect(await store().claimDue(now, 3, now + LEASE)).toEqual([]);

      expect(await store().get(PROJECT_A, later.id)).toMatchObject({ status: 'scheduled', version: 1 });
      expect(await store().get(PROJECT_A, cancelled.id)).toMatchObject({ status: 'cancelled', version: 1 });
    });

    it('hands out each request as claimed: delivering, leased, started, one version later', async () => {
      const fresh = aRequest({ status: 'queued', dueAt: now - SECOND });
      const retried = aRequest({ status: 'queued', dueAt: now - SECOND, startedAt: T0, attemptCount: 1, version: 4 });
      await store().insertMany([fresh, retried]);

      const claimed = await store().claimDue(now, 10, now + LEASE);
      const leased = { status: 'delivering', dueAt: now + LEASE, updatedAt: now };
      expect(claimed.map((c) => c.request)).toStrictEqual([
        { ...fresh, ...leased, startedAt: now, version: 2 },
        { ...retried, ...leased, startedAt: T0, version: 5 },
      ]);
      // Stored as claimed, or (held in the claiming process) not yet: as it was before the claim.
      expect([claimed[0]!.request, fresh]).toContainEqual(await store().get(PROJECT_A, fresh.id));
      await claimsStored(store(), claimed);
      expect(await store().get(PROJECT_A, fresh.id)).toStrictEqual(claimed[0]!.request);
    });

    it('never hands the same request to two concurrent claimers', async () => {
      const due = Array.from({ length: 60 }, (_, i) => aRequest({ dueAt: now - i }));
      await store().insertMany(due);

      const batches = await Promise.all(Array.from({ length: 12 }, () => store().claimDue(now, 7, now + LEASE)));
      const claimed = batches.flat().map((c) => c.request.id);
      expect(new Set(claimed).size).toBe(claimed.length);
      expect(claimed.sort()).toEqual(due.map((r) => r.id).sort());
      for (const batch of batches) expect(batch.length).toBeLessThanOrEqual(7);
    });

    it('claims again a request whose lease ran out, fencing off the worker that held it', async () => {
      await store().insertMany([aRequest({ dueAt: now })]);
      const [held] = await store().claimDue(now, 1, now + LEASE);
      // A lease runs out only once stored; a claim held in the claiming process is stored well before that.
      await claimsStored(store(), [held!]);

      expect(await store().claimDue(now + LEASE - 1, 1, now + 2 * LEASE)).toEqual([]);
      const [reclaimed] = await store().claimDue(now + LEASE, 1, now + 2 * LEASE);
      const id = held!.request.id;
      expect(reclaimed?.request).toMatchObject({ id, status: 'delivering', dueAt: now + 2 * LEASE, version: held!.request.version + 1 });

      await expect(store().recordAttempt(held!, settled(anAttempt(id, 1), { status: 'failed' }))).rejects.toBeInstanceOf(VersionConflict);
      const done = await store().recordAttempt(reclaimed!, settled(anAttempt(id, 1, { status: 'succeeded' }), { status: 'succeeded', dueAt: null, attemptCount: 1 }));
      expect(done).toStrictEqual({ status: 'succeeded', dueAt: null, version: reclaimed!.request.version + 1 });
      expect(await store().claimDue(now + 10 * LEASE, 10, now + 11 * LEASE)).toEqual([]);
    });

    it('reports the earliest due time among claimable requests, expired leases included', async () => {
      expect(await store().nextDueAt()).toBeNull();
      await store().insertMany([
        aRequest({ status: 'succeeded', dueAt: null }),
        aRequest({ status: 'cancelled', dueAt: now - 50 * SECOND }),
        aRequest({ status: 'scheduled', dueAt: now + 5 * SECOND }),
      ]);
      expect(await store().nextDueAt()).toBe(now + 5 * SECOND);
      await store().insertMany([aRequest({ status: 'delivering', dueAt: now - 7 * SECOND }), aRequest({ dueAt: now })]);
      expect(await store().nextDueAt()).toBe(now - 7 * SECOND);
    });

    it('releases every lease at once, fencing off the workers that held them', async () => {
      const waiting = aRequest({ status: 'scheduled', dueAt: now + LEASE });
      await store().insertMany([aRequest({ dueAt: now }), aRequest({ dueAt: now }), waiting]);
      const held = await store().claimDue(now, 10, now + LEASE);
      expect(held).toHaveLength(2);
      // Only stored leases are there to release: a claim held in the claiming process dies with it, due as before.
      await claimsStored(store(), held);

      expect(await store().releaseLeases(now + 1)).toBe(2);
      for (const h of held) {
        expect(await store().get(PROJECT_A, h.request.id)).toMatchObject({ status: 'delivering', dueAt: now + 1, version: h.request.version + 1 });
        await expect(store().handBack(h, now + 1, now + 2)).rejects.toBeInstanceOf(VersionConflict);
      }
      expect(await store().get(PROJECT_A, waiting.id)).toStrictEqual(waiting);
      const ids = (claims: readonly { request: { id: string } }[]) => claims.map((c) => c.request.id).sort();
      expect(ids(await store().claimDue(now + 1, 10, now + LEASE))).toEqual(ids(held));
      expect(await store().releaseLeases(now + 2)).toBe(2);
      await store().claimDue(now + 2, 10, now + LEASE);
    });

    it('claims nothing for a limit of zero', async () => {
      await store().insertMany([aRequest({ dueAt: now })]);
      expect(await store().claimDue(now, 0, now + LEASE)).toEqual([]);
    });
  });
}
