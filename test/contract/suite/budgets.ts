import { describe, expect, it } from 'vitest';
import { NO_LIMITS, type BudgetConfig, type BudgetLimits } from '../../../src/domain/flow/budgets.js';
import { PROJECT_A, PROJECT_B, T0, useBackend, type BackendFactory } from './harness.js';

const LIMITED: BudgetLimits = { rate: { limit: 10, periodMs: 1_000, burst: 15 }, concurrency: 5, adaptive: false };

/** The budget a put of `limits` at `at` leaves, on a budget not paused. */
function configured(name: string, limits: BudgetLimits, at: number, overrides: Partial<BudgetConfig> = {}): BudgetConfig {
  return { projectId: PROJECT_A, kind: 'queue', name, ...limits, paused: false, updatedAt: at, ...overrides };
}

/** Flow-control budgets of queues and flow keys: BudgetStore. */
export function describeBudgetStoreContract(makeBackend: BackendFactory): void {
  describe('BudgetStore', () => {
    const backend = useBackend(makeBackend);
    const store = () => backend().budgets;

    it('answers a budget as put, by project, kind and name, and null for one never stored', async () => {
      expect(await store().get(PROJECT_A, 'queue', 'billing')).toBeNull();
      const put = await store().putLimits(PROJECT_A, 'queue', 'billing', LIMITED, T0);
      expect(put).toStrictEqual(configured('billing', LIMITED, T0));
      expect(await store().get(PROJECT_A, 'queue', 'billing')).toStrictEqual(put);

      expect(await store().get(PROJECT_B, 'queue', 'billing')).toBeNull();
      expect(await store().get(PROJECT_A, 'flow_key', 'billing')).toBeNull();
      const key = await store().putLimits(PROJECT_A, 'flow_key', 'customer:42', { rate: null, concurrency: 1, adaptive: true }, T0 + 1);
      expect(key).toStrictEqual({ ...configured('customer:42', { rate: null, concurrency: 1, adaptive: true }, T0 + 1), kind: 'flow_key' });
    });

    it('replaces the limits whole and keeps the pause; pausing keeps the limits', async () => {
      await store().putLimits(PROJECT_A, 'queue', 'q', LIMITED, T0);
      expect(await store().setPaused(PROJECT_A, 'queue', 'q', true, T0 + 1)).toStrictEqual(configured('q', LIMITED, T0 + 1, { paused: true }));

      const fewer: BudgetLimits = { rate: null, concurrency: 3, adaptive: true };
      expect(await store().putLimits(PROJECT_A, 'queue', 'q', fewer, T0 + 2)).toStrictEqual(configured('q', fewer, T0 + 2, { paused: true }));
      expect(await store().putLimits(PROJECT_A, 'queue', 'q', NO_LIMITS, T0 + 3)).toStrictEqual(configured('q', NO_LIMITS, T0 + 3, { paused: true }));
      expect(await store().setPaused(PROJECT_A, 'queue', 'q', false, T0 + 4)).toStrictEqual(configured('q', NO_LIMITS, T0 + 4));
      expect(await store().get(PROJECT_A, 'queue', 'q')).toStrictEqual(configured('q', NO_LIMITS, T0 + 4));
    });

    it('creates a budget without limits when one never stored is paused or resumed', async () => {
      expect(await store().setPaused(PROJECT_A, 'flow_key', 'k1', true, T0)).toStrictEqual({ ...configured('k1', NO_LIMITS, T0, { paused: true }), kind: 'flow_key' });
      expect(await store().setPaused(PROJECT_A, 'flow_key', 'k2', false, T0)).toStrictEqual({ ...configured('k2', NO_LIMITS, T0), kind: 'flow_key' });
    });

    it('keeps both a put and a pause made at the same time', async () => {
      await Promise.all([store().putLimits(PROJECT_A, 'queue', 'both', LIMITED, T0), store().setPaused(PROJECT_A, 'queue', 'both', true, T0)]);
      expect(await store().get(PROJECT_A, 'queue', 'both')).toStrictEqual(configured('both', LIMITED, T0, { paused: true }));
    });

    it('lists a project’s budgets of one kind in name order, a page at a time', async () => {
      for (const [i, name] of ['delta', 'alpha', 'echo', 'charlie', 'bravo'].entries()) {
        await store().putLimits(PROJECT_A, 'queue', name, LIMITED, T0 + i);
      }
      await store().setPaused(PROJECT_A, 'flow_key', 'alpha-key', true, T0);
      await store().setPaused(PROJECT_B, 'queue', 'aardvark', true, T0);

      const first = await store().list(PROJECT_A, 'queue', null, 2);
      expect(first.budgets.map((b) => b.name)).toEqual(['alpha', 'bravo']);
      expect(first.budgets[0]).toStrictEqual(configured('alpha', LIMITED, T0 + 1));
      expect(first.nextAfter).toBe('bravo');
      const second = await store().list(PROJECT_A, 'queue', first.nextAfter, 2);
      expect(second).toStrictEqual({ budgets: [expect.objectContaining({ name: 'charlie' }), expect.objectContaining({ name: 'delta' })], nextAfter: 'delta' });
      expect(await store().list(PROJECT_A, 'queue', 'delta', 2)).toStrictEqual({ budgets: [configured('echo', LIMITED, T0 + 2)], nextAfter: null });
      // A page that ends exactly with the last budget says so.
      expect((await store().list(PROJECT_A, 'queue', 'charlie', 2)).nextAfter).toBeNull();
      expect(await store().list(PROJECT_A, 'queue', 'echo', 2)).toStrictEqual({ budgets: [], nextAfter: null });
      expect(await store().list(PROJECT_A, 'queue', null, 0)).toStrictEqual({ budgets: [], nextAfter: null });
      expect((await store().list(PROJECT_A, 'flow_key', null, 10)).budgets.map((b) => b.name)).toEqual(['alpha-key']);
      expect((await store().list(PROJECT_B, 'queue', null, 10)).budgets.map((b) => b.name)).toEqual(['aardvark']);
    });

    it('records queues used once, without limits, and never changes a budget stored before', async () => {
      await store().putLimits(PROJECT_A, 'queue', 'configured', LIMITED, T0);
      await store().setPaused(PROJECT_A, 'queue', 'paused', true, T0);
      await store().noteQueuesUsed(PROJECT_A, ['configured', 'paused', 'used'], T0 + 10);
      await store().noteQueuesUsed(PROJECT_A, ['used', 'used-later'], T0 + 20);
      await store().noteQueuesUsed(PROJECT_A, [], T0 + 30);

      expect(await store().get(PROJECT_A, 'queue', 'configured')).toStrictEqual(configured('configured', LIMITED, T0));
      expect(await store().get(PROJECT_A, 'queue', 'paused')).toStrictEqual(configured('paused', NO_LIMITS, T0, { paused: true }));
      expect(await store().get(PROJECT_A, 'queue', 'used')).toStrictEqual(configured('used', NO_LIMITS, T0 + 10, { updatedAt: null }));
      expect((await store().list(PROJECT_A, 'queue', null, 10)).budgets.map((b) => b.name)).toEqual(['configured', 'paused', 'used', 'used-later']);
      expect(await store().get(PROJECT_A, 'flow_key', 'used')).toBeNull();
      expect(await store().get(PROJECT_B, 'queue', 'used')).toBeNull();

      // Configured later, a queue used is a budget like any other.
      expect(await store().setPaused(PROJECT_A, 'queue', 'used', true, T0 + 40)).toStrictEqual(configured('used', NO_LIMITS, T0 + 40, { paused: true }));
    });

    it('answers the budgets changed since a time, of every project, and never those only used', async () => {
      await store().putLimits(PROJECT_A, 'queue', 'early', LIMITED, T0);
      await store().putLimits(PROJECT_A, 'queue', 'late', LIMITED, T0 + 2_000);
      await store().setPaused(PROJECT_B, 'flow_key', 'paused-key', true, T0 + 3_000);
      await store().noteQueuesUsed(PROJECT_A, ['used', 'early'], T0 + 4_000);

      const names = (budgets: readonly BudgetConfig[]) => budgets.map((b) => `${b.projectId}/${b.kind}/${b.name}`).sort();
      expect(names(await store().changedSince(0))).toEqual([`${PROJECT_A}/queue/early`, `${PROJECT_A}/queue/late`, `${PROJECT_B}/flow_key/paused-key`]);
      expect(names(await store().changedSince(T0 + 2_000))).toEqual([`${PROJECT_A}/queue/late`, `${PROJECT_B}/flow_key/paused-key`]);
      expect(await store().changedSince(T0 + 3_001)).toEqual([]);

      // A change answers the budget as it now is; a use of it changes nothing.
      await store().setPaused(PROJECT_A, 'queue', 'early', true, T0 + 5_000);
      expect(await store().changedSince(T0 + 4_500)).toStrictEqual([configured('early', LIMITED, T0 + 5_000, { paused: true })]);
    });
  });
}
