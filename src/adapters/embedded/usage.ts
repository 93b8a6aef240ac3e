import type { UsageStore } from '../../ports/usage.js';
import type { EmbeddedDatabase } from './database.js';

export class EmbeddedUsageStore implements UsageStore {
  constructor(private readonly db: EmbeddedDatabase) {}

  async reserve(projectId: string, period: string, count: number, limit: number): Promise<boolean> {
    assertCount(count);
    if (count > limit) return false;
    if (count === 0) return true;
    return this.db.write('reserveUsage', { projectId, period, count, limit });
  }

  async release(projectId: string, period: string, count: number): Promise<void> {
    assertCount(count);
    if (count === 0) return;
    await this.db.write('releaseUsage', { projectId, period, count });
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
