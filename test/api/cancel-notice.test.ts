import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/api-client.js';
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
/**
 * How long B must have held its shards before requests accepted through A are created, for it to keep those its
 * notices carry in memory: the 10 s the owner allows for clocks that differ, and a margin.
 */
const HELD_BEFORE_CREATED_MS = 12_000;
/** How long B is kept paused at most, well below the group's session timeout (6 s in tests). */
const PAUSED_AT_MOST_MS = 2_500;

describe.skipIf(TEST_BACKEND !== 'cassandra')('a cancel reaches the owner that holds the request in memory', () => {
  let dest: Destination;
  let pair: OwnerPair;
  let path = 0;

  beforeAll(async () => {
    dest = await startDestination();
    pair = await startOwnerPair(dest, {
      // Requests accepted through one process must land in the other's shards too, as those placed by a flow key
      // or a limited queue do: spread them by their IDs.
      FERRY_PLACEMENT: 'spread',
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

  it.concurrent('a cancel asked for through the other process stops the owner delivering the request from memory', async () => {
    await cancelledOnTime('A');
  }, 120_000);

  it.concurrent('a cancel asked for through the owner itself stops it delivering the request from memory', async () => {
    await cancelledOnTime('B');
  }, 120_000);

  it.concurrent('requests nobody cancelled, accepted and due like those, arrive exactly once, from the owner of their shard', async () => {
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

  // Alone, after the others: it pauses B.
  it('cancels asked for through either process stop the owner delivering requests the other process accepted into its shards', async () => {
    const name = `/accepted-through-A-${++path}`;
    const url = `${pair.url}${name}`;
    const route = senderAwareRoute(dest, name, pair, () => false);
    // The owner keeps what the notices carry only from shards it held well before the requests were created.
    await eventually(async () => {
      const since = pair.watchB.takenAt().at(-1) ?? Number.POSITIVE_INFINITY;
      return pair.watchB.owned().length > 0 && Date.now() - since >= HELD_BEFORE_CREATED_MS ? true : undefined;
    }, HELD_BEFORE_CREATED_MS + 30_000);
    const dropsAtStart = pair.watchB.drops();
    const bShards = [...pair.watchB.owned()];
    const inB = (r: DueRequest) => bShards.includes(r.shard);

    // Each cancel is asked for right after its request was accepted. First, with B paused, requests cancelled through
    // A beside as many kept: B reads their work and cancel notices together, and takes the cancels first, as it would
    // a cancel notice that overtook a work notice. Then, with B running, cancels through B and through A, the work
    // notices on their way to B or already there.
    const cancelledThrough = { A: [] as string[], B: [] as string[] };
    const kept: string[] = [];
    const inTurn = (turns: ReadonlyArray<'A' | 'B' | 'kept'>) => {
      let taken = 0;
      const then = async (r: DueRequest) => {
        if (!inB(r)) return;
        const turn = turns[taken++ % turns.length]!;
        if (turn === 'kept') {
          kept.push(r.id);
          return;
        }
        const res = await (turn === 'A' ? pair.apiA : pair.apiB).call<{ status: string }>('POST', `/requests/${r.id}/cancel`);
        expect([res.status, res.body.data.status], `cancel of ${r.id} through ${turn}`).toEqual([202, 'cancellation_requested']);
        cancelledThrough[turn].push(r.id);
      };
      return { then, taken: () => taken };
    };
    const dueAt = Date.now() + DUE_IN_MS;
    const whileBPaused = inTurn(['A', 'kept']);
    const pausedAt = Date.now();
    process.kill(pair.b.child.pid!, 'SIGSTOP');
    let first: DueRequest[];
    try {
      // Well within the group's session timeout, so B keeps its shards.
      const enough = () => whileBPaused.taken() >= CANCELLED || (whileBPaused.taken() > 0 && Date.now() - pausedAt >= PAUSED_AT_MOST_MS);
      first = await acceptDueAt(pair.apiA, url, dueAt, enough, whileBPaused.then);
    } finally {
      process.kill(pair.b.child.pid!, 'SIGCONT');
    }
    const whileBRuns = inTurn(['B', 'kept', 'B', 'kept', 'A', 'kept']);
    first.push(...(await acceptDueAt(pair.apiA, url, dueAt, () => whileBRuns.taken() >= 3 * CANCELLED, whileBRuns.then)));
    // Without this the case shows nothing: B would have claimed them before any cancel was asked for.
    expect(Date.now() < dueAt, 'every cancel answered before the requests were due').toBe(true);
    const shards = [...new Set(first.filter(inB).map((r) => r.shard))];
    const after = await acceptDueAt(pair.apiA, url, dueAt + CLOSING_AFTER_MS, (acc) => shards.every((s) => acc.some((r) => r.shard === s)));
    const closing = shards.map((s) => after.find((r) => r.shard === s)!.id);
    const elsewhere = [...first, ...after].filter((r) => !inB(r)).map((r) => r.id);
    const cancelled = [...cancelledThrough.A, ...cancelledThrough.B];

    await settledArrivals(route.arrivals, [...kept, ...closing, ...elsewhere], QUIET_MS, 60_000);
    expectBHeldItsShards(bShards, dropsAtStart);
    expect(route.arrivals.filter((a) => cancelled.includes(a.id)), 'cancelled requests that reached the destination').toEqual([]);
    for (const id of cancelled) {
      for (const reader of [pair.apiA, pair.apiB]) expect(await outcomeOf(reader, id), `${id} through ${reader.baseUrl}`).toEqual({ status: 'cancelled', attempts: [] });
    }
    await expectDeliveredOnce(route, [...kept, ...closing], 'B');
    await expectDeliveredOnce(route, elsewhere, 'A');
  }, 150_000);
});
