import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openCassandraBackend, type CassandraBackend } from '../../src/adapters/cassandra/backend.js';
import { errors, type types } from 'cassandra-driver';
import { CONSISTENCY, type CassandraSession } from '../../src/adapters/cassandra/session.js';
import { StorageUnavailable } from '../../src/ports/errors.js';
import { PROJECT_A, aRequest, anAttempt, settled, succeededAt } from './suite/harness.js';
import { infra } from '../support/infra.js';
import { holdingEveryShard, scratchCassandraBackend } from './suite/scratch-cassandra.js';

const SHARDS = 4;
const LEASE_MS = 60_000;

// Cassandra only: a claim stays in the claiming process and is stored with the request's next change, or once it
// has been held `claimStoredAfterMs`. A second backend on the same keyspace plays another process.
describe('Cassandra claims held in the claiming process', () => {
  const open = scratchCassandraBackend('held', SHARDS, 60_000);
  let other: CassandraBackend;
  let quick: CassandraBackend;
  let storing: CassandraBackend;
  // Each plays a process that took every shard after the one before (the scratch backend holds them at epoch 1).
  const reopen = (claimStoredAfterMs: number, epoch: number) =>
    openCassandraBackend({
      ...infra.cassandra.connection(open().session.keyspace),
      shardCount: SHARDS,
      claimStoredAfterMs,
      epochs: holdingEveryShard(epoch),
    });
  beforeAll(async () => {
    other = await reopen(60_000, 2);
    quick = await reopen(50, 3);
    storing = await reopen(0, 4);
  });
  afterAll(async () => {
    await other.close();
    await quick.close();
    await storing.close();
  });

  const timersOf = async (id: string) => {
    const rs = await open().session.read(`SELECT request_id FROM ${open().session.table('timers')}`, [], 'reading timers', 5000);
    return rs.rows.filter((row) => row['request_id'] === id).length;
  };
  /** Waits until `backend` claims `id`; requests other cases left due in the keyspace may be claimed on the way. */
  const claimedSoon = async (backend: CassandraBackend, id: string) => {
    const claimed = new Set<string>();
    await expect
      .poll(
        async () => {
          for (const c of await backend.requests.claimDue(Date.now(), 10, Date.now() + LEASE_MS)) claimed.add(c.request.id);
          return claimed.has(id);
        },
        { timeout: 10_000 },
      )
      .toBe(true);
  };
  /**
   * Sends the `execute` calls `backend` makes `during` to `fault`, which may still pass one on with `pass`; other
   * calls go through. Returns the spy, for its calls and to restore.
   */
  const faultDuring = (
    backend: CassandraBackend,
    during: string,
    fault: (pass: () => Promise<types.ResultSet>, query: string, options: Parameters<CassandraSession['execute']>[3]) => Promise<types.ResultSet>,
  ) => {
    const session = backend.session;
    const execute = session.execute.bind(session);
    return vi.spyOn(session, 'execute').mockImplementation((query, params, callDuring, options) => {
      const pass = () => execute(query, params, callDuring, options);
      return callDuring === during ? fault(pass, query, options) : pass();
    });
  };

  it('leaves the timers of held claims out of the next due time', async () => {
    const store = open().requests;
    const now = Date.now();
    const first = aRequest({ createdAt: now });
    const later = aRequest({ createdAt: now, updatedAt: now, status: 'scheduled', dueAt: now + 5_000 });
    await store.insertMany([first, later]);
    const [held] = await store.claimDue(now + 1, 1, now + LEASE_MS);
    expect(held?.request.id).toBe(first.id);
    expect(await store.nextDueAt()).toBe(now + 5_000);
    expect(await other.requests.nextDueAt()).toBe(now);

    const attempt = anAttempt(first.id, 1, { status: 'succeeded', responseStatusCode: 200 });
    await store.recordAttempt(held!, settled(attempt, succeededAt(now + 5)));
    const [next] = await store.claimDue(now + 5_000, 1, now + LEASE_MS);
    expect(next?.request.id).toBe(later.id);
    await store.recordAttempt(next!, settled(anAttempt(later.id, 1, { status: 'succeeded', responseStatusCode: 200 }), succeededAt(now + 5_006)));
    await expect.poll(() => Promise.all([timersOf(first.id), timersOf(later.id)]), { timeout: 10_000 }).toEqual([0, 0]);
  });

  it('hands out the claim, stores nothing until the outcome, then stores claim and outcome in one change', async () => {
    const store = open().requests;
    const now = Date.now();
    const r = aRequest({ createdAt: now });
    await store.insertMany([r]);

    const [claimed] = await store.claimDue(now + 1, 10, now + LEASE_MS);
    expect(claimed?.request).toStrictEqual({ ...r, status: 'delivering', dueAt: now + LEASE_MS, updatedAt: now + 1, startedAt: now + 1, version: 2 });
    expect(await store.get(PROJECT_A, r.id)).toStrictEqual(r);
    expect(await store.claimDue(now + 2, 10, now + LEASE_MS)).toEqual([]);

    const attempt = anAttempt(r.id, 1, { status: 'succeeded', responseStatusCode: 200 });
    const done = await store.recordAttempt(claimed!, settled(attempt, succeededAt(now + 5)));
    const expected = { ...r, ...succeededAt(now + 5), startedAt: now + 1, version: 3 };
    expect(done).toStrictEqual({ status: expected.status, dueAt: expected.dueAt, version: expected.version });
    expect(await store.get(PROJECT_A, r.id)).toStrictEqual(expected);
    expect(await store.listAttempts(PROJECT_A, r.id)).toEqual([attempt]);
    await expect.poll(() => timersOf(r.id), { timeout: 10_000 }).toBe(0);
  });

  it('leaves a request held by a process that died due at once for the next one, and fences the dead claim', async () => {
    const now = Date.now();
    const r = aRequest({ createdAt: now });
    await open().requests.insertMany([r]);
    const [held] = await open().requests.claimDue(now + 1, 10, now + LEASE_MS);

    const [taken] = await other.requests.claimDue(now + 2, 10, now + LEASE_MS);
    expect(taken?.request.id).toBe(r.id);
    const theirs = anAttempt(r.id, 1, { status: 'succeeded', responseStatusCode: 200 });
    await other.requests.recordAttempt(taken!, settled(theirs, succeededAt(now + 3)));
    const stored = await other.requests.get(PROJECT_A, r.id);
    // The dead process, had it woken up, would not know: its write is made, and loses every cell.
    await open().requests.recordAttempt(held!, settled(anAttempt(r.id, 1, { responseStatusCode: 503 }), { status: 'queued', attemptCount: 1, dueAt: now + 5, updatedAt: now + 5 }));
    expect(await open().requests.listAttempts(PROJECT_A, r.id)).toEqual([theirs]);
    expect(await open().requests.get(PROJECT_A, r.id)).toStrictEqual(stored);
  });

  it('settles a held claim cancelled by a cancel that saw the request queued: a success stays, a failure ends cancelled', async () => {
    const now = Date.now();
    const ok = aRequest({ createdAt: now, dueAt: now - 1 });
    const failing = aRequest({ createdAt: now, dueAt: now });
    await open().requests.insertMany([ok, failing]);
    // Requests other cases left due in the keyspace may be claimed too.
    const held = (await open().requests.claimDue(now + 1, 10, now + LEASE_MS)).filter((h) => h.request.id === ok.id || h.request.id === failing.id);
    expect(held.map((h) => h.request.id)).toEqual([ok.id, failing.id]);
    for (const r of [ok, failing]) {
      expect(await other.requests.requestCancel(PROJECT_A, r.id, now + 2)).toBe(true);
      expect(await open().requests.get(PROJECT_A, r.id)).toMatchObject({ status: 'cancelled', cancelledAt: now + 2 });
    }

    await open().requests.recordAttempt(held[0]!, settled(anAttempt(ok.id, 1, { status: 'succeeded' }), succeededAt(now + 5)));
    await open().requests.recordAttempt(held[1]!, settled(anAttempt(failing.id, 1), { status: 'failed', attemptCount: 1, completedAt: now + 5, updatedAt: now + 5, dueAt: null }));
    expect(await open().requests.get(PROJECT_A, ok.id)).toMatchObject({ status: 'succeeded', attemptCount: 1 });
    expect(await open().requests.get(PROJECT_A, failing.id)).toMatchObject({ status: 'cancelled', cancelledAt: now + 2, attemptCount: 1 });
  });

  it('stores a claim held past its time as claimed, so a long attempt shows as delivering', async () => {
    const now = Date.now();
    const r = aRequest({ createdAt: now });
    await quick.requests.insertMany([r]);
    const [claimed] = await quick.requests.claimDue(now + 1, 10, now + LEASE_MS);

    await expect.poll(() => other.requests.get(PROJECT_A, r.id), { timeout: 10_000 }).toStrictEqual(claimed!.request);
    expect(await other.requests.claimDue(now + 2, 10, now + LEASE_MS)).toEqual([]);
    const done = await quick.requests.recordAttempt(claimed!, settled(anAttempt(r.id, 1, { status: 'succeeded' }), succeededAt(now + 5)));
    expect(done).toStrictEqual({ status: 'succeeded', dueAt: null, version: claimed!.request.version + 1 });
    expect(await quick.requests.get(PROJECT_A, r.id)).toMatchObject({ status: 'succeeded', startedAt: now + 1, version: claimed!.request.version + 1 });
    await expect.poll(() => timersOf(r.id), { timeout: 10_000 }).toBe(0);
  });

  it('holds again a claim whose change failed unanswered, so that the change can be tried again', async () => {
    const store = open().requests;
    const now = Date.now();
    const r = aRequest({ createdAt: now });
    await store.insertMany([r]);
    const [claimed] = await store.claimDue(now + 1, 10, now + LEASE_MS);
    const attempt = anAttempt(r.id, 1, { status: 'succeeded', responseStatusCode: 200 });

    const batch = vi.spyOn(open().session, 'batch').mockRejectedValueOnce(new Error('storage unreachable (injected)'));
    try {
      await expect(store.recordAttempt(claimed!, settled(attempt, succeededAt(now + 5)))).rejects.toThrow('injected');
    } finally {
      batch.mockRestore();
    }
    expect(await store.get(PROJECT_A, r.id)).toStrictEqual(r);
    expect(await store.claimDue(now + 2, 10, now + LEASE_MS)).toEqual([]);

    const done = await store.recordAttempt(claimed!, settled(attempt, succeededAt(now + 6)));
    expect(done).toStrictEqual({ status: 'succeeded', dueAt: null, version: claimed!.request.version + 1 });
    expect(await store.listAttempts(PROJECT_A, r.id)).toEqual([attempt]);
  });

  it('drops a claim it could not store once the lease is over, leaving the request due for the next claim', async () => {
    const now = Date.now();
    const r = aRequest({ createdAt: now });
    await quick.requests.insertMany([r]);
    const storing = faultDuring(quick, 'storing a claim', () => Promise.reject(new Error('storage unreachable (injected)')));
    try {
      const [claimed] = await quick.requests.claimDue(now + 1, 10, now + 500);
      expect(claimed?.request.id).toBe(r.id);
      await expect.poll(() => storing.mock.calls.filter((c) => c[2] === 'storing a claim').length, { timeout: 10_000 }).toBeGreaterThan(1);
      await claimedSoon(quick, r.id);
    } finally {
      storing.mockRestore();
    }
  });

  it('makes a stored claim whose answer was lost due again once storage answers, instead of leaving it to its lease', async () => {
    const now = Date.now();
    const r = aRequest({ createdAt: now });
    await storing.requests.insertMany([r]);
    // The claim lands, but its answer is lost with the connection, and the serial read that would tell fails too.
    const socketClosed = Object.assign(new errors.OperationTimedOutError('socket closed (injected)'), { isSocketError: true });
    const lost = faultDuring(storing, 'claiming a request', async (pass, query, options) => {
      if (options?.consistency === CONSISTENCY.serial) throw new StorageUnavailable('read failed (injected)');
      if (!query.startsWith('UPDATE')) return pass();
      await pass();
      throw new StorageUnavailable('answer lost (injected)', { cause: socketClosed });
    });
    try {
      await expect(storing.requests.claimDue(now + 1, 10, now + LEASE_MS)).rejects.toThrow('injected');
    } finally {
      lost.mockRestore();
    }
    expect(await other.requests.get(PROJECT_A, r.id)).toMatchObject({ status: 'delivering', dueAt: now + LEASE_MS });

    await claimedSoon(storing, r.id);
  });
});
