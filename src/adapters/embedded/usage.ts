import type { UsageStore } from '../../ports/usage.js';
import type { EmbeddedDatabase } from './database.js';

// The limit is checked in the same statement that adds, so concurrent reservations can never overspend.
const RESERVE = `INSERT INTO usage (project_id, period, used) VALUES (@projectId, @period, @count)
  ON CONFLICT (project_id, period) DO UPDATE SET used = used + excluded.used
  WHERE usage.used + excluded.used <= @limit`;

export class EmbeddedUsageStore implements UsageStore {
  constructor(private readonly db: EmbeddedDatabase) {}

  async reserve(projectId: string, period: string, count: number, limit: number): Promise<boolean> {
    assertCount(count);
    if (count > limit) return false;
    if (count === 0) return true;
    return this.db.write(() => this.db.statement(RESERVE).run({ projectId, period, count, limit }).changes === 1);
  }

  async release(projectId: string, period: string, count: number): Promise<void> {
    assertCount(count);
    if (count === 0) return;
    await this.db.write(() => {
      this.db.statement('UPDATE usage SET used = MAX(0, used - ?) WHERE project_id = ? AND period = ?').run(count, projectId, period);
    });
  }

  async used(projectId: string, period: string): Promise<number> {
    const sql = 'SELECT used FROM usage WHERE project_id = ? AND period = ?';
    const used = this.db.read(() => this.db.statement(sql).pluck().get(projectId, period) as number | undefined);
    return used ?? 0;
  }
}

function assertCount(count: number): void {
  if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`Usage count must be a non-negative integer, got ${count}.`);
}
