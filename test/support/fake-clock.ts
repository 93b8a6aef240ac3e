import { sleepOn, systemClock, type Clock, type TimerHandle } from '../../src/domain/clock.js';

interface Pending {
  readonly at: number;
  /** Timers due at the same instant fire in the order they were set. */
  readonly order: number;
  readonly fn: () => void;
}

/**
 * A clock that stands still until the test moves it: `advance` and `advanceTo` fire the timers that fall due on
 * the way, in time order, each with the clock showing its own due time. A timer set while firing, due no later
 * than where the move ends, fires within the same move.
 */
export class FakeClock implements Clock {
  private time: number;
  private readonly pending = new Set<Pending>();
  private set = 0;

  constructor(start = 0) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimer(fn: () => void, ms: number): TimerHandle {
    const timer: Pending = { at: this.time + Math.max(0, ms), order: this.set++, fn };
    this.pending.add(timer);
    return { cancel: () => this.pending.delete(timer) };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }

  /** Timers set and neither fired nor cancelled. */
  get timers(): number {
    return this.pending.size;
  }

  /** When the next timer fires; undefined when none is set. */
  get nextAt(): number | undefined {
    return this.next()?.at;
  }

  advance(ms: number): void {
    this.advanceTo(this.time + ms);
  }

  advanceTo(t: number): void {
    if (t < this.time) throw new RangeError(`The clock shows ${this.time}; it cannot go back to ${t}.`);
    for (let due = this.next(); due !== undefined && due.at <= t; due = this.next()) {
      this.pending.delete(due);
      this.time = due.at;
      due.fn();
    }
    this.time = t;
  }

  private next(): Pending | undefined {
    let first: Pending | undefined;
    for (const p of this.pending) if (first === undefined || p.at < first.at || (p.at === first.at && p.order < first.order)) first = p;
    return first;
  }
}

/** A clock that reads its time from `now` and keeps real timers: for code that only asks what time it is. */
export function clockAt(now: () => number): Clock {
  return { now, setTimer: systemClock.setTimer, sleep: systemClock.sleep };
}
