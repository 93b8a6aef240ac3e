import type { Clock } from '../domain/clock.js';
import type { StoredRequest } from '../domain/request.js';
import type { BudgetStore } from '../ports/budgets.js';

/**
 * (project, queue) pairs remembered at once, about 100 bytes each. Past it the memory is dropped whole and each
 * queue is written once more on its next use: the write never overwrites anything, so a repeat costs only itself.
 */
const MAX_REMEMBERED = 100_000;

/**
 * Records the queues accepted requests use, so `GET /queues` lists them: the first use of a (project, queue) in
 * this process writes it, every later one only looks it up in memory, so the accept path does not write each time.
 * A failed write is forgotten, and the next request of that queue tries again.
 */
export class QueueUses {
  /** Project ID → the queues written (or being written) for it. */
  private readonly noted = new Map<string, Set<string>>();
  private count = 0;

  constructor(
    private readonly budgets: BudgetStore,
    private readonly clock: Clock,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {}

  /**
   * Writes the queues of these requests not yet noted: undefined when there are none (the usual case, which costs
   * only lookups), else a promise that resolves once written and never rejects.
   */
  note(projectId: string, requests: readonly StoredRequest[]): Promise<void> | undefined {
    let known = this.noted.get(projectId);
    let fresh: string[] | undefined;
    for (const r of requests) {
      if (known?.has(r.queue)) continue;
      if (this.count >= MAX_REMEMBERED) {
        this.noted.clear();
        this.count = 0;
      }
      known = this.noted.get(projectId);
      if (known === undefined) this.noted.set(projectId, (known = new Set()));
      known.add(r.queue);
      this.count++;
      (fresh ??= []).push(r.queue);
    }
    return fresh === undefined ? undefined : this.write(projectId, fresh);
  }

  private async write(projectId: string, queues: readonly string[]): Promise<void> {
    try {
      await this.budgets.noteQueuesUsed(projectId, queues, this.clock.now());
    } catch (err) {
      const set = this.noted.get(projectId);
      for (const queue of queues) if (set?.delete(queue)) this.count--;
      this.onError(err);
    }
  }
}
