import type { Clock } from '../domain/clock.js';
import type { BudgetConfig } from '../domain/flow/budgets.js';
import { IDLE_STATE } from '../domain/flow/budgets.js';
import type { Backend } from '../ports/backend.js';
import type { BudgetStates } from '../ports/budgets.js';
import { DeploymentBudgetStates } from '../workers/delivery/budget-board.js';
import type { BudgetGate } from '../workers/delivery/budget-gate.js';
import { log } from './log.js';

/** What the API's flow-control reads and changes are joined with in this process. */
export interface BudgetWiring {
  /** How budgets stand now, for the reads. */
  readonly states: BudgetStates;
  /** Told after every change of a budget, so this process applies it at once. */
  readonly onChanged: (config: BudgetConfig) => void;
  stop(): void;
}

/**
 * Where the live state of budgets comes from: with several delivering processes (a backend with a board), the sum
 * of what each publishes; otherwise this process's own budgets, or idle ones in a process that does not deliver
 * (there is then nobody else who could: one process per embedded data directory).
 */
export function budgetWiring(backend: Backend, clock: Clock, gate: BudgetGate | null): BudgetWiring {
  const onChanged = (config: BudgetConfig): void => gate?.changed(config);
  const board = backend.budgetBoard;
  if (board !== undefined) {
    const states = new DeploymentBudgetStates({
      board,
      clock,
      ...(gate !== null ? { local: () => gate.active() } : {}),
      onError: (err) => log('warn', 'publishing flow-control state failed', { error: String(err) }),
    });
    states.start();
    return { states, onChanged, stop: () => states.stop() };
  }
  return { states: gate ?? { stateOf: () => Promise.resolve(IDLE_STATE) }, onChanged, stop: () => undefined };
}
