import type { types } from 'cassandra-driver';
import type { Clock } from '../../domain/clock.js';
import type { BudgetConfig, BudgetKind, BudgetLimits } from '../../domain/flow/budgets.js';
import type { BudgetPage, BudgetStore } from '../../ports/budgets.js';
import { toPortError } from './errors.js';
import { millis, type CassandraSession, type Statement } from './session.js';
import { mapBounded } from './shared/concurrency.js';

const COLUMNS = 'project_id, kind, name, rate_limit, rate_period_ms, rate_burst, concurrency, adaptive, paused, updated_at, noted_at';

const MINUTE_MS = 60_000;
/**
 * How far back `budget_changes` answers for: less than its time to live (a day), so no change read for has expired.
 * A poll from further back (`changedSince(0)` at start, or after a process stood still for most of a day) scans
 * `budgets` instead, every project's: the one read here whose cost grows with the deployment.
 */
const LOG_SPAN_MS = 23 * 3_600_000;
/**
 * Minutes read past the poller's own: a change is logged under the clock of the process that made it, which may run
 * ahead of the poller's.
 */
const CLOCKS_APART_MS = MINUTE_MS;
/** Reads under way at once for one `changedSince`. */
const READS_AT_ONCE = 8;
/** Rows per page of the scan. */
const SCAN_PAGE = 1_000;

/**
 * Budgets: one partition per project and kind, in name order (migration `009-flow-control.ts`). A change of limits
 * and a change of pause write different cells and no read, so two processes changing one budget at once keep both;
 * each change is logged, in the same logged batch, under the minute of its `updated_at` in `budget_changes`, where
 * `changedSince` finds it. A queue used is recorded with a conditional insert of a cell nothing else writes
 * (`noted_at`), so it can neither undo nor date a configuration written at the same time.
 */
export class CassandraBudgetStore implements BudgetStore {
  private readonly q: ReturnType<typeof statements>;

  constructor(
    private readonly session: CassandraSession,
    private readonly clock: Clock,
  ) {
    this.q = statements(session);
  }

  async get(projectId: string, kind: BudgetKind, name: string): Promise<BudgetConfig | null> {
    const row = (await this.session.read(this.q.select, [projectId, kind, name], 'reading a budget')).first();
    return row === null ? null : budgetFromRow(row);
  }

  async list(projectId: string, kind: BudgetKind, after: string | null, limit: number): Promise<BudgetPage> {
    if (limit <= 0) return { budgets: [], nextAfter: null };
    // One more than the page, to tell whether another follows.
    const rs =
      after === null
        ? await this.session.read(this.q.listFirst, [projectId, kind, limit + 1], 'listing budgets')
        : await this.session.read(this.q.listAfter, [projectId, kind, after, limit + 1], 'listing budgets');
    const budgets = rs.rows.slice(0, limit).map(budgetFromRow);
    return { budgets, nextAfter: rs.rows.length > limit ? budgets.at(-1)!.name : null };
  }

  async putLimits(projectId: string, kind: BudgetKind, name: string, limits: BudgetLimits, now: number): Promise<BudgetConfig> {
    const { rate, concurrency, adaptive } = limits;
    const values = [rate?.limit ?? null, rate?.periodMs ?? null, rate?.burst ?? null, concurrency, adaptive, now, projectId, kind, name];
    return this.change({ query: this.q.putLimits, params: values }, projectId, kind, name, now);
  }

  async setPaused(projectId: string, kind: BudgetKind, name: string, paused: boolean, now: number): Promise<BudgetConfig> {
    return this.change({ query: this.q.setPaused, params: [paused, now, projectId, kind, name] }, projectId, kind, name, now);
  }

  async noteQueuesUsed(projectId: string, names: readonly string[], now: number): Promise<void> {
    if (names.length === 0) return;
    // Most queues a process notes are known already (noted or configured through another process): a read spares a
    // Paxos round for each of those.
    const rs = await this.session.read(this.q.selectNames, [projectId, 'queue', [...new Set(names)]], 'reading queues used');
    const known = new Set(rs.rows.map((row) => row['name'] as string));
    // One at a time: conditional writes to one partition at once would contend with each other.
    for (const name of new Set(names)) {
      if (!known.has(name)) await this.session.execute(this.q.noteUsed, [projectId, name, now], 'recording a queue used');
    }
  }

  async changedSince(since: number): Promise<BudgetConfig[]> {
    const now = this.clock.now();
    if (since < now - LOG_SPAN_MS) return this.scanChanged(since);
    const first = minuteOf(since);
    const minutes = Array.from({ length: minuteOf(Math.max(now, since) + CLOCKS_APART_MS) - first + 1 }, (_, i) => first + i);
    const logged = await mapBounded(minutes, READS_AT_ONCE, async (minute) => (await this.session.read(this.q.selectChanges, [minute, since], 'reading budget changes')).rows);
    const keys = new Map<string, readonly [string, BudgetKind, string]>();
    for (const row of logged.flat()) {
      const key = [row['project_id'] as string, row['kind'] as BudgetKind, row['name'] as string] as const;
      keys.set(key.join('\n'), key);
    }
    const budgets = await mapBounded([...keys.values()], READS_AT_ONCE, ([projectId, kind, name]) => this.get(projectId, kind, name));
    return budgets.filter((b) => b !== null);
  }

  /** Writes a change of the budget with its log entry, then answers the budget as stored. */
  private async change(update: Statement, projectId: string, kind: BudgetKind, name: string, now: number): Promise<BudgetConfig> {
    const log = { query: this.q.logChange, params: [minuteOf(now), now, projectId, kind, name] };
    await this.session.batch([update, log], 'changing a budget', { logged: true, idempotent: true });
    const stored = await this.get(projectId, kind, name);
    if (stored === null) throw new Error(`Budget ${kind} ${name} of project ${projectId} is missing right after it was written.`);
    return stored;
  }

  private async scanChanged(since: number): Promise<BudgetConfig[]> {
    const during = 'reading every budget';
    const rs = await this.session.read(this.q.scan, [], during, SCAN_PAGE);
    const changed: BudgetConfig[] = [];
    try {
      for await (const row of rs) {
        const updatedAt = millis(row['updated_at']);
        if (updatedAt !== null && updatedAt >= since) changed.push(budgetFromRow(row));
      }
    } catch (err) {
      throw toPortError(err, during);
    }
    return changed;
  }
}

function statements(session: CassandraSession) {
  const budgets = session.table('budgets');
  const changes = session.table('budget_changes');
  return {
    select: `SELECT ${COLUMNS} FROM ${budgets} WHERE project_id = ? AND kind = ? AND name = ?`,
    selectNames: `SELECT name FROM ${budgets} WHERE project_id = ? AND kind = ? AND name IN ?`,
    listFirst: `SELECT ${COLUMNS} FROM ${budgets} WHERE project_id = ? AND kind = ? LIMIT ?`,
    listAfter: `SELECT ${COLUMNS} FROM ${budgets} WHERE project_id = ? AND kind = ? AND name > ? LIMIT ?`,
    putLimits: `UPDATE ${budgets} SET rate_limit = ?, rate_period_ms = ?, rate_burst = ?, concurrency = ?, adaptive = ?, updated_at = ?
      WHERE project_id = ? AND kind = ? AND name = ?`,
    setPaused: `UPDATE ${budgets} SET paused = ?, updated_at = ? WHERE project_id = ? AND kind = ? AND name = ?`,
    noteUsed: `INSERT INTO ${budgets} (project_id, kind, name, noted_at) VALUES (?, 'queue', ?, ?) IF NOT EXISTS`,
    logChange: `INSERT INTO ${changes} (minute, updated_at, project_id, kind, name) VALUES (?, ?, ?, ?, ?)`,
    selectChanges: `SELECT project_id, kind, name FROM ${changes} WHERE minute = ? AND updated_at >= ?`,
    scan: `SELECT ${COLUMNS} FROM ${budgets}`,
  };
}

function minuteOf(t: number): number {
  return Math.floor(t / MINUTE_MS);
}

function budgetFromRow(row: types.Row): BudgetConfig {
  const limit = row['rate_limit'] as number | null;
  return {
    projectId: row['project_id'] as string,
    kind: row['kind'] as BudgetKind,
    name: row['name'] as string,
    rate: limit === null ? null : { limit, periodMs: row['rate_period_ms'] as number, burst: row['rate_burst'] as number },
    concurrency: row['concurrency'] as number | null,
    // Cells a change never wrote: a budget created by a pause, or a queue only used.
    adaptive: (row['adaptive'] as boolean | null) ?? true,
    paused: (row['paused'] as boolean | null) ?? false,
    // A queue only used was never changed: its time is when it was first used.
    updatedAt: millis(row['updated_at']),
  };
}
