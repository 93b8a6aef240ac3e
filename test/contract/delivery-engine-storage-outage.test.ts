import { describe, expect, it, vi } from 'vitest';
import type { AttemptOutcome } from '../../src/domain/delivery/outcome.js';
import type { EmbeddedBackend } from '../../src/adapters/embedded/backend.js';
import type { RequestStore } from '../../src/ports/requests.js';
import type { DeliveryEvent } from '../../src/workers/delivery/events.js';
import { DELIVERY_HEADERS } from '../../src/workers/delivery/outbound.js';
import { withMethods } from '../support/with-methods.js';
import { engineHarness } from './engine-harness.js';
import { PROJECT_A, aRequest } from './suite/harness.js';

/**
 * A claimed request whose storage calls fail for a while (storage unreachable, say) is not left claimed: the
 * engine keeps trying to read what it needs, record the outcome or hand the request back, until storage answers,
 * so the request is delivered soon after and its attempt history stays whole.
 */
const harness = engineHarness('engine-storage-outage');

const unreachable = () => new Error('storage unreachable (injected)');

/** `store` whose named methods fail their first `failures` calls. */
function failingFirst(store: RequestStore, method: 'recordAttempt' | 'handBack', failures: number): { store: RequestStore; calls: () => number } {
  let calls = 0;
  const real = store[method].bind(store) as (...args: unknown[]) => Promise<unknown>;
  const wrapped = withMethods(store, {
    [method]: async (...args: unknown[]) => {
      calls += 1;
      if (calls <= failures) throw unreachable();
      return real(...args);
    },
  } as Partial<RequestStore>);
  return { store: wrapped, calls: () => calls };
}

/**
 * Inserts one due request and runs an engine over `store` (the backend's store, with failures injected) until the
 * request is `succeeded`; `outcomes` are the transport's answers in turn, then 200s.
 */
async function deliverOne(
  backend: EmbeddedBackend,
  store: RequestStore,
  o: { outcomes?: AttemptOutcome[]; secrets?: () => Promise<readonly Uint8Array[]> } = {},
) {
  const outcomes = o.outcomes ?? [];
  const events: DeliveryEvent[] = [];
  const sent: string[] = [];
  const engine = harness.startEngine(backend, {
    requests: store,
    transport: {
      send: async (req) => {
        sent.push(req.headers.find(([name]) => name === DELIVERY_HEADERS.requestId)![1]);
        return { outcome: outcomes.shift() ?? { kind: 'response', status: 200, retryAfter: null }, startedAt: Date.now(), durationMs: 1 };
      },
      abortInFlight: () => undefined,
      close: async () => undefined,
    },
    ...(o.secrets === undefined ? {} : { projectDelivery: async () => ({ secrets: await o.secrets!(), captureResponseBodies: true }) }),
    onEvent: (e) => events.push(e),
  });
  const now = Date.now();
  const r = aRequest({ createdAt: now });
  await backend.requests.insertMany([r]);
  engine.start();
  await vi.waitFor(async () => expect((await backend.requests.get(PROJECT_A, r.id))?.status).toBe('succeeded'), { timeout: 15_000 });
  return { id: r.id, events, sent };
}

const errors = (events: DeliveryEvent[]) => events.filter((e) => e.type === 'engine_error');

describe('delivery engine while storage fails', () => {
  it('sends a claimed request once its signing secrets can be read again', async () => {
    const backend = harness.openBackend();
    let reads = 0;
    const secrets = async () => {
      reads += 1;
      if (reads <= 2) throw unreachable();
      return [new Uint8Array(32)];
    };
    const { id, events, sent } = await deliverOne(backend, backend.requests, { secrets });
    expect(sent).toEqual([id]);
    expect(errors(events).length).toBeGreaterThan(0);
  });

  it('records an outcome that could not be stored at first, without sending the request again', async () => {
    const backend = harness.openBackend();
    const { store, calls } = failingFirst(backend.requests, 'recordAttempt', 3);
    const { id, sent } = await deliverOne(backend, store);
    expect(calls()).toBe(4);
    expect(sent).toEqual([id]);
    expect(await backend.requests.listAttempts(PROJECT_A, id)).toHaveLength(1);
  });

  it('hands back a request whose attempt was aborted even when the first hand-backs fail, and delivers it', async () => {
    const backend = harness.openBackend();
    const { store, calls } = failingFirst(backend.requests, 'handBack', 2);
    const { id, sent } = await deliverOne(backend, store, { outcomes: [{ kind: 'aborted' }] });
    expect(calls()).toBe(3);
    expect(sent).toEqual([id, id]);
  });
});
