import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptDueAt, outcomeOf, settledArrivals, type DueRequest } from '../support/cancel-notice-pair.js';
import { TEST_BACKEND } from '../support/deployment.js';
import { startDestination, type Destination } from '../support/destination.js';
import { senderAwareRoute, startOwnerPair, type OwnerPair } from '../support/stale-owner-pair.js';

/**
 * How far ahead the requests are due: long enough to accept them and ask for their cancels first, short enough to
 * fall in the window in which the owner keeps the requests it accepted in memory and claims them without a read.
 */
const DUE_IN_MS = 8_000;
/** The closing requests, one per shard, are due this long after the others: their arrival means B got past them. */
const CLOSING_AFTER_MS = 2_000;
/** Requests in B's shards that are cancelled, and as many beside them that are not. */
const CANCELLED = 6;
/** How long the destination must stay quiet, after the last awaited arrival, before the outcome is read. */
const QUIET_MS = 2_000;

describe.skipIf(TEST_BACKEND !== 'cassandra')('a cancel reaches the owner that holds the request in memory', () => {
  let dest: Destination;
  let pair: OwnerPair;
  let path = 0;

  beforeAll(async () => {
    dest = await startDestination();
    pair = await startOwnerPair(dest, {
      FERRY_ROLES: 'api,delivery',
      FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true',
      FERRY_DELIVERY_CA_FILE: dest.certFile,
    });
  });
  afterAll(async () => {
    await pair?.close();
    await dest?.close();
  });

  /**
   * Requests accepted through B, due shortly, `2 * CANCELLED` of them in the shards B owns (so B keeps them in
   * memory): every other one of those (`cancelled`, when `cancelling`) beside the rest (`kept`); then `closing`, one per shard of theirs, due after them. Requests
   * the same sends put in A's shards are `elsewhere`.
   */
  async function acceptThroughB(url: string, cancelling: boolean) {
    const bShards = [...pair.watchB.owned()];
    const inB = (r: DueRequest) => bShards.includes(r.shard);
    const dueAt = Date.now() + DUE_IN_MS;
    const first = await acceptDueAt(pair.apiB, url, dueAt, (acc) => acc.filter(inB).length >= 2 * CANCELLED);
    const mine = first.filter(inB);
    const chosen = cancelling ? mine.filter((_, i) => i % 2 === 0) : [];
    const kept = mine.filter((r) => !chosen.includes(r));
    const shards = [...new Set(mine.map((r) => r.shard))];
    const after = await acceptDueAt(pair.apiB, url, dueAt + CLOSING_AFTER_MS, (acc) => shards.every((s) => acc.some((r) => r.shard === s)));
    const closing = shards.map((s) => after.find((r) => r.shard === s)!);
    const elsewhere = [...first, ...after].filter((r) => !inB(r)).map((r) => r.id);
    return { bShards, dueAt, cancelled: chosen.map((r) => r.id), kept: kept.map((r) => r.id), closing: closing.map((r) => r.id), elsewhere };
  }

  /** What B keeps in memory is only good while it holds the shards without a break: it must have, for the case to tell. */
  function expectBHeldItsShards(bShards: readonly number[], dropsAtStart: number): void {
    expect(pair.watchB.drops(), 'B gave shards up during the case').toBe(dropsAtStart);
    expect(pair.watchB.owned()).toEqual(bShards);
  }

  async function expectDeliveredOnce(route: ReturnType<typeof senderAwareRoute>, ids: readonly string[], from: 'A' | 'B'): Promise<void> {
    for (const id of ids) {
      expect(route.arrivals.filter((a) => a.id === id).map((a) => a.from), `arrivals of ${id}`).toEqual([from]);
      for (const api of [pair.apiA, pair.apiB]) expect(await outcomeOf(api, id), `${id} through ${api.baseUrl}`).toEqual({ status: 'succeeded', attempts: [[1, 'succeeded', 200]] });
    }
  }

  async function cancelledOnTime(through: 'A' | 'B'): Promise<void> {
    const name = `/cancelled-through-${through}-${++path}`;
    const route = senderAwareRoute(dest, name, pair, () => false);
    const dropsAtStart = pair.watchB.drops();
    const batch = await acceptThroughB(`${pair.url}${name}`, true);

    const api = through === 'A' ? pair.apiA : pair.apiB;
    for (const id of batch.cancelled) {
      const res = await api.call<{ status: string }>('POST', `/requests/${id}/cancel`);
      expect([res.status, res.body.data.status], `cancel of ${id}`).toEqual([202, 'cancellation_requested']);
    }
    // Without this the case shows nothing: B would have claimed them before any cancel was asked for.
    expect(Date.now() < batch.dueAt, 'every cancel answered before the requests were due').toBe(true);

    await settledArrivals(route.arrivals, [...batch.kept, ...batch.closing], QUIET_MS, 60_000);
    expectBHeldItsShards(batch.bShards, dropsAtStart);
    expect(route.arrivals.filter((a) => batch.cancelled.includes(a.id)), 'cancelled requests that reached the destination').toEqual([]);
    for (const id of batch.cancelled) {
      for (const reader of [pair.apiA, pair.apiB]) expect(await outcomeOf(reader, id), `${id} through ${reader.baseUrl}`).toEqual({ status: 'cancelled', attempts: [] });
    }
    await expectDeliveredOnce(route, [...batch.kept, ...batch.closing], 'B');
  }

  it('a cancel asked for through the other process stops the owner delivering the request from memory', async () => {
    await cancelledOnTime('A');
  }, 120_000);

  it('a cancel asked for through the owner itself stops it delivering the request from memory', async () => {
    await cancelledOnTime('B');
  }, 120_000);

  it('requests nobody cancelled, accepted and due like those, arrive exactly once, from the owner of their shard', async () => {
    const name = `/not-cancelled-${++path}`;
    const route = senderAwareRoute(dest, name, pair, () => false);
    const dropsAtStart = pair.watchB.drops();
    const batch = await acceptThroughB(`${pair.url}${name}`, false);

    await settledArrivals(route.arrivals, [...batch.kept, ...batch.closing, ...batch.elsewhere], QUIET_MS, 60_000);
    expectBHeldItsShards(batch.bShards, dropsAtStart);
    await expectDeliveredOnce(route, [...batch.kept, ...batch.closing], 'B');
    await expectDeliveredOnce(route, batch.elsewhere, 'A');
    expect(pair.gate.unattributed, 'connections the gate could not attribute to A or B').toBe(0);
  }, 120_000);
});
