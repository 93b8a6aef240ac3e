import type { BudgetConfig, BudgetKind, BudgetLimits } from '../../domain/flow/budgets.js';
import type { Connection } from './connection.js';

// Budgets cross the driver as positional values, as requests do (see request-rows.ts).

/** For SELECT and RETURNING of statements whose rows go through `budgetFromValues`, prepared in raw mode. */
export const BUDGET_SELECT_LIST =
  'project_id, kind, name, rate_limit, rate_period_ms, rate_burst, concurrency, adaptive, paused, updated_at, noted_at';

type BudgetValues = [
  project_id: string, kind: string, name: string, rate_limit: number | null, rate_period_ms: number | null,
  rate_burst: number | null, concurrency: number | null, adaptive: number, paused: number, updated_at: number | null,
  noted_at: number | null,
];

export function budgetFromValues(v: unknown): BudgetConfig {
  const row = v as BudgetValues;
  return {
    projectId: row[0],
    kind: row[1] as BudgetKind,
    name: row[2],
    rate: row[3] === null ? null : { limit: row[3], periodMs: row[4]!, burst: row[5]! },
    concurrency: row[6],
    adaptive: row[7] === 1,
    paused: row[8] === 1,
    // A queue only used was never changed: its time is when it was first used.
    updatedAt: row[9],
  };
}

// Both changes replace their own columns and leave the other's alone, so a put keeps the pause and a pause the
// limits; either creates the row.
const PUT_LIMITS = `INSERT INTO budgets (project_id, kind, name, rate_limit, rate_period_ms, rate_burst, concurrency, adaptive, updated_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (project_id, kind, name) DO UPDATE SET rate_limit = excluded.rate_limit, rate_period_ms = excluded.rate_period_ms,
    rate_burst = excluded.rate_burst, concurrency = excluded.concurrency, adaptive = excluded.adaptive, updated_at = excluded.updated_at
  RETURNING ${BUDGET_SELECT_LIST}`;

const SET_PAUSED = `INSERT INTO budgets (project_id, kind, name, paused, updated_at) VALUES (?, ?, ?, ?, ?)
  ON CONFLICT (project_id, kind, name) DO UPDATE SET paused = excluded.paused, updated_at = excluded.updated_at
  RETURNING ${BUDGET_SELECT_LIST}`;

// A queue used is recorded once; a budget already there, configured or not, keeps everything it has.
const NOTE_USED = "INSERT INTO budgets (project_id, kind, name, noted_at) VALUES (?, 'queue', ?, ?) ON CONFLICT DO NOTHING";

interface BudgetKey {
  readonly projectId: string;
  readonly kind: BudgetKind;
  readonly name: string;
}

/** The budget store's writes, run on the writer thread like every other (see write-ops.ts). */
export const budgetWriteOps = {
  putBudgetLimits(db: Connection, a: BudgetKey & { readonly limits: BudgetLimits; readonly now: number }): BudgetConfig {
    const { rate, concurrency, adaptive } = a.limits;
    const row = db
      .rawStatement(PUT_LIMITS)
      .get(a.projectId, a.kind, a.name, rate?.limit ?? null, rate?.periodMs ?? null, rate?.burst ?? null, concurrency, adaptive ? 1 : 0, a.now);
    return budgetFromValues(row);
  },

  setBudgetPaused(db: Connection, a: BudgetKey & { readonly paused: boolean; readonly now: number }): BudgetConfig {
    return budgetFromValues(db.rawStatement(SET_PAUSED).get(a.projectId, a.kind, a.name, a.paused ? 1 : 0, a.now));
  },

  noteQueuesUsed(db: Connection, a: { readonly projectId: string; readonly names: readonly string[]; readonly now: number }): void {
    const insert = db.statement(NOTE_USED);
    for (const name of a.names) insert.run(a.projectId, name, a.now);
  },
} satisfies Record<string, (db: Connection, args: never) => unknown>;
