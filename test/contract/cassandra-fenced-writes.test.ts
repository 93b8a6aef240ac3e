import { afterEach, describe, expect, it } from 'vitest';
import { CassandraShardFence } from '../../src/adapters/cassandra/ownership/shard-fence.js';
import { CassandraRequestStore } from '../../src/adapters/cassandra/requests/store.js';
import { systemClock } from '../../src/domain/clock.js';
import { VersionConflict } from '../../src/ports/requests.js';
import type { ShardEpochs } from '../../src/ports/shard-epochs.js';
import { PROJECT_A, aRequest, anAttempt, settled, succeededAt } from './suite/harness.js';
import { holdingEveryShard, scratchCassandraBackend } from './suite/scratch-cassandra.js';

const SHARDS = 4;
const LEASE_MS = 60_000;

// Cassandra only: the owner of a shard changes its requests with plain writes at owner timestamps, which rank
// every later epoch above every earlier one. Stores on one keyspace play processes that held the shards in turn.
describe('Cassandra owner writes fenced by shard epochs', () => {
  const open = scratchCassandraBackend('fenced', SHARDS, 0);
  const stores: CassandraRequestStore[] = [];
  const processHolding = (epochs: ShardEpochs) => {
    const store = new CassandraRequestStore(open().session, { shardCount: SHARDS, claimStoredAfterMs: 0, epochs });
    stores.push(store);
    return store;
  };
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
  });

  it('lets no change of an owner that lost the shard win over the new owner, whenever it lands', async () => {
    const old = processHolding(holdingEveryShard(5));
    const next = processHolding(holdingEveryShard(6));
    const now = Date.now();
    const r = aRequest({ createdAt: now, dueAt: now });
    await old.insertMany([r]);
    const [oldClaim] = await old.claimDue(now, 10, now + LEASE_MS);
    expect(oldClaim?.request.id).toBe(r.id);

    // The old owner pauses; the next one takes the expired lease over and delivers.
    const [taken] = await next.claimDue(now + LEASE_MS, 10, now + 2 * LEASE_MS);
    expect(taken?.request).toMatchObject({ id: r.id, version: oldClaim!.request.version + 1 });
    const theirs = anAttempt(r.id, 1, { status: 'succeeded', responseStatusCode: 200 });
    await next.recordAttempt(taken!, settled(theirs, succeededAt(now + LEASE_MS + 5)));

    // The old owner wakes up not knowing: its write lands after, and loses every cell.
    await old.recordAttempt(oldClaim!, settled(anAttempt(r.id, 1, { status: 'errored' }), { status: 'queued', attemptCount: 1, dueAt: now + 5, updatedAt: now + 5 }));
    expect(await next.get(PROJECT_A, r.id)).toMatchObject({ status: 'succeeded', attemptCount: 1, dueAt: null, version: taken!.request.version + 1 });
    expect(await next.listAttempts(PROJECT_A, r.id)).toEqual([theirs]);
    expect(await next.claimDue(now + 3 * LEASE_MS, 10, now + 4 * LEASE_MS)).toEqual([]);
  });

  it("lists a request under the new owner's status code, never under one an owner that lost the shard wrote later", async () => {
    const old = processHolding(holdingEveryShard(9));
    const next = processHolding(holdingEveryShard(10));
    const now = Date.now();
    const r = aRequest({ createdAt: now, dueAt: now });
    await old.insertMany([r]);
    const [oldClaim] = await old.claimDue(now, 10, now + LEASE_MS);
    const [taken] = await next.claimDue(now + LEASE_MS, 10, now + 2 * LEASE_MS);
    const retry = { status: 'queued', attemptCount: 1, dueAt: now + 3 * LEASE_MS, updatedAt: now + 3 } as const;
    await next.recordAttempt(taken!, settled(anAttempt(r.id, 1, { status: 'failed', responseStatusCode: 503 }), { ...retry, lastStatusCode: 503 }));
    // Lands after, under a lower timestamp: its code's row is written, but the request keeps the new owner's code.
    await old.recordAttempt(oldClaim!, settled(anAttempt(r.id, 1, { status: 'failed', responseStatusCode: 500 }), { ...retry, lastStatusCode: 500 }));
    const listed = async (code: number) => (await next.list({ projectId: PROJECT_A, responseStatusCode: code, terminalCutoff: 0, limit: 10 })).map((x) => x.id);
    expect(await listed(503)).toEqual([r.id]);
    expect(await listed(500)).toEqual([]);
  });

  it('hides the attempt row of an owner that lost the shard until the new owner records that attempt itself', async () => {
    const old = processHolding(holdingEveryShard(7));
    const next = processHolding(holdingEveryShard(8));
    const now = Date.now();
    const r = aRequest({ createdAt: now, dueAt: now, attemptCount: 1, startedAt: now - 1 });
    await old.insertMany([r]);
    const [oldClaim] = await old.claimDue(now, 10, now + LEASE_MS);
    const [taken] = await next.claimDue(now + LEASE_MS, 10, now + 2 * LEASE_MS);

    // The old owner's record lands while the new owner's attempt is in flight: a row numbered past the count.
    await old.recordAttempt(oldClaim!, settled(anAttempt(r.id, 2, { status: 'succeeded' }), { ...succeededAt(now + 2), attemptCount: 2 }));
    expect(await next.listAttempts(PROJECT_A, r.id)).toEqual([]);
    expect(await next.get(PROJECT_A, r.id)).toMatchObject({ status: 'delivering', attemptCount: 1, dueAt: now + 2 * LEASE_MS });

    const theirs = anAttempt(r.id, 2, { status: 'errored' });
    await next.recordAttempt(taken!, settled(theirs, { status: 'queued', attemptCount: 2, dueAt: now + 3 * LEASE_MS, updatedAt: now + 3 }));
    expect(await next.listAttempts(PROJECT_A, r.id)).toEqual([theirs]);
    expect(await next.get(PROJECT_A, r.id)).toMatchObject({ status: 'queued', attemptCount: 2 });
  });

  it('makes no owner change in a process that does not hold the shard', async () => {
    let holding = true;
    const everyShard = holdingEveryShard(9);
    const holder = processHolding({ held: (shard) => (holding ? everyShard.held(shard) : null) });
    const bystander = processHolding({ held: () => null });
    const now = Date.now();
    const r = aRequest({ createdAt: now, dueAt: now });
    await holder.insertMany([r]);

    expect(await bystander.claimDue(now, 10, now + LEASE_MS)).toEqual([]);
    const [claim] = await holder.claimDue(now, 10, now + LEASE_MS);
    const claimed = await holder.get(PROJECT_A, r.id);
    // The shard moves away while the claim is out: nothing the holder changes through it is written.
    holding = false;
    await expect(holder.handBack(claim!, now + 1, now + 2)).rejects.toBeInstanceOf(VersionConflict);
    await expect(holder.recordAttempt(claim!, settled(anAttempt(r.id, 1), succeededAt(now)))).rejects.toBeInstanceOf(VersionConflict);
    expect(await holder.get(PROJECT_A, r.id)).toStrictEqual(claimed);
    // A cancel needs no shard.
    expect(await bystander.requestCancel(PROJECT_A, r.id, now + 1)).toBe(true);
    expect(await holder.get(PROJECT_A, r.id)).toMatchObject({ status: 'delivering', cancelRequestedAt: now + 1 });
  });

  it('wakes held requests only in shards it holds, moving their timers so the next owner finds them due', async () => {
    let holding = true;
    const everyShard = holdingEveryShard(11);
    const holder = processHolding({ held: (shard) => (holding ? everyShard.held(shard) : null) });
    const now = Date.now();
    const r = aRequest({ createdAt: now, dueAt: now });
    await holder.insertMany([r]);
    const [claim] = await holder.claimDue(now, 10, now + LEASE_MS);
    await holder.handBack(claim!, now + 1, now + 3_600_000, { kind: 'queue', name: 'default', reason: 'paused', since: now + 1 });
    const held = await holder.get(PROJECT_A, r.id);

    holding = false;
    expect(await holder.wakeHeld([r.id], now + 2)).toBe(0);
    expect(await holder.get(PROJECT_A, r.id)).toStrictEqual(held);
    holding = true;
    expect(await holder.wakeHeld([r.id], now + 2)).toBe(1);

    // Another process, taking the shard next, finds it due through its timer, not the holder's memory.
    const next = processHolding(holdingEveryShard(12));
    const [taken] = await next.claimDue(now + 2, 10, now + LEASE_MS);
    expect(taken?.request).toMatchObject({ id: r.id, waitingFor: null, version: held!.version + 2 });
  });

  it('keeps an owner change over a late insert of the same request', async () => {
    const owner = processHolding(holdingEveryShard(10));
    const now = Date.now();
    const r = aRequest({ createdAt: now, dueAt: now });
    await owner.insertMany([r]);
    const [claimed] = await owner.claimDue(now, 10, now + LEASE_MS);
    await owner.recordAttempt(claimed!, settled(anAttempt(r.id, 1, { status: 'succeeded' }), succeededAt(now + 1)));
    await owner.insertMany([r]);
    expect(await owner.get(PROJECT_A, r.id)).toMatchObject({ status: 'succeeded', attemptCount: 1 });
  });

  it('raises a shard epoch for each new holder, and tells a holder which of its shards another took since', async () => {
    const fence = new CassandraShardFence(open().session, systemClock);
    // Shards far above this file's others: the fence's table is shared by the keyspace.
    const [a, b, never] = [1000, 1001, 1002];
    const first = await fence.acquire(a, 'one');
    const other = await fence.acquire(b, 'one');
    expect(await fence.superseded(new Map([[a, first], [b, other]]))).toEqual(new Map());

    const taken = await fence.acquire(a, 'two');
    expect(taken).toBe(first + 1);
    expect(await fence.superseded(new Map([[a, first], [b, other]]))).toEqual(new Map([[a, taken]]));
    expect(await fence.superseded(new Map([[a, taken]]))).toEqual(new Map());
    // An epoch read lower than the one held, or none, is a read that missed the holder's own raise: no takeover.
    expect(await fence.superseded(new Map([[a, taken + 1]]))).toEqual(new Map());
    expect(await fence.superseded(new Map([[never, 1]]))).toEqual(new Map());
    expect(await fence.superseded(new Map())).toEqual(new Map());
  });
});
