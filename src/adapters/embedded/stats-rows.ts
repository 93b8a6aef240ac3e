import { ACTIVE_STATUSES } from '../../domain/request-lifecycle/index.js';
import type { StatCounts } from '../../domain/stats.js';
import type { MinuteTotals } from '../../ports/stats.js';
import { statusList } from '../request-patch-columns.js';
import type { Connection } from './connection.js';

/** The counters' columns, in the order of `STAT_COUNTERS`. */
export const STAT_COLUMNS = 'accepted, delivered, failed, retried, callbacks';

const UPSERT = `INSERT INTO stats_minutes (project_id, minute, process_id, ${STAT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (project_id, minute, process_id) DO UPDATE SET accepted = excluded.accepted, delivered = excluded.delivered,
    failed = excluded.failed, retried = excluded.retried, callbacks = excluded.callbacks`;

/** Minutes dropped per flush at most: after a long stop the backlog of old minutes goes over several flushes. */
const DROP_LIMIT = 5_000;
const DROP = `DELETE FROM stats_minutes WHERE (project_id, minute, process_id) IN
  (SELECT project_id, minute, process_id FROM stats_minutes WHERE minute < ? LIMIT ${DROP_LIMIT})`;

/**
 * Waiting and running requests read for one backlog: the project's active rows through `requests_by_project_status`,
 * each row read for its queue and due time, about a microsecond each. Past this the counts are lower bounds.
 */
export const BACKLOG_ROWS = 50_000;

export const BACKLOG_SQL = `
  WITH active AS MATERIALIZED (
    SELECT queue, status, due_at FROM requests WHERE project_id = ? AND status IN ${statusList(ACTIVE_STATUSES)} LIMIT ${BACKLOG_ROWS})
  SELECT queue, TOTAL(status = 'queued'), TOTAL(status = 'scheduled'), TOTAL(status = 'delivering'),
    MIN(CASE WHEN status <> 'delivering' THEN due_at END), (SELECT COUNT(*) FROM active)
  FROM active GROUP BY queue`;

export type BacklogRow = [queue: string, queued: number, scheduled: number, delivering: number, oldestDueAt: number | null, read: number];

export const MINUTES_SQL = `SELECT minute, process_id, ${STAT_COLUMNS} FROM stats_minutes WHERE project_id = ? AND minute >= ? ORDER BY minute`;

export type MinuteRow = [minute: number, processId: string, ...counts: number[]];

export function countsFromValues(values: readonly number[]): StatCounts {
  const [accepted = 0, delivered = 0, failed = 0, retried = 0, callbacks = 0] = values;
  return { accepted, delivered, failed, retried, callbacks };
}

/** The stats store's one write, on the writer thread like every other (see write-ops.ts). */
export const statsWriteOps = {
  /** This process's totals, each replacing what it stored for the minute before; then drops minutes past the window. */
  putStatsTotals(db: Connection, a: { readonly processId: string; readonly rows: readonly MinuteTotals[]; readonly dropBefore: number }): void {
    const upsert = db.statement(UPSERT);
    for (const { projectId, minute, counts: c } of a.rows) {
      upsert.run(projectId, minute, a.processId, c.accepted, c.delivered, c.failed, c.retried, c.callbacks);
    }
    db.statement(DROP).run(a.dropBefore);
  },
};
