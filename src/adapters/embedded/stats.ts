import { MINUTE_MS, STATS_WINDOW_MINUTES } from '../../domain/stats.js';
import type { Backlog, MinuteTotals, StatsStore, StoredMinute } from '../../ports/stats.js';
import type { EmbeddedDatabase } from './database.js';
import { BACKLOG_ROWS, BACKLOG_SQL, MINUTES_SQL, countsFromValues, type BacklogRow, type MinuteRow } from './stats-rows.js';

/** Minutes kept past the window, so a reading at the window's edge never misses one being dropped. */
const KEPT_MINUTES = STATS_WINDOW_MINUTES + 60;

/**
 * Per-minute totals in `stats_minutes`, keyed (project, minute, process): a read is one range of the key, and each
 * flush drops minutes older than a day and an hour through the index on `minute`. The backlog is counted from the
 * requests themselves (see `BACKLOG_SQL`).
 */
export class EmbeddedStatsStore implements StatsStore {
  constructor(private readonly db: EmbeddedDatabase) {}

  async putTotals(processId: string, rows: readonly MinuteTotals[], now: number): Promise<void> {
    if (rows.length === 0) return;
    await this.db.write('putStatsTotals', { processId, rows, dropBefore: now - KEPT_MINUTES * MINUTE_MS });
  }

  async minutes(projectId: string, fromMinute: number): Promise<StoredMinute[]> {
    const rows = this.db.read(() => this.db.rawStatement(MINUTES_SQL).all(projectId, fromMinute)) as MinuteRow[];
    return rows.map(([minute, processId, ...counts]) => ({ minute, processId, counts: countsFromValues(counts) }));
  }

  async backlog(projectId: string): Promise<Backlog> {
    const rows = this.db.read(() => this.db.rawStatement(BACKLOG_SQL).all(projectId)) as BacklogRow[];
    const queues = rows.map(([queue, queued, scheduled, delivering, oldestDueAt]) => ({ queue, queued, scheduled, delivering, oldestDueAt }));
    return { queues, truncated: (rows[0]?.[5] ?? 0) >= BACKLOG_ROWS };
  }
}
