import type { BudgetConfig, BudgetKind, BudgetLimits } from '../../domain/flow/budgets.js';
import type { BudgetPage, BudgetStore } from '../../ports/budgets.js';
import { BUDGET_SELECT_LIST, budgetFromValues } from './budget-rows.js';
import type { EmbeddedDatabase } from './database.js';

/**
 * Budgets in one table keyed (project, kind, name): a page of the list walks the key in order, and `changedSince`
 * reads the partial index of rows with limits or a pause changed (`budgets_changed`).
 */
export class EmbeddedBudgetStore implements BudgetStore {
  constructor(private readonly db: EmbeddedDatabase) {}

  async get(projectId: string, kind: BudgetKind, name: string): Promise<BudgetConfig | null> {
    const sql = `SELECT ${BUDGET_SELECT_LIST} FROM budgets WHERE project_id = ? AND kind = ? AND name = ?`;
    const row = this.db.read(() => this.db.rawStatement(sql).get(projectId, kind, name));
    return row === undefined ? null : budgetFromValues(row);
  }

  async list(projectId: string, kind: BudgetKind, after: string | null, limit: number): Promise<BudgetPage> {
    if (limit <= 0) return { budgets: [], nextAfter: null };
    // One more than the page, to tell whether another follows.
    const sql = `SELECT ${BUDGET_SELECT_LIST} FROM budgets WHERE project_id = ? AND kind = ? AND name > ? ORDER BY name LIMIT ?`;
    const rows = this.db.read(() => this.db.rawStatement(sql).all(projectId, kind, after ?? '', limit + 1));
    const budgets = rows.slice(0, limit).map(budgetFromValues);
    return { budgets, nextAfter: rows.length > limit ? budgets.at(-1)!.name : null };
  }

  putLimits(projectId: string, kind: BudgetKind, name: string, limits: BudgetLimits, now: number): Promise<BudgetConfig> {
    return this.db.write('putBudgetLimits', { projectId, kind, name, limits, now });
  }

  setPaused(projectId: string, kind: BudgetKind, name: string, paused: boolean, now: number): Promise<BudgetConfig> {
    return this.db.write('setBudgetPaused', { projectId, kind, name, paused, now });
  }

  async noteQueuesUsed(projectId: string, names: readonly string[], now: number): Promise<void> {
    if (names.length === 0) return;
    await this.db.write('noteQueuesUsed', { projectId, names, now });
  }

  async changedSince(since: number): Promise<BudgetConfig[]> {
    const sql = `SELECT ${BUDGET_SELECT_LIST} FROM budgets WHERE updated_at >= ? ORDER BY updated_at`;
    return this.db.read(() => this.db.rawStatement(sql).all(since)).map(budgetFromValues);
  }
}
