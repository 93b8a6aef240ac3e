import type { types } from 'cassandra-driver';
import { MINUTE_MS } from '../../domain/stats.js';
import type { Backlog, MinuteTotals, StatsStore, StoredMinute } from '../../ports/stats.js';
import { millis, type CassandraSession, type Statement } from './session.js';
import { mapBounded } from './shared/concurrency.js';

const DAY_MS = 24 * 60 * MINUTE_MS;
const COLUMNS = 'accepted, delivered, failed, retried, callbacks';
/** Rows per unlogged batch: a flush of many projects is a few messages, each under the cluster's batch warning. */
const ROWS_PER_BATCH = 32;
const BATCHES_AT_ONCE = 4;

/**
 * Per-minute totals (migration `015-stats.ts`): each process writes its own totals for a project's minute, plain
 * idempotent writes with the table's 25-hour time to live; a read is the project's one or two day partitions,
 * summed by the caller. There is no backlog count: requests are kept by ID and by creation day, not by state, so
 * counting a project's waiting requests would mean reading all of them.
 */
export class CassandraStatsStore implements StatsStore {
  private readonly insert: string;
  private readonly select: string;

  constructor(private readonly session: CassandraSession) {
    const table = session.table('stats_minutes');
    this.insert = `INSERT INTO ${table} (project_id, day, minute, process_id, ${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`;
    this.select = `SELECT minute, process_id, ${COLUMNS} FROM ${table} WHERE project_id = ? AND day = ? AND minute >= ?`;
  }

  async putTotals(processId: string, rows: readonly MinuteTotals[]): Promise<void> {
    const statements: Statement[] = rows.map(({ projectId, minute, counts: c }) => ({
      query: this.insert,
      params: [projectId, Math.floor(minute / DAY_MS), minute, processId, c.accepted, c.delivered, c.failed, c.retried, c.callbacks],
    }));
    const batches: Statement[][] = [];
    for (let i = 0; i < statements.length; i += ROWS_PER_BATCH) batches.push(statements.slice(i, i + ROWS_PER_BATCH));
    const failures: unknown[] = [];
    await mapBounded(batches, BATCHES_AT_ONCE, async (batch) => {
      if (failures.length > 0) return;
      try {
        if (batch.length === 1) await this.session.execute(batch[0]!.query, batch[0]!.params!, 'writing stats', { idempotent: true });
        else await this.session.batch(batch, 'writing stats', { logged: false, idempotent: true });
      } catch (err) {
        failures.push(err);
      }
    });
    if (failures.length > 0) throw failures[0];
  }

  async minutes(projectId: string, fromMinute: number): Promise<StoredMinute[]> {
    const first = Math.floor(fromMinute / DAY_MS);
    const last = Math.floor((fromMinute + DAY_MS) / DAY_MS);
    const days: number[] = [];
    for (let d = first; d <= last; d++) days.push(d);
    const results = await Promise.all(days.map((day) => this.session.read(this.select, [projectId, day, fromMinute], 'reading stats')));
    return results.flatMap((rs) => rs.rows.map(minuteFromRow));
  }

  async backlog(): Promise<Backlog | null> {
    return null;
  }
}

function minuteFromRow(row: types.Row): StoredMinute {
  const n = (name: string): number => (row[name] as number | null) ?? 0;
  return {
    minute: millis(row['minute'])!,
    processId: row['process_id'] as string,
    counts: { accepted: n('accepted'), delivered: n('delivered'), failed: n('failed'), retried: n('retried'), callbacks: n('callbacks') },
  };
}
