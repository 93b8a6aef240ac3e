import { describe, expect, it } from 'vitest';
import type { WaitingFor } from '../../../src/domain/flow/budgets.js';
import { settleAttempt } from '../../../src/domain/request-lifecycle/index.js';
import { PROJECT_A, T0, aRequest, claimOf, useBackend, type BackendFactory } from './harness.js';

const KEYS = ['customer:42', 'vendor.acme_eu-1'];
const HELD: WaitingFor = { kind: 'flow_key', name: 'vendor.acme_eu-1', reason: 'rate', since: T0 + 10 };

/**
 * A request's flow keys and the budget holding it back (`waitingFor`), through every path a request takes in and out
 * of the store. Holds for a backend that stores its claims at once and for one that holds them a while.
 */
export function describeRequestFlowContract(makeBackend: BackendFactory): void {
  describe('RequestStore: flow keys and waiting for', () => {
    const backend = useBackend(makeBackend);
    const store = () => backend().requests;

    it('keeps flow keys and waitingFor exactly through insert, get and list', async () => {
      const keyed = aRequest({ flowKeys: KEYS, waitingFor: { kind: 'queue', name: 'default', reason: 'paused', since: T0 } });
      const plain = aRequest({ flowKeys: [], waitingFor: null });
      await store().insertMany([keyed]);
      await store().insertMany([plain]);

      expect(await store().get(PROJECT_A, keyed.id)).toStrictEqual(keyed);
      expect(await store().get(PROJECT_A, plain.id)).toStrictEqual(plain);
      expect(await store().list({ projectId: PROJECT_A, terminalCutoff: 0, limit: 10 })).toStrictEqual([plain, keyed]);
    });

    it('hands a claim its flow keys, stores waitingFor on hand-back, and clears it with the attempt', async () => {
      const r = aRequest({ flowKeys: KEYS });
      await store().insertMany([r]);
      const first = await claimOf(store(), r.id, T0);
      expect(first.request).toMatchObject({ flowKeys: KEYS, waitingFor: null });
      expect(first.sent().request.flowKeys).toEqual(KEYS);

      await store().handBack(first, T0 + 10, T0 + 1_000, HELD);
      expect(await store().get(PROJECT_A, r.id)).toMatchObject({ status: 'queued', dueAt: T0 + 1_000, flowKeys: KEYS, waitingFor: HELD });

      const second = await claimOf(store(), r.id, T0 + 1_000);
      expect(second.request).toMatchObject({ status: 'delivering', flowKeys: KEYS, waitingFor: HELD });
      const decision = { attemptStatus: 'succeeded', responseStatusCode: 200, errorMessage: null, retry: null, requestStatus: 'succeeded', finalReason: null, response: null } as const;
      const settlement = settleAttempt(second.request, 1, decision, { startedAt: T0 + 1_000, durationMs: 5, completedAt: T0 + 1_005 });
      expect(settlement.change.set.waitingFor).toBeNull();
      await store().recordAttempt(second.sent(), settlement);

      const done = await store().get(PROJECT_A, r.id);
      expect(done).toMatchObject({ status: 'succeeded', flowKeys: KEYS, waitingFor: null });
      const [listed] = await store().list({ projectId: PROJECT_A, terminalCutoff: 0, limit: 10 });
      expect(listed).toStrictEqual(done);
    });

    it('clears waitingFor when a request is handed back for no budget, and keeps a new one in its place', async () => {
      const r = aRequest({ flowKeys: ['k'] });
      await store().insertMany([r]);
      await store().handBack(await claimOf(store(), r.id, T0), T0 + 1, T0 + 100, HELD);
      await store().handBack(await claimOf(store(), r.id, T0 + 100), T0 + 101, T0 + 200);
      expect(await store().get(PROJECT_A, r.id)).toMatchObject({ status: 'queued', waitingFor: null });

      const paused: WaitingFor = { kind: 'queue', name: 'default', reason: 'paused', since: T0 + 201 };
      await store().handBack(await claimOf(store(), r.id, T0 + 200), T0 + 201, T0 + 300, paused);
      await store().handBack(await claimOf(store(), r.id, T0 + 300), T0 + 301, T0 + 400, { ...paused, reason: 'concurrency' });
      expect(await store().get(PROJECT_A, r.id)).toMatchObject({ flowKeys: ['k'], waitingFor: { ...paused, reason: 'concurrency' } });
    });
  });
}
