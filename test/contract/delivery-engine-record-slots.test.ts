import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import type { RequestStore } from '../../src/ports/requests.js';
import type { DeliveryTransport } from '../../src/ports/delivery-transport.js';
import type { DeliveryEvent } from '../../src/workers/delivery/events.js';
import { withMethods } from '../support/with-methods.js';
import { engineHarness } from './engine-harness.js';
import { aRequest } from './suite/harness.js';

/**
 * A slot (overall, per host, per queue) counts the exchange only: the next request starts while the previous
 * outcome is still being written, and the request whose outcome waits stays claimed. As many claimed requests as
 * there are slots may wait for one besides those in flight, and outcomes awaiting their write have a bound of
 * their own (twice the slots): past either the engine claims nothing more.
 */
const harness = engineHarness('engine-record-slots');

/** Holds every `recordAttempt` until `release` is called; counts the calls to `claimDue`. */
function recordsHeld(store: RequestStore): { store: RequestStore; release: () => void; held: () => number; claims: () => number } {
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let held = 0;
  let claims = 0;
  const wrapped = withMethods(store, {
    recordAttempt: async (...args) => {
      held += 1;
      await gate;
      return store.recordAttempt(...args);
    },
    claimDue: (...args) => {
      claims += 1;
      return store.claimDue(...args);
    },
  });
  return { store: wrapped, release: () => open(), held: () => held, claims: () => claims };
}

/** Answers 200 a turn later, noting each request id and how many exchanges were open at once. */
function answering(): { transport: DeliveryTransport; sent: string[]; mostOpen: () => number } {
  let open = 0;
  let mostOpen = 0;
  const sent: string[] = [];
  return {
    sent,
    mostOpen: () => mostOpen,
    transport: {
      send: async (req) => {
        open += 1;
        mostOpen = Math.max(mostOpen, open);
        sent.push(req.headers.find(([name]) => name === 'Service-Request-Id')![1]);
        await nextTurn();
        open -= 1;
        return { outcome: { kind: 'response', status: 200, retryAfter: null }, startedAt: Date.now(), durationMs: 1 };
      },
      abortInFlight: () => undefined,
      close: async () => undefined,
    },
  };
}

/** Holds every exchange until `release` is called. */
function heldExchanges(): { transport: DeliveryTransport; sent: () => number; release: () => void } {
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let sent = 0;
  return {
    sent: () => sent,
    release: () => open(),
    transport: {
      send: async () => {
        sent += 1;
        await gate;
        return { outcome: { kind: 'response', status: 200, retryAfter: null }, startedAt: Date.now(), durationMs: 1 };
      },
      abortInFlight: () => open(),
      close: async () => undefined,
    },
  };
}

describe('delivery engine: slots end with the exchange', () => {
  it('keeps as many claimed requests waiting as there are slots while every slot is busy, and no more', async () => {
    const backend = harness.openBackend();
    const { transport, sent, release } = heldExchanges();
    const events: DeliveryEvent[] = [];
    const engine = harness.startEngine(backend, { requests: backend.requests, transport, maxInFlight: 2, maxPerHost: 2, maxPerQueue: 2, onEvent: (e) => events.push(e) });
    const now = Date.now();
    const requests = Array.from({ length: 5 }, () => aRequest({ createdAt: now }));
    await backend.requests.insertMany(requests);
    engine.start();

    const statuses = async () => (await Promise.all(requests.map((r) => backend.requests.get(r.projectId, r.id)))).map((r) => r!.status);
    // Two exchanges open, two more claimed to wait for a slot, the fifth left in storage.
    await vi.waitFor(async () => expect((await statuses()).filter((s) => s === 'delivering')).toHaveLength(4), { timeout: 10_000 });
    expect(sent()).toBe(2);
    for (let i = 0; i < 50; i++) await nextTurn();
    expect((await statuses()).filter((s) => s === 'queued')).toHaveLength(1);
    expect(sent()).toBe(2);

    release();
    await vi.waitFor(() => expect(events.filter((e) => e.type === 'attempt_finished')).toHaveLength(5), { timeout: 10_000 });
    expect(sent()).toBe(5);
    expect(events.filter((e) => e.type === 'engine_error')).toEqual([]);
  });

  it('sends the next request of a queue while the previous outcome is being written, one exchange at a time', async () => {
    const backend = harness.openBackend();
    const { store, release, held } = recordsHeld(backend.requests);
    const { transport, sent, mostOpen } = answering();
    const events: DeliveryEvent[] = [];
    const engine = harness.startEngine(backend, { requests: store, transport, maxInFlight: 2, maxPerHost: 2, maxPerQueue: 1, onEvent: (e) => events.push(e) });
    const now = Date.now();
    await backend.requests.insertMany(Array.from({ length: 2 }, () => aRequest({ createdAt: now })));
    engine.start();

    await vi.waitFor(() => expect(held()).toBe(2), { timeout: 10_000 });
    expect(sent).toHaveLength(2);
    expect(mostOpen()).toBe(1);
    expect(events.filter((e) => e.type === 'attempt_finished')).toEqual([]);

    release();
    await vi.waitFor(() => expect(events.filter((e) => e.type === 'attempt_finished')).toHaveLength(2), { timeout: 10_000 });
    expect(events.filter((e) => e.type === 'engine_error')).toEqual([]);
  });

  it('claims nothing more while twice the slots of outcomes await their write, and goes on once they land', async () => {
    const backend = harness.openBackend();
    const { store, release, held, claims } = recordsHeld(backend.requests);
    const { transport, sent } = answering();
    const events: DeliveryEvent[] = [];
    const engine = harness.startEngine(backend, { requests: store, transport, maxInFlight: 1, maxPerHost: 1, maxPerQueue: 1, onEvent: (e) => events.push(e) });
    const now = Date.now();
    const requests = Array.from({ length: 4 }, () => aRequest({ createdAt: now }));
    await backend.requests.insertMany(requests);
    engine.start();

    // Two outcomes await their write; the request claimed to wait for the slot before that still goes out.
    await vi.waitFor(() => expect(held()).toBe(3), { timeout: 10_000 });
    const claimsAtBound = claims();
    // Many turns later: no claim was made, and the fourth request is still in storage, not claimed.
    for (let i = 0; i < 50; i++) await nextTurn();
    expect(claims()).toBe(claimsAtBound);
    expect(sent).toHaveLength(3);
    const waiting = await Promise.all(requests.map((r) => backend.requests.get(r.projectId, r.id)));
    expect(waiting.filter((r) => r!.status === 'queued')).toHaveLength(1);
    expect(waiting.filter((r) => r!.status === 'delivering')).toHaveLength(3);

    release();
    await vi.waitFor(() => expect(events.filter((e) => e.type === 'attempt_finished')).toHaveLength(4), { timeout: 10_000 });
    expect([...sent].sort()).toEqual(requests.map((r) => r.id).sort());
    expect(events.filter((e) => e.type === 'engine_error')).toEqual([]);
  });
});
