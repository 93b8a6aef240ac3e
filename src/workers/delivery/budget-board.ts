import { randomUUID } from 'node:crypto';
import type { Clock, TimerHandle } from '../../domain/clock.js';
import { IDLE_STATE, sumStates, type BudgetKind, type BudgetState } from '../../domain/flow/budgets.js';
import type { BudgetStateBoard, BudgetStates, PublishedBudgetState } from '../../ports/budgets.js';

/** How often a delivering process publishes its budgets' state: reads of the live state lag by about this. */
export const PUBLISH_EVERY_MS = 1_000;
/** An entry outlives a few missed publications, then drops out of the sums (its process stopped, say). */
const ENTRY_TTL_MS = 3 * PUBLISH_EVERY_MS;
/**
 * Entries published at most per round, the busiest first: keys are as many as callers make up, and the board is a
 * write per entry. Budgets past it read as idle from other processes until they are among the busiest.
 */
export const MAX_PUBLISHED = 2_000;

export interface BudgetBoardOptions {
  readonly board: BudgetStateBoard;
  readonly clock: Clock;
  /** This process's live budgets with something to show; omitted in a process that does not deliver. */
  readonly local?: () => Iterable<PublishedBudgetState>;
  readonly onError?: (error: unknown) => void;
}

/**
 * The live state of budgets over a whole distributed deployment: every delivering process publishes its own on the
 * board (`BudgetStateBoard`) every `PUBLISH_EVERY_MS`, and a read sums what every process published.
 */
export class DeploymentBudgetStates implements BudgetStates {
  private readonly processId = randomUUID();
  private timer: TimerHandle | undefined;
  private stopped = false;

  constructor(private readonly o: BudgetBoardOptions) {}

  start(): void {
    if (this.o.local !== undefined) this.schedule();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
  }

  async stateOf(projectId: string, kind: BudgetKind, name: string): Promise<BudgetState> {
    const states = await this.o.board.read(projectId, kind, name);
    return states.length === 0 ? IDLE_STATE : sumStates(states);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = this.o.clock.setTimer(() => void this.publish(), PUBLISH_EVERY_MS);
  }

  private async publish(): Promise<void> {
    try {
      const entries = [...(this.o.local?.() ?? [])];
      const busiest = entries.length <= MAX_PUBLISHED ? entries : entries.sort((a, b) => weight(b.state) - weight(a.state)).slice(0, MAX_PUBLISHED);
      if (busiest.length > 0) await this.o.board.publish(this.processId, busiest, ENTRY_TTL_MS);
    } catch (err) {
      this.o.onError?.(err);
    }
    this.schedule();
  }
}

function weight(s: BudgetState): number {
  return s.inFlight + s.waiting.rate + s.waiting.concurrency + s.waiting.paused + (s.admittedRate === null ? 0 : 1);
}
