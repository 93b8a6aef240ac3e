import { describe, expect, it } from 'vitest';
import type { AttemptRecord, RequestPatch } from '../../../src/domain/request.js';
import { VersionConflict, type Claim } from '../../../src/ports/requests.js';
import { PROJECT_A, PROJECT_B, T0, aRequest, anAttempt, claimsStored, settled, succeededAt, useBackend, type BackendFactory } from './harness.js';

const SECOND = 1_000;
const LEASE = 90 * SECOND;

/** Cancels asked for by anyone but the deliverer (RequestStore.requestCancel), and how they meet its changes. */
export function describeRequestCancelContract(makeBackend: BackendFactory): void {
  describe('RequestStore: cancels', () => {
    const backend = useBackend(makeBackend);
    const store = () => backend().requests;
    const now = T0 + 60 * SECOND;

    /**
     * Records an attempt's outcome as the delivery engine does: a cancel it finds recorded turns any outcome but a
     * success into `cancelled`, and a version conflict sends it back to the request as it now reads.
     */
    async function record(claim: Claim, attempt: AttemptRecord, outcome: RequestPatch): Promise<void> {
      let current: Claim | null = claim;
      for (let tries = 0; tries < 3 && current !== null; tries++) {
        const cancelled = current.request.cancelRequestedAt !== null && outcome.status !== 'succeeded';
        const patch: RequestPatch = cancelled
          ? { attemptCount: attempt.attemptNumber, updatedAt: attempt.completedAt, status: 'cancelled', cancelledAt: attempt.completedAt, dueAt: null }
          : outcome;
        try {
          await store().recordAttempt(current, settled(attempt, patch));
          return;
        } catch (err) {
          if (!(err instanceof VersionConflict)) throw err;
          current = await store().reread(current);
        }
      }
      throw new Error(`The outcome of ${claim.request.id} could not be recorded.`);
    }

    it('cancels a request with no attempt in flight at once, and only once', async () => {
      const r = aRequest({ status: 'scheduled', scheduledAt: now + SECOND, dueAt: now + SECOND });
      await store().insertMany([r]);

      expect(await store().requestCancel(PROJECT_B, r.id, now)).toBe(false);
      expect(await store().requestCancel(PROJECT_A, r.id, now)).toBe(true);
      expect(await store().requestCancel(PROJECT_A, r.id, now + 1)).toBe(false);
      expect(await store().get(PROJECT_A, r.id)).toMatchObject({ status: 'cancelled', cancelledAt: now, dueAt: null });
      const [listed] = await store().list({ projectId: PROJECT_A, status: 'cancelled', terminalCutoff: 0, limit: 10 });
      expect(listed?.id).toBe(r.id);

      // A backend may still hand it to a claimer, marked; the claimer then ends it without an attempt.
      const claimed = await store().claimDue(now + 2 * SECOND, 10, now + LEASE);
      for (const c of claimed) {
        expect(c.request.cancelRequestedAt).toBe(now);
        await store().cancelClaimed(c, now + 2 * SECOND);
      }
      expect(await store().get(PROJECT_A, r.id)).toMatchObject({ status: 'cancelled', cancelledAt: now, dueAt: null });
      expect(await store().claimDue(now + 3 * SECOND, 10, now + LEASE)).toEqual([]);
      expect(await store().listAttempts(PROJECT_A, r.id)).toEqual([]);
    });

    it('lets an attempt in flight end it: cancelled after a failure or a retry, succeeded after a success', async () => {
      const ok = aRequest({ dueAt: now - 3 });
      const failing = aRequest({ dueAt: now - 2 });
      const retrying = aRequest({ dueAt: now - 1 });
      await store().insertMany([ok, failing, retrying]);
      const claimed = await store().claimDue(now, 10, now + LEASE);
      expect(claimed.map((c) => c.request.id)).toEqual([ok.id, failing.id, retrying.id]);
      // Claims held in the claiming process read as the requests before them (queued), and a cancel ends those at
      // once (see the Cassandra held-claims tests); once stored, they read as delivering.
      await claimsStored(store(), claimed);
      for (const c of claimed) expect(await store().requestCancel(PROJECT_A, c.request.id, now + 1)).toBe(true);
      for (const c of claimed) {
        expect(await store().get(PROJECT_A, c.request.id)).toMatchObject({ status: 'delivering', cancelRequestedAt: now + 1 });
      }

      const at = now + 5;
      await record(claimed[0]!, anAttempt(ok.id, 1, { status: 'succeeded', responseStatusCode: 200 }), succeededAt(at));
      await record(claimed[1]!, anAttempt(failing.id, 1), { status: 'failed', attemptCount: 1, completedAt: at, updatedAt: at, dueAt: null });
      await record(claimed[2]!, anAttempt(retrying.id, 1, { status: 'errored' }), { status: 'queued', attemptCount: 1, updatedAt: at, dueAt: now + 10 * SECOND });

      expect(await store().get(PROJECT_A, ok.id)).toMatchObject({ status: 'succeeded', completedAt: at });
      for (const id of [failing.id, retrying.id]) {
        expect(await store().get(PROJECT_A, id)).toMatchObject({ status: 'cancelled', dueAt: null, attemptCount: 1 });
      }
      for (const c of claimed) expect(await store().listAttempts(PROJECT_A, c.request.id)).toHaveLength(1);
      expect((await store().list({ projectId: PROJECT_A, status: 'cancelled', terminalCutoff: 0, limit: 10 })).map((r) => r.id).sort()).toEqual(
        [failing.id, retrying.id].sort(),
      );
    });

    it('records no cancel of a request that ended', async () => {
      const r = aRequest({ status: 'succeeded', dueAt: null, attemptCount: 1, completedAt: now });
      await store().insertMany([r]);
      expect(await store().requestCancel(PROJECT_A, r.id, now + 1)).toBe(false);
      expect(await store().requestCancel(PROJECT_A, 'req_unknown', now + 1)).toBe(false);
      expect(await store().get(PROJECT_A, r.id)).toStrictEqual(r);
    });

    it('an occurrence withdrawn before its instant (cancelled before it was created) is never listed, whatever the filter; get still finds it', async () => {
      const instant = now + 10 * SECOND;
      const occurrence = (at: number) =>
        aRequest({ source: 'recurring', scheduleId: 'sch_contract_ahead', createdAt: at, updatedAt: at, dueAt: at });
      const [withdrawn, kept] = [occurrence(instant), occurrence(instant + 60 * SECOND)];
      await store().insertMany([withdrawn, kept]);
      expect(await store().requestCancel(PROJECT_A, withdrawn.id, now)).toBe(true);
      expect(await store().get(PROJECT_A, withdrawn.id)).toMatchObject({ status: 'cancelled', cancelledAt: now, createdAt: instant });
      for (const query of [{}, { status: 'cancelled' as const }, { scheduleId: 'sch_contract_ahead' }, { source: 'recurring' as const }, { id: withdrawn.id }]) {
        const listed = await store().list({ projectId: PROJECT_A, terminalCutoff: 0, limit: 10, ...query });
        expect(listed.map((r) => r.id), JSON.stringify(query)).not.toContain(withdrawn.id);
      }
      expect((await store().list({ projectId: PROJECT_A, scheduleId: 'sch_contract_ahead', terminalCutoff: 0, limit: 10 })).map((r) => r.id)).toEqual([kept.id]);
      // When its instant comes a backend may still hand it to a claimer, marked as cancelled: it is never delivered.
      const claimed = await store().claimDue(instant + SECOND, 10, instant + LEASE);
      for (const c of claimed.filter((x) => x.request.id === withdrawn.id)) expect(c.request.cancelRequestedAt).toBe(now);
    });
  });
}
