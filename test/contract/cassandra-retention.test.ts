import { describe, expect, it } from 'vitest';
import type { CassandraBackend } from '../../src/adapters/cassandra/backend.js';
import { CassandraRequestStore } from '../../src/adapters/cassandra/requests/store.js';
import type { CassandraSession } from '../../src/adapters/cassandra/session.js';
import { eventually } from '../support/api-client.js';
import { clockAt } from '../support/fake-clock.js';
import type { RequestPatch } from '../../src/domain/request.js';
import { PROJECT_A, PROJECT_B, aRequest, anAttempt, settled } from './suite/harness.js';
import { holdingEveryShard, scratchCassandraBackend } from './suite/scratch-cassandra.js';

const DAY = 86_400_000;
const SHARDS = 4;
const PROJECT_C = 'prj_contract_c';
const PROJECT_D = 'prj_contract_d';

async function timersOfRequest(backend: CassandraBackend, id: string): Promise<number> {
  const rs = await backend.session.read(`SELECT request_id FROM ${backend.session.table('timers')}`, [], 'reading timers', 5000);
  return rs.rows.filter((row) => row['request_id'] === id).length;
}

async function createProject(backend: CassandraBackend, id: string, retentionDays: number): Promise<void> {
  await backend.projects.createProject({ id, name: id, monthlyAllowance: 10, scheduleAllowance: 1, retentionDays, captureResponseBodies: true, createdAt: Date.now() });
}

type Batch = CassandraSession['batch'];

/** Sends the store's retention rewrites through `rewrite` (given the real write) until the result is called. */
function interceptRewrites(session: CassandraSession, rewrite: (write: () => ReturnType<Batch>) => ReturnType<Batch>): () => void {
  const batch = session.batch.bind(session);
  session.batch = (statements, during, options) =>
    during === 'expiring requests' ? rewrite(() => batch(statements, during, options)) : batch(statements, during, options);
  return () => {
    session.batch = batch;
  };
}

const succeeded = { status: 'succeeded', dueAt: null, attemptCount: 1 } as const;

/** Claims request `id`, due by `at` (with whatever else is due then), and records attempt `n` of it with `change`. */
async function recordAt(backend: CassandraBackend, id: string, at: number, n: number, status: 'failed' | 'succeeded', change: RequestPatch): Promise<void> {
  const claim = (await backend.requests.claimDue(at, 100, at + 60_000)).find((c) => c.request.id === id);
  expect(claim, `claim of ${id}`).toBeDefined();
  await backend.requests.recordAttempt(claim!, settled(anAttempt(id, n, { status }), change));
}

/**
 * Ends `id` (just inserted, due now) at its second attempt: a first that failed, then one that succeeded. An
 * ending after an earlier attempt is rewritten on its own, once the earlier attempts are read.
 */
async function endAtSecondAttempt(backend: CassandraBackend, id: string, retryAt: number): Promise<void> {
  await recordAt(backend, id, Date.now(), 1, 'failed', { status: 'queued', dueAt: retryAt, attemptCount: 1 });
  await recordAt(backend, id, retryAt, 2, 'succeeded', { status: 'succeeded', dueAt: null, attemptCount: 2 });
}

// Cassandra only: finished history is deleted by TTL when the project's retention would hide it.
describe('Cassandra request retention through TTL', () => {
  const open = scratchCassandraBackend('ttl', SHARDS);

  it('deletes a request, its attempts and its list entry once retention has passed since its creation', async () => {
    const backend = open();
    const now = Date.now();
    await createProject(backend, PROJECT_A, 1);
    await createProject(backend, PROJECT_B, 30);
    // Created a day ago less three seconds: hidden by the cutoff three seconds from now.
    const expiring = aRequest({ projectId: PROJECT_A, createdAt: now - DAY + 3_000, dueAt: now, body: new Uint8Array([1, 2]) });
    const kept = aRequest({ projectId: PROJECT_B, createdAt: now - DAY + 3_000, dueAt: now });
    const active = aRequest({ projectId: PROJECT_A, createdAt: now - DAY + 3_000, dueAt: now + DAY });
    await backend.requests.insertMany([expiring, kept, active]);
    const claims = await backend.requests.claimDue(now, 100, now + 60_000);
    for (const r of [expiring, kept]) {
      await backend.requests.recordAttempt(claims.find((c) => c.request.id === r.id)!, settled(anAttempt(r.id, 1, { status: 'succeeded' }), succeeded));
    }

    await eventually(async () => ((await backend.requests.get(PROJECT_A, expiring.id)) === null ? true : undefined), 20_000);
    expect(await backend.requests.listAttempts(PROJECT_A, expiring.id)).toEqual([]);
    const listed = await backend.requests.list({ projectId: PROJECT_A, terminalCutoff: 0, limit: 10 });
    expect(listed.map((r) => r.id)).toEqual([active.id]);

    // Another project's longer retention, and a request that has not ended, keep theirs.
    expect((await backend.requests.get(PROJECT_B, kept.id))?.status).toBe('succeeded');
    expect(await backend.requests.listAttempts(PROJECT_B, kept.id)).toHaveLength(1);
    expect((await backend.requests.get(PROJECT_A, active.id))?.status).toBe('queued');
  }, 60_000);

  it('gives a request that ends at its first attempt its time to live in that very write, with no rewrite after', async () => {
    const backend = open();
    const { session, requests } = backend;
    const now = Date.now();
    await createProject(backend, PROJECT_D, 30);
    const r = aRequest({ projectId: PROJECT_D, createdAt: now, dueAt: now, body: new Uint8Array([7, 7]), flowKeys: ['customer:7'] });
    await requests.insertMany([r]);
    let rewrites = 0;
    const restore = interceptRewrites(session, (write) => {
      rewrites++;
      return write();
    });
    try {
      await recordAt(backend, r.id, now, 1, 'succeeded', { ...succeeded, lastStatusCode: 200 });
      const ttlOf = async (column: string, where = '') =>
        (await session.read(`SELECT TTL(${column}) AS ttl FROM ${session.table('requests')} WHERE id = ? ${where} LIMIT 1`, [r.id], 'reading a TTL', 5000)).first()?.['ttl'] as number | null;
      const thirtyDays = 30 * 86_400;
      for (const column of ['url', 'status', 'body', 'flow_keys']) expect(await ttlOf(column)).toBeGreaterThan(thirtyDays - 120);
      expect(await ttlOf('attempt_status', 'AND attempt_number = 1')).toBeGreaterThan(thirtyDays - 120);
      const entry = await session.read(`SELECT TTL(url_lower) AS ttl FROM ${session.table('requests_by_project')} WHERE project_id = ? AND day = ?`, [PROJECT_D, Math.floor(now / DAY)], 'reading a TTL', 5000);
      expect(entry.first()?.['ttl']).toBeGreaterThan(thirtyDays - 120);
      // The list's index rows expire with the entry: under its queue, its flow key and its status code.
      const day = Math.floor(now / DAY);
      for (const [table, key, value] of [['requests_by_queue', 'queue_name', 'default'], ['requests_by_flow_key', 'flow_key', 'customer:7'], ['requests_by_status_code', 'status_code', 200]] as const) {
        const row = await session.read(`SELECT TTL(url_lower) AS ttl FROM ${session.table(table)} WHERE project_id = ? AND ${key} = ? AND day = ?`, [PROJECT_D, value, day], 'reading a TTL', 5000);
        expect(row.first()?.['ttl'], table).toBeGreaterThan(thirtyDays - 120);
      }
      await expect.poll(() => timersOfRequest(backend, r.id), { timeout: 10_000 }).toBe(0);
      expect(rewrites).toBe(0);
      expect(await requests.get(PROJECT_D, r.id)).toMatchObject({ status: 'succeeded', body: new Uint8Array([7, 7]) });
    } finally {
      restore();
    }
  }, 60_000);

  it('passes over the timer of a request whose retention rewrite is under way without reading the request', async () => {
    const backend = open();
    const { session, requests } = backend;
    const now = Date.now();
    await createProject(backend, PROJECT_D, 30);
    const ended = aRequest({ projectId: PROJECT_D, createdAt: now, dueAt: now });
    const later = aRequest({ projectId: PROJECT_D, createdAt: now, status: 'scheduled', dueAt: now + DAY });
    await requests.insertMany([ended, later]);

    // The rewrite waits until the test lets it go.
    let letGo = () => {};
    const gate = new Promise<void>((resolve) => (letGo = resolve));
    let started = 0;
    const restore = interceptRewrites(session, async (write) => {
      started++;
      await gate;
      return write();
    });
    try {
      await endAtSecondAttempt(backend, ended.id, now + 1_000);
      await expect.poll(() => started, { timeout: 10_000 }).toBe(1);
      // The first attempt's timer goes at once; the retry's stays until the rewrite has landed.
      await expect.poll(() => timersOfRequest(backend, ended.id), { timeout: 10_000 }).toBe(1);
      const read = session.read.bind(session);
      let claimReads = 0;
      session.read = (query, params, during, timeoutMs) => {
        if (during === 'claiming a request') claimReads++;
        return read(query, params, during, timeoutMs);
      };
      try {
        expect(await requests.claimDue(Date.now(), 10, Date.now() + 60_000)).toEqual([]);
      } finally {
        session.read = read;
      }
      expect(claimReads).toBe(0);
    } finally {
      letGo();
      restore();
    }
    await expect.poll(() => timersOfRequest(backend, ended.id), { timeout: 10_000 }).toBe(0);
  }, 60_000);

  it('keeps the timer of an ended request whose rewrite failed, and makes the rewrite when a claim finds it stale', async () => {
    const backend = open();
    const { session, requests } = backend;
    const now = Date.now();
    await createProject(backend, PROJECT_C, 1);
    const r = aRequest({ projectId: PROJECT_C, createdAt: now - DAY + 3_000, dueAt: now });
    await requests.insertMany([r]);
    const timersOf = () => timersOfRequest(backend, r.id);

    // Cassandra refuses the retention rewrite (as when it times out, or the rewrite queue is full).
    let refused = 0;
    const restore = interceptRewrites(session, () => {
      refused++;
      return Promise.reject(new Error('refused by the test'));
    });
    try {
      await endAtSecondAttempt(backend, r.id, now + 1_000);
      await expect.poll(() => refused, { timeout: 10_000 }).toBeGreaterThan(0);
    } finally {
      restore();
    }
    await expect.poll(timersOf, { timeout: 10_000 }).toBe(1);
    const ttl = await session.read(`SELECT TTL(url) AS ttl FROM ${session.table('requests')} WHERE id = ? LIMIT 1`, [r.id], 'reading a TTL', 5000);
    expect(ttl.first()?.['ttl']).toBeNull();
    expect((await requests.get(PROJECT_C, r.id))?.status).toBe('succeeded');

    // A claim two minutes on (by the clock of a process that holds the shard) finds the timer stale: the rewrite is
    // made, then the timer dropped, as of a minute before the claim (a scan's deletions are dated back).
    const later = new CassandraRequestStore(session, { shardCount: SHARDS, clock: clockAt(() => Date.now() + 120_000), epochs: holdingEveryShard() });
    try {
      expect(await later.claimDue(Date.now() + 120_000, 10, Date.now() + 180_000)).toEqual([]);
      await eventually(async () => ((await requests.get(PROJECT_C, r.id)) === null ? true : undefined), 20_000);
      await expect.poll(timersOf, { timeout: 10_000 }).toBe(0);
    } finally {
      await later.close();
    }
  }, 60_000);
});
