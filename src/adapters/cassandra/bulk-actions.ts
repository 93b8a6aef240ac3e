import type { BulkAction } from '../../domain/bulk-action.js';
import type { BulkActionStore, RunningBulkAction } from '../../ports/bulk-actions.js';
import { applied, type CassandraSession } from './session.js';

/** The one partition of `bulk_actions_running`. */
const RUNNING_BUCKET = 0;

/**
 * Bulk actions in a partition per project; every change a lightweight transaction on the version (a few per second
 * per running action at most, one per batch). An action is listed in `bulk_actions_running` from its insert until
 * the change that ends it: the entry is removed after that change, so a process that dies between the two leaves
 * an entry whose action reads as ended, which `running` drops (and deletes).
 */
export class CassandraBulkActionStore implements BulkActionStore {
  private readonly q: Record<'insert' | 'insertRunning' | 'get' | 'list' | 'running' | 'update' | 'deleteRunning', string>;

  constructor(private readonly session: CassandraSession) {
    const t = session.table('bulk_actions');
    const r = session.table('bulk_actions_running');
    this.q = {
      insert: `INSERT INTO ${t} (project_id, id, state, version, body) VALUES (?, ?, ?, ?, ?) IF NOT EXISTS`,
      insertRunning: `INSERT INTO ${r} (bucket, project_id, id) VALUES (${RUNNING_BUCKET}, ?, ?)`,
      get: `SELECT body, version FROM ${t} WHERE project_id = ? AND id = ?`,
      list: `SELECT body, version FROM ${t} WHERE project_id = ? AND id < ? LIMIT ?`,
      running: `SELECT project_id, id FROM ${r} WHERE bucket = ${RUNNING_BUCKET}`,
      update: `UPDATE ${t} SET state = ?, version = ?, body = ? WHERE project_id = ? AND id = ? IF version = ?`,
      deleteRunning: `DELETE FROM ${r} WHERE bucket = ${RUNNING_BUCKET} AND project_id = ? AND id = ?`,
    };
  }

  async insert(a: BulkAction): Promise<void> {
    // Listed as running first: an entry without its action is dropped by `running`, an action never listed would
    // never run.
    await this.session.execute(this.q.insertRunning, [a.projectId, a.id], 'storing a bulk action', { idempotent: true });
    await this.session.execute(this.q.insert, [a.projectId, a.id, a.state, a.version, bodyOf(a)], 'storing a bulk action');
  }

  async get(projectId: string, id: string): Promise<BulkAction | null> {
    const rs = await this.session.read(this.q.get, [projectId, id], 'reading a bulk action');
    const row = rs.first();
    return row === null ? null : fromRow(row);
  }

  async list(projectId: string, before: string | null, limit: number): Promise<BulkAction[]> {
    if (limit <= 0) return [];
    const rs = await this.session.read(this.q.list, [projectId, before ?? '~', limit], 'listing bulk actions');
    return rs.rows.map(fromRow);
  }

  async running(): Promise<RunningBulkAction[]> {
    const rs = await this.session.read(this.q.running, [], 'listing running bulk actions');
    const listed = rs.rows.map((row) => ({ projectId: row['project_id'] as string, id: row['id'] as string }));
    const still = await Promise.all(
      listed.map(async (entry) => {
        const action = await this.get(entry.projectId, entry.id);
        if (action !== null && action.state === 'running') return entry;
        // Ended (or its insert never landed long ago): the entry outlived what it listed.
        if (action !== null) await this.dropRunning(entry);
        return null;
      }),
    );
    return still.filter((e) => e !== null);
  }

  async update(next: BulkAction, expectedVersion: number): Promise<boolean> {
    const params = [next.state, next.version, bodyOf(next), next.projectId, next.id, expectedVersion];
    const ok = applied(await this.session.execute(this.q.update, params, 'updating a bulk action'));
    if (ok && next.state !== 'running') await this.dropRunning(next);
    return ok;
  }

  private async dropRunning(a: RunningBulkAction): Promise<void> {
    await this.session.execute(this.q.deleteRunning, [a.projectId, a.id], 'updating running bulk actions', { idempotent: true });
  }
}

function bodyOf(a: BulkAction): string {
  const { version: _version, ...rest } = a;
  return JSON.stringify(rest);
}

function fromRow(row: Record<string, unknown>): BulkAction {
  return { ...(JSON.parse(row['body'] as string) as Omit<BulkAction, 'version'>), version: row['version'] as number };
}
