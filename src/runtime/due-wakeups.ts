import type { Clock } from '../domain/clock.js';

export interface Wakeable {
  wake(): void;
}

/**
 * Turns news of stored work into engine wake-ups without waking it for work that is not due: a look at storage
 * costs reads, and a burst of delayed requests would otherwise keep the engine scanning back to back. Work due
 * now wakes it at once; work due before its next poll arms one timer for the soonest; later work is left to the
 * engine's own schedule.
 */
export class DueWakeups {
  private timer: NodeJS.Timeout | undefined;
  private armedFor = Number.POSITIVE_INFINITY;

  constructor(
    private readonly engine: Wakeable,
    private readonly clock: Clock,
    /** The engine looks at storage at least this often by itself. */
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
      this.engine.wake();
      return;
    }
    if (soonest - now > this.pollMs || soonest >= this.armedFor) return;
    clearTimeout(this.timer);
    this.armedFor = soonest;
    this.timer = setTimeout(() => {
      this.armedFor = Number.POSITIVE_INFINITY;
      this.engine.wake();
    }, soonest - now);
    this.timer.unref();
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}
