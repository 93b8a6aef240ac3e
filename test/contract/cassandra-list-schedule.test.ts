import { describe, expect, it } from 'vitest';
import { dayOf } from '../../src/adapters/cassandra/requests/rows.js';
import type { StoredRequest } from '../../src/domain/request.js';
import { PROJECT_A, T0, aRequest, anAttempt, nextScheduleId, settled } from './suite/harness.js';
import { openCassandraBackend } from '../../src/adapters/cassandra/backend.js';
import { infra } from '../support/infra.js';
import { holdingEveryShard, scratchCassandraBackend } from './suite/scratch-cassandra.js';

const MINUTE = 60_000;

// Cassandra only: list entries carry the schedule since schema version 6, the queue and flow keys since 12; older
// entries carry none.
describe('Cassandra list entries and the schedule filter', () => {
  const open = scratchCassandraBackend('list_schedule', 4);

  /** Makes `r`'s list entry look as one written before entries carried the schedule. */
  async function asBeforeMigration(r: StoredRequest): Promise<void> {
    const { session } = open();
    await session.execute(
      `DELETE schedule_id FROM ${session.table('requests_by_project')} WHERE project_id = ? AND day = ? AND created_at = ? AND id = ?`,
      [r.projectId, dayOf(r.createdAt), r.createdAt, r.id],
      'clearing a list entry schedule',
    );
  }

  async function scheduleOfEntry(r: StoredRequest): Promise<{ scheduleId: string | null; ttl: number | null } | undefined> {
    const { session } = open();
    const rs = await session.read(
      `SELECT schedule_id, TTL(schedule_id) AS ttl FROM ${session.table('requests_by_project')} WHERE project_id = ? AND day = ? AND created_at = ? AND id = ?`,
      [r.projectId, dayOf(r.createdAt), r.createdAt, r.id],
      'reading a list entry',
      5000,
    );
    const row = rs.first();
    return row === null ? undefined : { scheduleId: row['schedule_id'] as string | null, ttl: row['ttl'] as number | null };
  }

  it("finds a schedule's requests whose entries were written before they carried it, and no one else's", async () => {
    const { requests } = open();
    const [mine, other] = [nextScheduleId(), nextScheduleId()];
    const at = (m: number, overrides: Partial<StoredRequest>) => aRequest({ createdAt: T0 + m * MINUTE, ...overrides });
    const oldMine = [at(0, { source: 'recurring', scheduleId: mine }), at(2, { source: 'recurring', scheduleId: mine, status: 'failed', dueAt: null })];
    const newMine = [at(1, { source: 'recurring', scheduleId: mine }), at(3, { source: 'recurring', scheduleId: mine })];
    const oldOther = at(4, { source: 'recurring', scheduleId: other });
    const oldApi = at(5, {});
    await requests.insertMany([...oldMine, ...newMine, oldOther, oldApi]);
    for (const r of [...oldMine, oldOther, oldApi]) await asBeforeMigration(r);
    expect(await scheduleOfEntry(oldMine[0]!)).toEqual({ scheduleId: null, ttl: null });
    expect((await scheduleOfEntry(newMine[0]!))?.scheduleId).toBe(mine);

    const ids = async (scheduleId: string, extra: { status?: 'failed'; limit?: number; after?: StoredRequest } = {}) =>
      (await requests.list({ projectId: PROJECT_A, scheduleId, terminalCutoff: 0, limit: 100, ...extra })).map((r) => r.id);
    const newest = [newMine[1]!, oldMine[1]!, newMine[0]!, oldMine[0]!].map((r) => r.id);
    expect(await ids(mine)).toEqual(newest);
    expect(await ids(mine, { status: 'failed' })).toEqual([oldMine[1]!.id]);
    expect(await ids(other)).toEqual([oldOther.id]);

    const paged: string[] = [];
    let after: StoredRequest | undefined;
    for (;;) {
      const page = await requests.list({ projectId: PROJECT_A, scheduleId: mine, terminalCutoff: 0, limit: 1, after });
      paged.push(...page.map((r) => r.id));
      if (page.length < 1) break;
      after = page.at(-1);
    }
    expect(paged).toEqual(newest);
  });

  it("finds a queue's or a flow key's requests whose entries were written before they carried them", async () => {
    const { session, requests } = open();
    const projectId = 'prj_contract_list_queue';
    const at = (m: number, overrides: Partial<StoredRequest>) => aRequest({ projectId, createdAt: T0 + m * MINUTE, ...overrides });
    const [oldBilling, newBilling, oldOther, newOther] = [
      at(0, { queue: 'billing', flowKeys: ['vendor:acme'] }),
      at(1, { queue: 'billing' }),
      at(2, { flowKeys: ['vendor:other'] }),
      at(3, { flowKeys: ['tenant:1', 'vendor:acme'] }),
    ];
    await requests.insertMany([oldBilling!, newBilling!, oldOther!, newOther!]);
    for (const r of [oldBilling!, oldOther!]) {
      await session.execute(
        `DELETE queue, flow_keys FROM ${session.table('requests_by_project')} WHERE project_id = ? AND day = ? AND created_at = ? AND id = ?`,
        [r.projectId, dayOf(r.createdAt), r.createdAt, r.id],
        'clearing a list entry queue',
      );
    }
    const ids = async (q: { queue?: string; flowKey?: string }) =>
      (await requests.list({ projectId, terminalCutoff: 0, limit: 100, ...q })).map((r) => r.id);
    expect(await ids({ queue: 'billing' })).toEqual([newBilling!.id, oldBilling!.id]);
    expect(await ids({ queue: 'default' })).toEqual([newOther!.id, oldOther!.id]);
    expect(await ids({ flowKey: 'vendor:acme' })).toEqual([newOther!.id, oldBilling!.id]);
    expect(await ids({ flowKey: 'vendor:acme', queue: 'billing' })).toEqual([oldBilling!.id]);
    expect(await ids({ flowKey: 'vendor:other' })).toEqual([oldOther!.id]);
  });

  it('writes the schedule again with the time to live when a request ends, into old entries too', async () => {
    const backend = open();
    const now = Date.now();
    await backend.projects.createProject({ id: 'prj_contract_ttl', name: 'ttl', monthlyAllowance: 10, scheduleAllowance: 1, retentionDays: 30, captureResponseBodies: true, createdAt: now });
    const scheduleId = nextScheduleId();
    const [fresh, old] = [0, 1].map(() => aRequest({ projectId: 'prj_contract_ttl', source: 'recurring', scheduleId, createdAt: now, dueAt: now }));
    await backend.requests.insertMany([fresh!, old!]);
    await asBeforeMigration(old!);
    const claims = await backend.requests.claimDue(now, 100, now + 60_000);
    for (const r of [fresh!, old!]) {
      const claim = claims.find((c) => c.request.id === r.id)!;
      await backend.requests.recordAttempt(claim, settled(anAttempt(r.id, 1, { status: 'succeeded' }), { status: 'succeeded', dueAt: null, attemptCount: 1 }));
    }
    const thirtyDays = 30 * 86_400;
    for (const r of [fresh!, old!]) {
      await expect.poll(async () => (await scheduleOfEntry(r))?.ttl ?? 0, { timeout: 10_000 }).toBeGreaterThan(thirtyDays - 120);
      expect((await scheduleOfEntry(r))?.scheduleId).toBe(scheduleId);
    }
  }, 60_000);
  it('walks the entries of the days before the list indexes were added, and reads the indexes after', async () => {
    const { session, requests } = open();
    const projectId = 'prj_contract_list_index_days';
    const DAY = 86_400_000;
    const now = Date.now();
    const migrations = session.table('schema_migrations');
    const appliedAt = async (version: number) =>
      (await session.read(`SELECT applied_at FROM ${migrations} WHERE version = ?`, [version], 'reading a migration')).first()?.['applied_at'];
    const kept = [await appliedAt(2), await appliedAt(17)];
    // As in a keyspace made long ago and given the indexes today: days up to today are walked, later ones indexed.
    const setAppliedAt = (version: number, at: unknown) =>
      session.execute(`UPDATE ${migrations} SET applied_at = ? WHERE version = ?`, [at, version], 'backdating a migration');
    await setAppliedAt(2, now - 30 * DAY);
    await setAppliedAt(17, now);
    const upgraded = await openCassandraBackend({ ...infra.cassandra.connection(session.keyspace), shardCount: 4, epochs: holdingEveryShard() });
    try {
      const before = aRequest({ projectId, createdAt: now - DAY, queue: 'billing', flowKeys: ['vendor:acme'] });
      const after = aRequest({ projectId, createdAt: now + 2 * DAY, queue: 'billing', flowKeys: ['vendor:acme'] });
      await requests.insertMany([before, after]);
      // The older request as one accepted before the indexes: no index rows.
      for (const [table, key, value] of [['requests_by_queue', 'queue_name', 'billing'], ['requests_by_flow_key', 'flow_key', 'vendor:acme']] as const) {
        await session.execute(
          `DELETE FROM ${session.table(table)} WHERE project_id = ? AND ${key} = ? AND day = ? AND created_at = ? AND id = ?`,
          [projectId, value, dayOf(before.createdAt), before.createdAt, before.id],
          'clearing an index row',
        );
      }
      const ids = async (q: { queue?: string; flowKey?: string }) =>
        (await upgraded.requests.list({ projectId, terminalCutoff: 0, limit: 100, ...q })).map((r) => r.id);
      expect(await ids({ queue: 'billing' })).toEqual([after.id, before.id]);
      expect(await ids({ flowKey: 'vendor:acme' })).toEqual([after.id, before.id]);
    } finally {
      await upgraded.close();
      await setAppliedAt(2, kept[0]);
      await setAppliedAt(17, kept[1]);
    }
  }, 60_000);
});
