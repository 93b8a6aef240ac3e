import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { TimedOutcome } from '../../src/domain/delivery/outcome.js';
import type { StoredRequest } from '../../src/domain/request.js';
import type { DeliveryTransport } from '../../src/ports/delivery-transport.js';
import type { Claim, RequestStore } from '../../src/ports/requests.js';
import { DeliveryEngine } from '../../src/workers/delivery/engine.js';
import { aRequest, T0 } from '../contract/suite/harness.js';
import { FakeClock } from '../support/fake-clock.js';

/**
 * Before work falls due, the engine has the transport open connections to its destinations: a second ahead, at
 * most as many per origin as the work due then and the per-host limit, once per due time, and only when both the
 * store and the transport can do their part.
 */

/** Requests in memory, as far as the engine uses them; `dueUrls` left out when `withDueUrls` is false. */
function memoryStore(due: StoredRequest[], withDueUrls = true): { store: RequestStore; reads: () => number } {
  let reads = 0;
  const store = {
    nextDueAt: async () => (due.length === 0 ? null : Math.min(...due.map((r) => r.dueAt!))),
    claimDue: async (now: number, limit: number, leaseUntil: number) => {
      const claimed = due.filter((r) => r.dueAt! <= now).slice(0, limit);
      due = due.filter((r) => !claimed.includes(r));
      return claimed.map((r) => {
        const request = { ...r, status: 'delivering', dueAt: leaseUntil, version: r.version + 1 } as StoredRequest;
        const claim: Claim = { request, sent: () => claim };
        return claim;
      });
    },
    recordAttempt: async (claim: Claim) => ({ status: 'succeeded', dueAt: null, version: claim.request.version + 1 }),
    ...(withDueUrls
      ? {
          dueUrls: async (until: number, limit: number) => {
            reads += 1;
            return due.filter((r) => r.dueAt! <= until).sort((x, y) => x.dueAt! - y.dueAt!).slice(0, limit).map((r) => r.url);
          },
        }
      : {}),
  } as unknown as RequestStore;
  return { store, reads: () => reads };
}

function preparingTransport(): { transport: DeliveryTransport; prepared: Array<[string, number]>; sent: () => number } {
  const prepared: Array<[string, number]> = [];
  let sent = 0;
  return {
    prepared,
    sent: () => sent,
    transport: {
      send: async () => {
        sent += 1;
        return { outcome: { kind: 'response', status: 200, retryAfter: null }, startedAt: T0, durationMs: 1 } satisfies TimedOutcome;
      },
      prepare: (url, connections) => prepared.push([url, connections]),
      abortInFlight: () => undefined,
      close: async () => undefined,
    },
  };
}

let running: DeliveryEngine | null = null;
afterEach(async () => {
  await running?.stop(0);
  running = null;
});

function startEngine(clock: FakeClock, store: RequestStore, transport: DeliveryTransport, idlePollMs = 60_000): void {
  running = new DeliveryEngine({
    requests: store,
    transport,
    clock,
    projectDelivery: async () => ({ secrets: [new Uint8Array(32)], captureResponseBodies: true }),
    retry: { baseMs: 1_000, capMs: 1_000, retryAfterCapMs: 1_000 },
    maxInFlight: 16,
    maxPerHost: 3,
    maxPerQueue: 16,
    idlePollMs,
    userAgent: 'ferry-test',
    random: () => 0,
  });
  running.start();
}

async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await nextTurn();
}

const at = (dueAt: number, url: string) => aRequest({ createdAt: T0, dueAt, status: 'scheduled', scheduledAt: dueAt, url });

describe('delivery engine: connections opened ahead of due work', () => {
  it('asks for connections to each destination of a burst a second before it falls due, within the per-host limit', async () => {
    const clock = new FakeClock(T0);
    const due = T0 + 1_500;
    const { store } = memoryStore([
      ...Array.from({ length: 5 }, () => at(due, 'https://a.example/hook')),
      at(due + 200, 'https://B.example:8443/other'),
      at(due + 300, 'https://b.example:8443/more'),
      // Due long after the burst: not part of it.
      at(due + 5_000, 'https://c.example/late'),
    ]);
    const t = preparingTransport();
    startEngine(clock, store, t.transport);
    await settle();
    clock.advance(499);
    await settle();
    expect(t.prepared).toEqual([]);

    clock.advance(1);
    await settle();
    expect(t.prepared).toEqual([
      ['https://a.example/hook', 3],
      ['https://B.example:8443/other', 2],
    ]);
    expect(t.sent()).toBe(0);

    clock.advanceTo(due);
    await settle();
    expect(t.sent()).toBe(5);
  });

  it('asks once for a due time however many looks see it coming, and not for work due within a moment', async () => {
    const clock = new FakeClock(T0);
    const { store, reads } = memoryStore([at(T0 + 1_500, 'https://a.example/hook'), at(T0 + 1_550, 'https://a.example/hook')]);
    const t = preparingTransport();
    // Looks every 200 ms: each one sees the same due time.
    startEngine(clock, store, t.transport, 200);
    for (let step = 0; step < 7; step++) {
      clock.advance(200);
      await settle();
    }
    expect(t.prepared).toEqual([['https://a.example/hook', 2]]);
    expect(reads()).toBe(1);

    // The first request is claimed at its due time; the second, 50 ms later, is left to connect as it starts.
    clock.advanceTo(T0 + 1_550);
    await settle();
    expect(t.sent()).toBe(2);
    expect(t.prepared).toHaveLength(1);
  });

  it('opens nothing ahead when the store cannot say where due work goes', async () => {
    const clock = new FakeClock(T0);
    const { store } = memoryStore([at(T0 + 1_500, 'https://a.example/hook')], false);
    const t = preparingTransport();
    startEngine(clock, store, t.transport);
    await settle();
    clock.advanceTo(T0 + 1_500);
    await settle();
    expect(t.sent()).toBe(1);
    expect(t.prepared).toEqual([]);
  });
});
