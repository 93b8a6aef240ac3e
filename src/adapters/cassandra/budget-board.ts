import type { types } from 'cassandra-driver';
import type { BudgetKind, BudgetState } from '../../domain/flow/budgets.js';
import type { BudgetStateBoard, PublishedBudgetState } from '../../ports/budgets.js';
import type { CassandraSession, Statement } from './session.js';
import { mapBounded } from './shared/concurrency.js';

const STATE_COLUMNS = 'in_flight, started_in_period, waiting_rate, waiting_concurrency, waiting_paused, admitted_rate';

/**
 * Entries per unlogged batch, each its own partition: one message instead of one each (Cassandra spends more per
 * message than per row), and half the partitions at which the cluster warns about unlogged batches (64, see the
 * README's cluster settings).
 */
const ENTRIES_PER_BATCH = 32;
/** Batches under way at once for one `publish`: a few thousand entries go in well under a second. */
const BATCHES_AT_ONCE = 4;

/**
 * The board of budget states (migration `010-budget-states.ts`): a row per budget and process, written with a
 * time to live and never deleted, so a process that stops drops out once its rows expire. A publish is plain
 * writes with no read; a read is one partition, a row per live process, summed by the caller.
 */
export class CassandraBudgetBoard implements BudgetStateBoard {
  private readonly insert: string;
  private readonly select: string;

  constructor(private readonly session: CassandraSession) {
    const table = session.table('budget_states');
    this.insert = `INSERT INTO ${table} (project_id, kind, name, process_id, ${STATE_COLUMNS})
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) USING TTL ?`;
    this.select = `SELECT ${STATE_COLUMNS} FROM ${table} WHERE project_id = ? AND kind = ? AND name = ?`;
  }

  async publish(processId: string, entries: readonly PublishedBudgetState[], ttlMs: number): Promise<void> {
    // Whole seconds, rounded up so an entry never expires before it was promised to; 0 would mean for ever.
    const ttl = Math.max(1, Math.ceil(ttlMs / 1000));
    // Every cell is written, nulls included: a limit removed since the last publish leaves no stale value behind.
    const statements: Statement[] = entries.map(({ projectId, kind, name, state: s }) => ({
      query: this.insert,
      params: [projectId, kind, name, processId, s.inFlight, s.startedInPeriod, s.waiting.rate, s.waiting.concurrency, s.waiting.paused, s.admittedRate, ttl],
    }));
    const batches: Statement[][] = [];
    for (let i = 0; i < statements.length; i += ENTRIES_PER_BATCH) batches.push(statements.slice(i, i + ENTRIES_PER_BATCH));
    const failures: unknown[] = [];
    await mapBounded(batches, BATCHES_AT_ONCE, async (batch) => {
      if (failures.length > 0) return;
      try {
        if (batch.length === 1) await this.session.execute(batch[0]!.query, batch[0]!.params!, 'publishing budget states', { idempotent: true });
        else await this.session.batch(batch, 'publishing budget states', { logged: false, idempotent: true });
      } catch (err) {
        failures.push(err);
      }
    });
    if (failures.length > 0) throw failures[0];
  }

  async read(projectId: string, kind: BudgetKind, name: string): Promise<BudgetState[]> {
    const rs = await this.session.read(this.select, [projectId, kind, name], 'reading budget states');
    return rs.rows.map(stateFromRow);
  }
}

function stateFromRow(row: types.Row): BudgetState {
  return {
    inFlight: row['in_flight'] as number,
    startedInPeriod: row['started_in_period'] as number | null,
    waiting: {
      rate: row['waiting_rate'] as number,
      concurrency: row['waiting_concurrency'] as number,
      paused: row['waiting_paused'] as number,
    },
    admittedRate: row['admitted_rate'] as number | null,
  };
}
