import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import type { AttemptOutcome } from '../../src/domain/delivery/outcome.js';
import type { RequestStore } from '../../src/ports/requests.js';
import type { DeliveryEvent } from '../../src/workers/delivery/events.js';
import { withMethods } from '../support/with-methods.js';
import { engineHarness } from './engine-harness.js';
import { aRequest } from './suite/harness.js';

/**
 * When the delivery engine looks at the store. Each look costs reads (on Cassandra, several per shard), so the
 * engine looks when work may be due and not merely because an attempt finished; work it makes due itself (a
 * retry) is looked for at its due time, not at the next idle poll.
 */
const harness = engineHarness('engine-looks');

/** Counts the engine's looks at the store: `nextDueAt` and `claimDue` calls. */
function counted(store: RequestStore): { store: RequestStore; looks: () => number } {
  let looks = 0;
  const wrapped = withMethods(store, {
    nextDueAt: (...args) => {
      looks += 1;
      return store.nextDueAt(...args);
    },
    claimDue: (...args) => {
      looks += 1;
      return store.claimDue(...args);
    },
  });
  return { store: wrapped, looks: () => looks };
}

function startEngine(outcomes: AttemptOutcome[], retryBaseMs: number) {
  const backend = harness.openBackend();
  const { store, looks } = counted(backend.requests);
  const events: DeliveryEvent[] = [];
  const engine = harness.startEngine(backend, {
    requests: store,
    transport: {
      send: async () => ({ outcome: outcomes.shift() ?? { kind: 'response', status: 200, retryAfter: null }, startedAt: Date.now(), durationMs: 1 }),
      abortInFlight: () => undefined,
      close: async () => undefined,
    },
    retry: { baseMs: retryBaseMs, capMs: retryBaseMs, retryAfterCapMs: retryBaseMs },
    onEvent: (e) => events.push(e),
  });
  return { backend, engine, looks, events };
}

const finished = (events: DeliveryEvent[]) => events.filter((e) => e.type === 'attempt_finished');

describe('delivery engine looks at the store', () => {
  it('does not look again when an attempt finishes and nothing else is due', async () => {
    const { backend, engine, looks, events } = startEngine([], 1_000);
    const now = Date.now();
    await backend.requests.insertMany([aRequest({ createdAt: now })]);
    engine.start();
    await vi.waitFor(() => expect(finished(events)).toHaveLength(1), { timeout: 10_000 });
    // Let whatever the finished attempt sets off run.
    for (let i = 0; i < 20; i++) await nextTurn();
    const after = looks();
    for (let i = 0; i < 20; i++) await nextTurn();
    expect(looks()).toBe(after);
    // The first look found the request and claimed it; the one after it found the next due time (none).
    expect(after).toBeLessThanOrEqual(3);
    expect(events.filter((e) => e.type === 'engine_error')).toEqual([]);
  });

  it('looks for a retry at its due time, without waiting for the idle poll', async () => {
    const { backend, engine, events } = startEngine([{ kind: 'response', status: 503, retryAfter: null }], 50);
    const now = Date.now();
    const request = aRequest({ createdAt: now });
    await backend.requests.insertMany([request]);
    engine.start();
    // The idle poll is a minute away: only the armed retry can bring the second attempt within the deadline.
    await vi.waitFor(() => expect(finished(events).map((e) => e.attemptNumber)).toEqual([1, 2]), { timeout: 20_000, interval: 50 });
    const stored = await backend.requests.get(request.projectId, request.id);
    expect(stored?.status).toBe('succeeded');
    expect(stored?.attemptCount).toBe(2);
  });

  it('looks again when an attempt finishes while due work is left unclaimed for want of slots', async () => {
    const { backend, engine, events } = startEngine([], 1_000);
    const now = Date.now();
    // 64 slots: the first look claims 64 of the 200, and only finished attempts can make room for the rest.
    await backend.requests.insertMany(Array.from({ length: 200 }, () => aRequest({ createdAt: now })));
    engine.start();
    await vi.waitFor(() => expect(finished(events)).toHaveLength(200), { timeout: 20_000, interval: 50 });
  });
});
