import type { BudgetConfig } from '../domain/flow/budgets.js';
import { IDLE_STATE } from '../domain/flow/budgets.js';
import type { BudgetStates } from '../ports/budgets.js';

/** What the API's flow-control reads and changes are joined with in this process. */
export interface BudgetWiring {
  /** How budgets stand now, for the reads. */
  readonly states: BudgetStates;
  /** Told after every change of a budget, so this process applies it at once. */
  readonly onChanged: (config: BudgetConfig) => void;
}

/** Until attempts are measured against budgets, every budget reads idle and a change needs no applying here. */
export function budgetWiring(): BudgetWiring {
  return { states: { stateOf: () => Promise.resolve(IDLE_STATE) }, onChanged: () => undefined };
}
