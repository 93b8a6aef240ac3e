import type { BulkAction } from '../../domain/bulk-action.js';
import type { BulkActionStore, RunningBulkAction } from '../../ports/bulk-actions.js';
import { BULK_ACTION_SELECT, bulkActionFromRow } from './bulk-action-rows.js';
import type { EmbeddedDatabase } from './database.js';

/** Bulk actions keyed (project, id); the running ones found through a partial index. */
export class EmbeddedBulkActionStore implements BulkActionStore {
  constructor(private readonly db: EmbeddedDatabase) {}

  insert(action: BulkAction): Promise<void> {
    return this.db.write('insertBulkAction', action);
  }

  async get(projectId: string, id: string): Promise<BulkAction | null> {
    const sql = `${BULK_ACTION_SELECT} WHERE project_id = ? AND id = ?`;
    const row = this.db.read(() => this.db.rawStatement(sql).get(projectId, id));
    return row === undefined ? null : bulkActionFromRow(row);
  }

  async list(projectId: string, before: string | null, limit: number): Promise<BulkAction[]> {
    if (limit <= 0) return [];
    // IDs sort by creation time: the newest first is the key in descending order.
    const sql = `${BULK_ACTION_SELECT} WHERE project_id = ? AND id < ? ORDER BY id DESC LIMIT ?`;
    return this.db.read(() => this.db.rawStatement(sql).all(projectId, before ?? '~', limit)).map(bulkActionFromRow);
  }

  async running(): Promise<RunningBulkAction[]> {
    const sql = "SELECT project_id, id FROM bulk_actions WHERE state = 'running'";
    return this.db.read(() => this.db.rawStatement(sql).all()).map((row) => {
      const [projectId, id] = row as [string, string];
      return { projectId, id };
    });
  }

  update(next: BulkAction, expectedVersion: number): Promise<boolean> {
    return this.db.write('updateBulkAction', { next, expectedVersion });
  }
}
