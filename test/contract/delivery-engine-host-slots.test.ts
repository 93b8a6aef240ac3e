import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import type { RequestStore } from '../../src/ports/requests.js';
import type { DeliveryEvent } from '../../src/workers/delivery/events.js';
import { withMethods } from '../support/with-methods.js';
import { engineHarness } from './engine-harness.js';
import { aRequest } from './suite/harness.js';

/**
 * A destination host's share of the slots counts exchanges with it, not the recording of their outcomes: with a
 * per-host limit of one, the host's next request is sent while the previous outcome is still being written, and
 * never while the previous exchange is still open.
 */
const harness = engineHarness('engine-host-slots');

/** Holds every `recordAttempt` until `release` is called. */
function recordsHeld(store: RequestStore): { store: RequestStore; release: () => void; held: () => number } {
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let held = 0;
  const wrapped = withMethods(store, {
    recordAttempt: async (...args) => {
      held += 1;
      await gate;
      return store.recordAttempt(...args);
    },
  });
  return { store: wrapped, release: () => open(), held: () => held };
}

describe('delivery engine: per-host slots', () => {
  it('sends the next request to a host while the previous outcome is still being recorded, never two at once', async () => {
    const backend = harness.openBackend();
    const { store, release, held } = recordsHeld(backend.requests);
    const events: DeliveryEvent[] = [];
    let open = 0;
    let mostOpen = 0;
    const sent: string[] = [];
    const engine = harness.startEngine(backend, {
      requests: store,
      transport: {
        send: async (req) => {
          open += 1;
          mostOpen = Math.max(mostOpen, open);
          sent.push(req.url);
          await nextTurn();
          open -= 1;
          return { outcome: { kind: 'response', status: 200, retryAfter: null }, startedAt: Date.now(), durationMs: 1 };
        },
        abortInFlight: () => undefined,
        close: async () => undefined,
      },
      maxInFlight: 8,
      maxPerHost: 1,
      maxPerQueue: 8,
      onEvent: (e) => events.push(e),
    });
    const now = Date.now();
    await backend.requests.insertMany(Array.from({ length: 3 }, () => aRequest({ createdAt: now })));
    engine.start();

    // All three exchanges happen while not one outcome has been written.
    await vi.waitFor(() => expect(held()).toBe(3), { timeout: 10_000 });
    expect(sent).toHaveLength(3);
    expect(mostOpen).toBe(1);
    expect(events.filter((e) => e.type === 'attempt_finished')).toEqual([]);

    release();
    await vi.waitFor(() => expect(events.filter((e) => e.type === 'attempt_finished')).toHaveLength(3), { timeout: 10_000 });
    expect(events.filter((e) => e.type === 'engine_error')).toEqual([]);
  });
});
