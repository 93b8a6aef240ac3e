import type { BulkAction } from '../../domain/bulk-action.js';
import type { Connection } from './connection.js';

// A bulk action is one row: the columns its reads select and its conditional update checks, and the rest as JSON
// (the selection, with up to 1,000 IDs, and the counts), which only this adapter reads back.

export const BULK_ACTION_SELECT = 'SELECT body, version FROM bulk_actions';

export function bulkActionFromRow(row: unknown): BulkAction {
  const [body, version] = row as [string, number];
  return { ...(JSON.parse(body) as Omit<BulkAction, 'version'>), version };
}

function bodyOf(a: BulkAction): string {
  const { version: _version, ...rest } = a;
  return JSON.stringify(rest);
}

const INSERT = `INSERT INTO bulk_actions (project_id, id, state, created_at, version, body) VALUES (?, ?, ?, ?, ?, ?)`;
const UPDATE = `UPDATE bulk_actions SET state = ?, version = ?, body = ? WHERE project_id = ? AND id = ? AND version = ?`;

/** The bulk action store's writes, run on the writer thread like every other (see write-ops.ts). */
export const bulkActionWriteOps = {
  insertBulkAction(db: Connection, a: BulkAction): void {
    db.statement(INSERT).run(a.projectId, a.id, a.state, a.createdAt, a.version, bodyOf(a));
  },

  updateBulkAction(db: Connection, a: { readonly next: BulkAction; readonly expectedVersion: number }): boolean {
    const { next } = a;
    return db.statement(UPDATE).run(next.state, next.version, bodyOf(next), next.projectId, next.id, a.expectedVersion).changes === 1;
  },
} satisfies Record<string, (db: Connection, args: never) => unknown>;
