import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { EmbeddedDatabase } from '../../src/adapters/embedded/database.js';
import { CLAIMABLE_SQL } from '../../src/adapters/embedded/request-rows.js';
import { EmbeddedRequestStore } from '../../src/adapters/embedded/requests.js';
import type { RequestListQuery } from '../../src/ports/requests.js';
import { PROJECT_A, T0, aRequest, nextScheduleId } from './suite/harness.js';

const dir = mkdtempSync(join(tmpdir(), 'ferry-embedded-plan-'));
const path = join(dir, 'ferry.db');
const db = new EmbeddedDatabase({ path });
const store = new EmbeddedRequestStore(db);
const other = new Database(path, { readonly: true });
afterAll(async () => {
  other.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** How SQLite runs the statement the store issues for `query`, as EXPLAIN QUERY PLAN words it. */
async function planOf(query: Partial<RequestListQuery>): Promise<string> {
  const issued: string[] = [];
  const raw = db.rawStatement.bind(db);
  db.rawStatement = (sql) => {
    issued.push(sql);
    return raw(sql);
  };
  try {
    await store.list({ projectId: PROJECT_A, terminalCutoff: 0, limit: 10, ...query });
  } finally {
    db.rawStatement = raw;
  }
  const sql = issued.at(-1)!;
  // The plan does not depend on the values bound, only on which parameters there are.
  const params = Object.fromEntries([...sql.matchAll(/@(\w+)/g)].map(([, name]) => [name, 1]));
  return (other.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as Array<{ detail: string }>).map((row) => row.detail).join('; ');
}

// Embedded only: a schedule's page reads its own requests in list order, whatever else the project holds.
describe('the embedded list of one schedule', () => {
  it('walks the schedule index in list order, alone or with other filters and a cursor', async () => {
    const scheduleId = nextScheduleId();
    await store.insertMany([aRequest({ source: 'recurring', scheduleId }), aRequest({ createdAt: T0 + 1 })]);
    const after = { createdAt: T0, id: 'req_contract_99999999' };
    for (const query of [{}, { status: 'failed' as const }, { source: 'recurring' as const, method: 'POST' as const }, { after }]) {
      const plan = await planOf({ scheduleId, ...query });
      expect(plan, JSON.stringify(query)).toMatch(/^SEARCH requests USING INDEX requests_by_schedule \(project_id=\? AND schedule_id=\?/);
      expect(plan, JSON.stringify(query)).not.toMatch(/TEMP B-TREE/);
    }
  });
});

// Embedded only: a queue's or a flow key's page reads its own requests in list order, whatever else the project holds.
describe('the embedded list of one queue or one flow key', () => {
  const after = { createdAt: T0, id: 'req_contract_99999999' };
  const others = [{}, { source: 'api' as const, method: 'POST' as const }, { after }, { from: T0, to: T0 + 1 }];

  it('walks the queue index in list order, alone or with other filters and a cursor', async () => {
    for (const query of others) {
      const plan = await planOf({ queue: 'billing', ...query });
      expect(plan, JSON.stringify(query)).toMatch(/^SEARCH requests USING INDEX requests_by_queue \(project_id=\? AND queue=\?/);
      expect(plan, JSON.stringify(query)).not.toMatch(/TEMP B-TREE/);
    }
  });

  it("walks the key's rows in list order and reads each request by its ID", async () => {
    for (const query of [...others, { queue: 'billing' }, { status: 'failed' as const }]) {
      const plan = await planOf({ flowKey: 'vendor:acme', ...query });
      expect(plan, JSON.stringify(query)).toMatch(/^SEARCH k USING PRIMARY KEY \(project_id=\? AND flow_key=\?.*; SEARCH requests USING INDEX sqlite_autoindex_requests_1 \(id=\?\)$/);
      expect(plan, JSON.stringify(query)).not.toMatch(/TEMP B-TREE/);
    }
  });
});

// Embedded only: a page deep in a walk bounded by `to` (a bulk action's, or a caller's) starts at its cursor.
describe('the embedded list bounded by `to`, past its first page', () => {
  it('seeks to the cursor, whatever index the filters choose', async () => {
    const after = { createdAt: T0, id: 'req_contract_99999999' };
    for (const filters of [{}, { queue: 'billing' }, { status: 'failed' as const }, { queue: 'bulk', status: 'failed' as const }]) {
      for (const to of [T0 + 5, T0 - 5]) {
        const plan = await planOf({ ...filters, to, after });
        expect(plan, JSON.stringify({ filters, to })).toMatch(/^SEARCH requests USING INDEX \w+ \(project_id=\?.* AND \(created_at,id\)<\(\?,\?\)\)/);
      }
    }
  });
});

// Embedded only: one status code's page reads that code's requests in list order, however few of the project's have it.
describe("the embedded list of one last attempt's status code", () => {
  const after = { createdAt: T0, id: 'req_contract_99999999' };
  const others = [{}, { status: 'failed' as const }, { queue: 'billing' }, { source: 'api' as const, method: 'POST' as const }, { after }, { from: T0, to: T0 + 1 }];

  it('walks the partial index of last status codes in list order, alone or with other filters and a cursor', async () => {
    for (const query of others) {
      const plan = await planOf({ responseStatusCode: 503, ...query });
      expect(plan, JSON.stringify(query)).toMatch(/^SEARCH requests USING INDEX requests_by_last_status \(project_id=\? AND last_status_code=\?/);
      expect(plan, JSON.stringify(query)).not.toMatch(/TEMP B-TREE/);
    }
  });
});

// Embedded only: the statuses a claim takes come from the domain's lifecycle, and must still read as the partial
// index's condition, or every look for due work would scan the whole table.
describe('the embedded look for due work', () => {
  it('uses the partial index of claimable requests, in claim order', () => {
    for (const sql of [
      `SELECT id FROM requests WHERE status IN ${CLAIMABLE_SQL} AND due_at <= ? ORDER BY due_at, id LIMIT ?`,
      `SELECT MIN(due_at) FROM requests WHERE status IN ${CLAIMABLE_SQL}`,
    ]) {
      const plan = (other.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...(sql.includes('LIMIT') ? [1, 1] : [])) as Array<{ detail: string }>).map((row) => row.detail).join('; ');
      expect(plan, sql).toMatch(/USING (COVERING )?INDEX requests_due/);
      expect(plan, sql).not.toMatch(/TEMP B-TREE/);
    }
  });
});
