import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { TimedOutcome } from '../../src/domain/delivery/outcome.js';
import type { StoredRequest } from '../../src/domain/request.js';
import type { Claim, RequestStore } from '../../src/ports/requests.js';
import type { BudgetConfig, WaitingFor } from '../../src/domain/flow/budgets.js';
import type { BudgetStore } from '../../src/ports/budgets.js';
import { BudgetGate } from '../../src/workers/delivery/budget-gate.js';
import { DeliveryEngine } from '../../src/workers/delivery/engine.js';
import type { DeliveryEvent } from '../../src/workers/delivery/events.js';
import { aRequest, T0 } from '../contract/suite/harness.js';
import { FakeClock } from '../support/fake-clock.js';

/**
 * The delivery engine waits only on its clock: its looks at the store, a shutdown's grace and its waits between
 * storage retries all happen when the clock says so, and never while the clock stands still.
 */

const IDLE_POLL_MS = 60_000;

/** A claim as a store that needs nothing more than the claimed request makes it. */
function claimOf(request: StoredRequest): Claim {
  return { request, sent: () => claimOf(request) };
}

/** Requests in memory, as far as the engine uses them, counting its calls. */
function memoryStore(due: StoredRequest[], recordFailures = 0) {
  const calls = { nextDueAt: 0, claimDue: 0, recordAttempt: 0, handBack: 0 };
  const store = {
    nextDueAt: async () => {
      calls.nextDueAt += 1;
      return due.length === 0 ? null : Math.min(...due.map((r) => r.dueAt!));
    },
    claimDue: async (now: number, limit: number, leaseUntil: number) => {
      calls.claimDue += 1;
      const claimed = due.filter((r) => r.dueAt! <= now).slice(0, limit);
      due = due.filter((r) => !claimed.includes(r));
      return claimed.map((r) => claimOf({ ...r, status: 'delivering', dueAt: leaseUntil, version: r.version + 1 }));
    },
    recordAttempt: async (claim: Claim) => {
      calls.recordAttempt += 1;
      if (calls.recordAttempt <= recordFailures) throw new Error('storage down');
      return { status: 'succeeded', dueAt: null, version: claim.request.version + 1 };
    },
    handBack: async (claim: Claim, _now: number, dueAt: number, waitingFor: WaitingFor | null = null) => {
      calls.handBack += 1;
      due.push({ ...claim.request, status: 'queued', dueAt, waitingFor });
    },
  } as unknown as RequestStore;
  return { store, calls };
}

/** Attempts that answer 200 at once, or, with `held`, only when aborted. */
function transport(held = false) {
  const state = { sent: 0, aborted: 0 };
  const waiting: Array<(o: TimedOutcome) => void> = [];
  return {
    state,
    transport: {
      send: () => {
        state.sent += 1;
        if (!held) return Promise.resolve<TimedOutcome>({ outcome: { kind: 'response', status: 200, retryAfter: null }, startedAt: T0, durationMs: 1 });
        return new Promise<TimedOutcome>((resolve) => waiting.push(resolve));
      },
      abortInFlight: () => {
        state.aborted += 1;
        for (const resolve of waiting.splice(0)) resolve({ outcome: { kind: 'aborted' }, startedAt: T0, durationMs: 1 });
      },
      close: async () => undefined,
    },
  };
}

let running: DeliveryEngine | null = null;
afterEach(async () => {
  await running?.stop(0);
  running = null;
});

function startEngine(clock: FakeClock, store: RequestStore, t: ReturnType<typeof transport>['transport'], budgets?: BudgetGate) {
  const events: DeliveryEvent[] = [];
  const engine = new DeliveryEngine({
    requests: store,
    transport: t,
    clock,
    projectDelivery: async () => ({ secrets: [new Uint8Array(32)], captureResponseBodies: true }),
    retry: { baseMs: 1_000, capMs: 1_000, retryAfterCapMs: 1_000 },
    maxInFlight: 8,
    maxPerHost: 8,
    maxPerQueue: 8,
    idlePollMs: IDLE_POLL_MS,
    userAgent: 'ferry-test',
    random: () => 0,
    onEvent: (e) => events.push(e),
    ...(budgets ? { budgets } : {}),
  });
  running = engine;
  engine.start();
  return { engine, events };
}

/** Lets every promise the engine set going run to its next wait. */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await nextTurn();
}

describe('delivery engine on a fake clock', () => {
  it('looks at the store again only when the clock reaches the idle poll', async () => {
    const clock = new FakeClock(T0);
    const { store, calls } = memoryStore([]);
    startEngine(clock, store, transport().transport);
    await settle();
    expect(calls.nextDueAt).toBe(1);
    expect(clock.nextAt).toBe(T0 + IDLE_POLL_MS);

    await new Promise((resolve) => setTimeout(resolve, 20));
    clock.advance(IDLE_POLL_MS - 1);
    await settle();
    expect(calls.nextDueAt).toBe(1);

    clock.advance(1);
    await settle();
    expect(calls.nextDueAt).toBe(2);
  });

  it('claims work when the clock reaches its due time', async () => {
    const clock = new FakeClock(T0);
    const { store, calls } = memoryStore([aRequest({ createdAt: T0, dueAt: T0 + 500 })]);
    const t = transport();
    startEngine(clock, store, t.transport);
    await settle();
    clock.advance(499);
    await settle();
    expect(calls.claimDue).toBe(0);

    clock.advance(1);
    await settle();
    expect(calls.claimDue).toBe(1);
    expect(t.state.sent).toBe(1);
    expect(calls.recordAttempt).toBe(1);
  });

  it('waits out a storage failure on the clock before recording again', async () => {
    const clock = new FakeClock(T0);
    const { store, calls } = memoryStore([aRequest({ createdAt: T0 })], 1);
    const { events } = startEngine(clock, store, transport().transport);
    await settle();
    expect(calls.recordAttempt).toBe(1);
    expect(events.filter((e) => e.type === 'engine_error')).toHaveLength(1);

    // The first storage retry waits half of 400 ms when the jitter draws 0.
    clock.advance(199);
    await settle();
    expect(calls.recordAttempt).toBe(1);
    clock.advance(1);
    await settle();
    expect(calls.recordAttempt).toBe(2);
    expect(events.filter((e) => e.type === 'attempt_finished')).toHaveLength(1);
  });

  it('aborts attempts in flight when the clock reaches the end of the shutdown grace', async () => {
    const clock = new FakeClock(T0);
    const { store, calls } = memoryStore([aRequest({ createdAt: T0 })]);
    const t = transport(true);
    const { engine } = startEngine(clock, store, t.transport);
    await settle();
    expect(t.state.sent).toBe(1);

    let stopped = false;
    const stopping = engine.stop(5_000).then(() => {
      stopped = true;
    });
    await settle();
    clock.advance(4_999);
    await settle();
    expect(t.state.aborted).toBe(0);
    expect(stopped).toBe(false);

    clock.advance(1);
    await stopping;
    expect(t.state.aborted).toBe(1);
    // The aborted attempt's request was handed back, due at once, for the next process.
    expect(calls.handBack).toBe(1);
  });

  it('starts a rate-limited key no faster than its rate, handing the rest back due when it admits them', async () => {
    const clock = new FakeClock(T0);
    const key: BudgetConfig = {
      projectId: 'prj_a', kind: 'flow_key', name: 'k', rate: { limit: 2, periodMs: 1_000, burst: 1 }, concurrency: null,
      adaptive: true, paused: false, updatedAt: T0,
    };
    const configs = { changedSince: async () => [key] } as unknown as BudgetStore;
    const gate = new BudgetGate({ budgets: configs, clock });
    await gate.start();
    const requests = Array.from({ length: 4 }, () => aRequest({ projectId: 'prj_a', createdAt: T0, flowKeys: ['k'] }));
    const { store, calls } = memoryStore(requests);
    const t = transport();
    const { events } = startEngine(clock, store, t.transport, gate);
    await settle();
    // One starts at once (a burst of 1); the others are handed back, each promised its own start 500 ms apart.
    expect(t.state.sent).toBe(1);
    expect(calls.handBack).toBe(3);
    expect(events.filter((e) => e.type === 'attempt_held').map((e) => e.type === 'attempt_held' && e.reason)).toEqual(['rate', 'rate', 'rate']);
    for (const [at, sent] of [[499, 1], [500, 2], [999, 2], [1_000, 3], [1_500, 4]] as const) {
      clock.advanceTo(T0 + at);
      await settle();
      expect(t.state.sent, `at +${at} ms`).toBe(sent);
    }
    expect(calls.handBack).toBe(3);
    gate.stop();
  });
});
