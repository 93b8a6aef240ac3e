import { describe, expect, it } from 'vitest';
import { DECREASE_GAP_MS, FULL_RATE, MIN_FACTOR, RECOVERY_MS, factorAt, pushedBack, succeeded } from '../../src/domain/flow/adaptive-rate.js';
import { admit, type NamedBudget } from '../../src/domain/flow/admission.js';
import { Budget } from '../../src/domain/flow/budget.js';
import { IDLE_STATE, stateUnder, sumStates, type BudgetConfig, type BudgetLimits, type RateLimit } from '../../src/domain/flow/budgets.js';
import type { BudgetStore } from '../../src/ports/budgets.js';
import { BudgetGate } from '../../src/workers/delivery/budget-gate.js';
import { FakeClock } from '../support/fake-clock.js';
import { budgetShare } from '../../src/domain/flow/shares.js';
import { flowKeyShard, shardOf } from '../../src/domain/shards.js';
import { planPlacedRequests } from '../../src/app/accept-plan.js';
import { localShardChooser } from '../../src/workers/placement/local-shards.js';
import { FRESH_SCHEDULE, earliestStart, reserved, tokensAt } from '../../src/domain/flow/rate-schedule.js';

const T = Date.UTC(2030, 0, 1);
const fivePerSecond: RateLimit = { limit: 5, periodMs: 1_000, burst: 5 };

function limits(over: Partial<BudgetLimits>): BudgetLimits {
  return { rate: null, concurrency: null, adaptive: true, ...over };
}

function named(name: string, l: BudgetLimits, kind: NamedBudget['kind'] = 'flow_key'): NamedBudget {
  const budget = new Budget();
  budget.configure(l, false);
  return { kind, name, budget };
}

/**
 * Requests that come back exactly when told, against `budgets`, from T for `ms`: the start times, and how many
 * times requests were handed back. `backlog` requests are due at T.
 */
function drain(budgets: NamedBudget[], backlog: number, ms: number, late: (at: number) => number = () => 0): { starts: number[]; handBacks: number } {
  const due = new Map<string, number>();
  for (let i = 0; i < backlog; i++) due.set(`r${String(i).padStart(6, '0')}`, T);
  const starts: number[] = [];
  let handBacks = 0;
  for (let now = T; now < T + ms; now++) {
    for (const [id, at] of due) {
      if (at > now) continue;
      const a = admit(budgets, id, now, null);
      if (a.start) {
        for (const b of budgets) b.budget.started(id, now);
        for (const b of budgets) b.budget.finished(0);
        starts.push(now);
        due.delete(id);
      } else {
        handBacks++;
        due.set(id, a.until + late(a.until));
      }
    }
  }
  return { starts, handBacks };
}

function maxInWindow(starts: number[], windowMs: number): number {
  let max = 0;
  for (let i = 0, j = 0; i < starts.length; i++) {
    while (starts[i]! - starts[j]! >= windowMs) j++;
    max = Math.max(max, i - j + 1);
  }
  return max;
}

describe('rate schedule (GCRA)', () => {
  it('a full bucket lets `burst` start at once, then one per interval', () => {
    let s = FRESH_SCHEDULE;
    expect(tokensAt(s, fivePerSecond, T)).toBe(5);
    for (let i = 0; i < 5; i++) {
      expect(earliestStart(s, fivePerSecond, T)).toBe(T);
      s = reserved(s, fivePerSecond, T);
    }
    expect(tokensAt(s, fivePerSecond, T)).toBe(0);
    expect(earliestStart(s, fivePerSecond, T)).toBe(T + 200);
    expect(tokensAt(s, fivePerSecond, T + 200)).toBe(1);
    expect(tokensAt(s, fivePerSecond, T + 1_000)).toBe(5);
  });

  it('a burst of 1 spaces every start by the interval', () => {
    const rate = { limit: 10, periodMs: 1_000, burst: 1 };
    let s = reserved(FRESH_SCHEDULE, rate, T);
    expect(earliestStart(s, rate, T)).toBe(T + 100);
    s = reserved(s, rate, T + 100);
    expect(earliestStart(s, rate, T + 150)).toBe(T + 200);
  });

  it('a promise far ahead leaves a gap behind it, and later promises queue after it', () => {
    const rate = { limit: 1, periodMs: 1_000, burst: 1 };
    let s = reserved(FRESH_SCHEDULE, rate, T + 5_000);
    expect(earliestStart(s, rate, T)).toBe(T + 6_000);
    s = reserved(s, rate, T + 6_000);
    expect(earliestStart(s, rate, T)).toBe(T + 7_000);
  });

  it('an idle hour refills no more than the burst', () => {
    let s = FRESH_SCHEDULE;
    for (let i = 0; i < 5; i++) s = reserved(s, fivePerSecond, T);
    expect(tokensAt(s, fivePerSecond, T + 3_600_000)).toBe(5);
  });
});

describe('adaptive rate (AIMD)', () => {
  it('halves on push-back, at most once per gap, down to the floor', () => {
    let a = pushedBack(FULL_RATE, T);
    expect(factorAt(a, T)).toBe(0.5);
    expect(pushedBack(a, T + DECREASE_GAP_MS - 1)).toBe(a);
    for (let i = 1; i < 10; i++) a = pushedBack(a, T + i * DECREASE_GAP_MS);
    expect(a.factor).toBe(MIN_FACTOR);
  });

  it('climbs back by a step per success', () => {
    let a = pushedBack(FULL_RATE, T);
    for (let i = 0; i < 4; i++) a = succeeded(a, T);
    expect(factorAt(a, T)).toBeCloseTo(0.7);
  });

  it('is whole again within the recovery time, successes or not', () => {
    const a = pushedBack(FULL_RATE, T);
    expect(factorAt(a, T + RECOVERY_MS / 2)).toBeCloseTo(0.75);
    expect(factorAt(a, T + RECOVERY_MS)).toBe(1);
    expect(succeeded(a, T + RECOVERY_MS)).toBe(FULL_RATE);
  });
});

describe('admission', () => {
  it('5/s over 20 s: never more than rate + burst in any second, on average within 5 %, each request handed back once at most', () => {
    const key = named('k', limits({ rate: fivePerSecond }));
    const { starts, handBacks } = drain([key], 1_000, 20_000);
    expect(maxInWindow(starts, 1_000)).toBeLessThanOrEqual(10);
    const steady = starts.filter((t) => t >= T + 1_000);
    expect(steady.length / 19).toBeGreaterThanOrEqual(5 * 0.95);
    expect(steady.length / 19).toBeLessThanOrEqual(5 * 1.05);
    expect(handBacks).toBeLessThanOrEqual(1_000);
  });

  it('promised requests that come back late, and together, still start no faster than rate + burst', () => {
    // Claims stall for 2 s out of every 5 (storage busy, say): what fell due meanwhile comes back at once after.
    const late = (at: number) => Math.max(0, 2_000 - ((at - T) % 5_000));
    const key = named('k', limits({ rate: fivePerSecond }));
    const { starts } = drain([key], 1_000, 20_000, late);
    expect(maxInWindow(starts, 1_000)).toBeLessThanOrEqual(10);
    // The stalls cost starts (nothing starts while they last); what is left still goes at the rate, after the burst.
    expect(starts.length).toBeGreaterThanOrEqual(4 * 20);
  });

  it('two keys on one request bind by the tighter one, the queue first', () => {
    const queue = named('q', limits({ rate: { limit: 10, periodMs: 1_000, burst: 1 } }), 'queue');
    const tight = named('tight', limits({ rate: { limit: 2, periodMs: 1_000, burst: 1 } }));
    const { starts } = drain([queue, tight], 100, 10_000);
    expect(starts.length).toBeGreaterThanOrEqual(19);
    expect(starts.length).toBeLessThanOrEqual(21);
    const held = admit([queue, tight], 'next', T + 10_000, null);
    expect(held.start).toBe(false);
    if (!held.start) expect(held.waitingFor).toMatchObject({ kind: 'flow_key', name: 'tight', reason: 'rate' });
  });

  it("a slow key's promised starts do not hold up the queue it shares with others", () => {
    const queue = named('q', limits({ rate: { limit: 100, periodMs: 1_000, burst: 100 } }), 'queue');
    const slow = named('slow', limits({ rate: { limit: 1, periodMs: 1_000, burst: 1 } }));
    for (let i = 0; i < 50; i++) {
      const a = admit([queue, slow], `s${i}`, T, null);
      if (a.start) for (const b of [queue, slow]) b.budget.started(`s${i}`, T);
    }
    expect(slow.budget.state(T).waiting.rate).toBe(49);
    expect(admit([queue], 'other', T + 1, null)).toEqual({ start: true });
  });

  it('concurrency: a request past the limit waits, naming the budget', () => {
    const key = named('c', limits({ concurrency: 3 }));
    for (let i = 0; i < 3; i++) {
      expect(admit([key], `r${i}`, T, null)).toEqual({ start: true });
      key.budget.started(`r${i}`, T);
    }
    const held = admit([key], 'r3', T, null);
    expect(held).toMatchObject({ start: false, waitingFor: { name: 'c', reason: 'concurrency', since: T } });
    key.budget.finished(100);
    expect(admit([key], 'r3', T + 200, null)).toEqual({ start: true });
  });

  it('a pause holds before anything else and keeps the time it began', () => {
    const queue = named('q', limits({ concurrency: 1 }), 'queue');
    const key = named('p', limits({}));
    key.budget.configure(limits({}), true);
    queue.budget.started('x', T);
    const first = admit([queue, key], 'r', T, null);
    expect(first).toMatchObject({ start: false, waitingFor: { kind: 'flow_key', reason: 'paused', since: T }, until: T + 30_000 });
    if (first.start) return;
    const later = admit([queue, key], 'r', T + 160_000, first.waitingFor);
    expect(later).toMatchObject({ waitingFor: { since: T }, until: T + 200_000 });
    const long = admit([queue, key], 'r', T + 3_600_000, first.waitingFor);
    expect(long).toMatchObject({ until: T + 3_660_000 });
  });

  it('a resume answers the requests the pause held, once', () => {
    const key = named('p', limits({}));
    key.budget.configure(limits({}), true);
    admit([key], 'a', T, null);
    admit([key], 'b', T, null);
    expect(key.budget.state(T).waiting.paused).toBe(2);
    expect(key.budget.configure(limits({}), true)).toEqual([]);
    expect(key.budget.configure(limits({}), false).sort()).toEqual(['a', 'b']);
    expect(key.budget.configure(limits({}), false)).toEqual([]);
    expect(key.budget.state(T).waiting.paused).toBe(0);
  });

  it('a paused budget leaves requests that do not use it alone', () => {
    const paused = named('p', limits({}));
    paused.budget.configure(limits({}), true);
    const other = named('o', limits({}));
    expect(admit([other], 'r', T, null)).toEqual({ start: true });
  });

  it('a push-back lowers the admitted rate, which climbs back', () => {
    const key = named('k', limits({ rate: { limit: 10, periodMs: 1_000, burst: 10 } }));
    expect(key.budget.state(T).admittedRate).toBe(10);
    key.budget.pushedBack(T);
    expect(key.budget.state(T).admittedRate).toBe(5);
    expect(key.budget.tokensAt(T)).toBe(0);
    for (let i = 0; i < 10; i++) key.budget.succeeded(T + 100);
    expect(key.budget.state(T + 100).admittedRate).toBe(10);
  });

  it('a budget that is not adaptive ignores push-back', () => {
    const key = named('k', limits({ rate: fivePerSecond, adaptive: false }));
    key.budget.pushedBack(T);
    expect(key.budget.state(T).admittedRate).toBe(5);
  });

  it('a held request is counted by reason until it comes back', () => {
    const key = named('k', limits({ rate: { limit: 1, periodMs: 1_000, burst: 1 } }));
    expect(admit([key], 'a', T, null).start).toBe(true);
    key.budget.started('a', T);
    expect(admit([key], 'b', T, null).start).toBe(false);
    expect(key.budget.state(T).waiting).toEqual({ rate: 1, concurrency: 0, paused: 0 });
    expect(key.budget.state(T).startedInPeriod).toBe(1);
    expect(admit([key], 'b', T + 1_000, null).start).toBe(true);
    key.budget.started('b', T + 1_000);
    expect(key.budget.state(T + 1_000).waiting.rate).toBe(0);
  });

  it('a share of the limits: half the rate and concurrency on a process that delivers half', () => {
    const b = new Budget();
    b.configure(limits({ rate: { limit: 10, periodMs: 1_000, burst: 10 }, concurrency: 4 }), false, 0.5);
    expect(b.rateAt(T)).toEqual({ limit: 5, periodMs: 1_000, burst: 5 });
    expect(b.concurrencyAt(T)).toBe(2);
  });
});

describe('distributed shares and placement', () => {
  it('a request naming keys lands on its first key\'s shard; its owner enforces the key in full, others their share', () => {
    const planned = planPlacedRequests('prj_a', ['k1', null, 'k1', 'k2'].map((firstKey) => ({ firstKey, queue: 'default' })), T, { shardCount: 16 });
    const shard = flowKeyShard('prj_a', 'k1', 16);
    expect(shardOf(planned[0]!.id, 16)).toBe(shard);
    expect(shardOf(planned[2]!.id, 16)).toBe(shard);
    expect(shardOf(planned[3]!.id, 16)).toBe(flowKeyShard('prj_a', 'k2', 16));
    expect(planned.map((p) => p.id)).toEqual([...planned.map((p) => p.id)].sort());
    expect(budgetShare('flow_key', 'prj_a', 'k1', [shard], 16)).toBe(1);
    expect(budgetShare('flow_key', 'prj_a', 'k1', [(shard + 1) % 16, (shard + 2) % 16], 16)).toBe(2 / 16);
    expect(budgetShare('queue', 'prj_a', 'default', [0, 1, 2, 3], 16)).toBe(0.25);
  });

  it("requests without keys go to the accepting process's shards in turn, unless their queue has limits", () => {
    let owned: number[] = [3, 7, 11];
    const limited = new Set(['prj_a/limited']);
    const localShard = localShardChooser(() => owned, (projectId, queue) => limited.has(`${projectId}/${queue}`));
    const placement = { shardCount: 16, localShard };
    const items = [
      { firstKey: null, queue: 'default' },
      { firstKey: 'k1', queue: 'default' },
      { firstKey: null, queue: 'default' },
      { firstKey: null, queue: 'default' },
      { firstKey: null, queue: 'limited' },
    ];
    const shards = planPlacedRequests('prj_a', items, T, placement).map((p) => shardOf(p.id, 16));
    // The key's shard wins over the local one; the unkeyed requests take the owned shards in turn.
    expect(shards[1]).toBe(flowKeyShard('prj_a', 'k1', 16));
    expect(new Set([shards[0], shards[2], shards[3]])).toEqual(new Set(owned));
    // A queue with limits is spread by the random ID: over many requests, shards nobody here owns too.
    const spread = planPlacedRequests('prj_a', Array.from({ length: 200 }, () => ({ firstKey: null, queue: 'limited' })), T, placement);
    expect(new Set(spread.map((p) => shardOf(p.id, 16))).size).toBeGreaterThan(3);
    // The same queue name in another project is that project's own queue.
    expect(owned).toContain(shardOf(planPlacedRequests('prj_b', [{ firstKey: null, queue: 'limited' }], T, placement)[0]!.id, 16));
    // Owning nothing (before an assignment, or in a rebalance): spread.
    owned = [];
    expect(localShard('prj_a', 'default')).toBeNull();
  });

  it('a queue counts as limited by its rate or concurrency, not by a pause or by being used', async () => {
    const config = (name: string, over: Partial<BudgetConfig>): BudgetConfig => ({
      projectId: 'prj_a', kind: 'queue', name, rate: null, concurrency: null, adaptive: true, paused: false, updatedAt: T, ...over,
    });
    const configs = [
      config('used', { updatedAt: null }),
      config('paused', { paused: true }),
      config('rated', { rate: { limit: 5, periodMs: 1_000, burst: 5 } }),
      config('bounded', { concurrency: 2 }),
    ];
    const gate = new BudgetGate({ budgets: { changedSince: async () => configs } as unknown as BudgetStore, clock: new FakeClock(T) });
    await gate.start();
    gate.stop();
    expect(['used', 'paused', 'rated', 'bounded', 'unknown'].map((q) => gate.limited('prj_a', 'queue', q))).toEqual([false, false, true, true, false]);
    expect(gate.limited('prj_b', 'queue', 'rated')).toBe(false);
  });

  it('a deployment reads the sum of every process, and its limits decide what a rate reads', () => {
    const a = { inFlight: 2, startedInPeriod: 3, waiting: { rate: 1, concurrency: 0, paused: 0 }, admittedRate: 2.5 };
    const b = { inFlight: 1, startedInPeriod: 2, waiting: { rate: 4, concurrency: 1, paused: 0 }, admittedRate: 2.5 };
    expect(sumStates([a, b])).toEqual({ inFlight: 3, startedInPeriod: 5, waiting: { rate: 5, concurrency: 1, paused: 0 }, admittedRate: 5 });
    expect(stateUnder(limits({ rate: fivePerSecond }), IDLE_STATE)).toMatchObject({ admittedRate: 5, startedInPeriod: 0 });
    expect(stateUnder(limits({}), a)).toMatchObject({ admittedRate: null, startedInPeriod: null });
  });
});
