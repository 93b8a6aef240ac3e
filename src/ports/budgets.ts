import type { BudgetConfig, BudgetKind, BudgetLimits, BudgetState } from '../domain/flow/budgets.js';

/** A page of budgets in name order. */
export interface BudgetPage {
  readonly budgets: readonly BudgetConfig[];
  /** The last name of this page when more may follow; null on the last page. */
  readonly nextAfter: string | null;
}

/**
 * The flow-control budgets of every project (`src/domain/flow/`): queues and flow keys with their limits and pause.
 * A budget exists once it is configured, paused or resumed, and, for queues, once a request has used it.
 */
export interface BudgetStore {
  /** The budget, or null when it was never configured, paused, resumed or (a queue) used. */
  get(projectId: string, kind: BudgetKind, name: string): Promise<BudgetConfig | null>;
  /** The project's budgets of `kind` in name order, after `after`, at most `limit`. */
  list(projectId: string, kind: BudgetKind, after: string | null, limit: number): Promise<BudgetPage>;
  /** Replaces the budget's limits, keeping its pause; creates it when absent. Answers it as stored. */
  putLimits(projectId: string, kind: BudgetKind, name: string, limits: BudgetLimits, now: number): Promise<BudgetConfig>;
  /** Pauses or resumes the budget, keeping its limits; creates it (without limits) when absent. */
  setPaused(projectId: string, kind: BudgetKind, name: string, paused: boolean, now: number): Promise<BudgetConfig>;
  /**
   * Records that requests of the project used these queues (so `list` shows them), creating a budget without
   * limits for each one not stored yet. Callers remember what they recorded and call it once per new queue.
   */
  noteQueuesUsed(projectId: string, names: readonly string[], now: number): Promise<void>;
  /**
   * Every budget of every project with limits or a pause whose `updatedAt` is at or after `since`: what a delivering
   * process reads at start (`since` 0) and then every few hundred milliseconds to learn of changes.
   */
  changedSince(since: number): Promise<BudgetConfig[]>;
}

/**
 * How budgets stand right now, as the delivering processes see them: in distributed mode the sum over every process
 * that delivers (the reads of the API may come to any of them).
 */
export interface BudgetStates {
  stateOf(projectId: string, kind: BudgetKind, name: string): Promise<BudgetState>;
}

/** One process's view of one budget, as published on the board. */
export interface PublishedBudgetState {
  readonly projectId: string;
  readonly kind: BudgetKind;
  readonly name: string;
  readonly state: BudgetState;
}

/**
 * Where delivering processes publish how their budgets stand, so that any process can answer for the whole
 * deployment (`BudgetStates`). Only a backend with several delivering processes has one (the distributed one); an
 * entry lasts `ttlMs` unless published again, so a process that stops drops out of the sums on its own.
 */
export interface BudgetStateBoard {
  /** Replaces this process's entries for these budgets; each lasts `ttlMs`. */
  publish(processId: string, entries: readonly PublishedBudgetState[], ttlMs: number): Promise<void>;
  /** Every live entry for the budget, one per process that published it. */
  read(projectId: string, kind: BudgetKind, name: string): Promise<BudgetState[]>;
}
