import { describe, expect, it } from 'vitest';
import type { WaitingFor } from '../../../src/domain/flow/budgets.js';
import type { StoredRequest } from '../../../src/domain/request.js';
import { PROJECT_A, T0, aRequest, claimOf, useBackend, type BackendFactory } from './harness.js';

const HOUR = 3_600_000;
const LEASE = 90_000;
const PAUSED: WaitingFor = { kind: 'flow_key', name: 'vendor', reason: 'paused', since: T0 + 10 };

/**
 * Waking the requests a budget held back (`RequestStore.wakeHeld`, the `woken` transition), as the delivering
 * process does when a budget admits again (a resume, say). Holds for a backend that stores its claims at once and
 * for one that holds them a while.
 */
export function describeRequestWakeContract(makeBackend: BackendFactory): void {
  describe('RequestStore: waking held requests', () => {
    const backend = useBackend(makeBackend);
    const store = () => backend().requests;
    const now = T0 + 20;

    it('makes a held request due now, waiting for nothing, so the next claim takes it now', async () => {
      const r = aRequest({ flowKeys: ['vendor'] });
      await store().insertMany([r]);
      await store().handBack(await claimOf(store(), r.id, T0), T0 + 10, T0 + HOUR, PAUSED);
      const held = (await store().get(PROJECT_A, r.id))!;
      expect(held).toMatchObject({ status: 'queued', dueAt: T0 + HOUR, waitingFor: PAUSED });

      expect(await store().wakeHeld([r.id], now)).toBe(1);
      const woken = await store().get(PROJECT_A, r.id);
      expect(woken).toStrictEqual({ ...held, dueAt: now, updatedAt: now, waitingFor: null, version: held.version + 1 });
      // Woken once: it waits for no budget any more.
      expect(await store().wakeHeld([r.id], now)).toBe(0);

      expect(await store().claimDue(now - 1, 10, now + LEASE)).toEqual([]);
      const claim = await claimOf(store(), r.id, now);
      expect(claim.request).toMatchObject({ status: 'delivering', flowKeys: ['vendor'], waitingFor: null, version: held.version + 2 });
    });

    it('leaves alone what no budget holds back: claimed, cancelled, held for nothing, due already, unknown', async () => {
      const [claimed, cancelled, unheld, dueAlready] = [aRequest(), aRequest(), aRequest(), aRequest()];
      await store().insertMany([claimed, cancelled, unheld, dueAlready]);
      const claims = new Map((await store().claimDue(T0, 10, T0 + LEASE)).map((c) => [c.request.id, c]));
      expect(claims.size).toBe(4);
      await store().handBack(claims.get(claimed.id)!, T0 + 1, T0 + 30, PAUSED);
      await store().handBack(claims.get(cancelled.id)!, T0 + 1, T0 + HOUR, PAUSED);
      await store().handBack(claims.get(unheld.id)!, T0 + 1, T0 + HOUR);
      expect(await store().requestCancel(PROJECT_A, cancelled.id, T0 + 2)).toBe(true);
      // Claimed again while a budget still names it: its deliverer has it now.
      const claimedAgain = await claimOf(store(), claimed.id, T0 + 30);
      await store().handBack(claims.get(dueAlready.id)!, T0 + 3, now, PAUSED);

      const ids = [claimed.id, cancelled.id, unheld.id, dueAlready.id];
      const before = await Promise.all(ids.map((id) => store().get(PROJECT_A, id)));
      expect(await store().wakeHeld([...ids, 'req_contract_unknown', claimed.id], now)).toBe(0);
      expect(await Promise.all(ids.map((id) => store().get(PROJECT_A, id)))).toStrictEqual(before);
      expect(before.map((r) => r?.status)).toEqual([expect.stringMatching(/^(queued|delivering)$/), 'cancelled', 'queued', 'queued']);

      // The claim out is untouched by it: its change goes through.
      await store().handBack(claimedAgain, T0 + 31, T0 + HOUR, PAUSED);
      expect(await store().get(PROJECT_A, claimed.id)).toMatchObject({ status: 'queued', dueAt: T0 + HOUR, waitingFor: PAUSED });
    });

    it('wakes many at once, each once, and answers how many it moved', async () => {
      const held = Array.from({ length: 40 }, () => aRequest());
      await store().insertMany(held);
      for (const claim of await store().claimDue(T0, 100, T0 + LEASE)) await store().handBack(claim, T0 + 1, T0 + HOUR, PAUSED);
      const unheld = aRequest({ status: 'scheduled', scheduledAt: T0 + HOUR, dueAt: T0 + HOUR });
      await store().insertMany([unheld]);

      const ids = [...held, unheld].map((r) => r.id);
      expect(await store().wakeHeld([...ids, ...ids.slice(0, 5)], now)).toBe(40);
      const claimedNow = await store().claimDue(now, 100, now + LEASE);
      expect(claimedNow.map((c) => c.request.id).sort()).toEqual(held.map((r) => r.id).sort());
      expect(claimedNow.every((c) => c.request.waitingFor === null)).toBe(true);
      expect(((await store().get(PROJECT_A, unheld.id)) as StoredRequest).dueAt).toBe(T0 + HOUR);
    });
  });
}
