import type { Clock, TimerHandle } from '../../domain/clock.js';

/** A worker that looks at storage for due work when woken. */
export interface Wakeable {
  wake(): void;
}

/**
 * Turns news of stored work into wake-ups of a worker without waking it for work that is not due: a look at
 * storage costs reads, and a burst of delayed work would otherwise keep the worker scanning back to back. Work due
 * now wakes it at once; work due before its next poll arms one timer for the soonest; later work is left to the
 * worker's own schedule.
 */
export class DueWakeups {
  private timer: TimerHandle | undefined;
  private armedFor = Number.POSITIVE_INFINITY;

  constructor(
    private readonly worker: Wakeable,
    private readonly clock: Clock,
    /** The worker looks at storage at least this often by itself. */
    private readonly pollMs: number,
  ) {}

  /** Work was stored, due at these times; no times means "look now". */
  stored(dueTimes: Iterable<number>): void {
    let soonest = Number.POSITIVE_INFINITY;
    let any = false;
    for (const t of dueTimes) {
      any = true;
      if (t < soonest) soonest = t;
    }
    const now = this.clock.now();
    if (!any || soonest <= now) {
      this.worker.wake();
      return;
    }
    if (soonest - now > this.pollMs || soonest >= this.armedFor) return;
    this.timer?.cancel();
    this.armedFor = soonest;
    this.timer = this.clock.setTimer(() => {
      this.armedFor = Number.POSITIVE_INFINITY;
      this.worker.wake();
    }, soonest - now);
  }

  stop(): void {
    this.timer?.cancel();
  }
}
