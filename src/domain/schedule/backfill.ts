import { nextRunAfter } from './next-run.js';
import type { Timing } from './timing.js';

/** The most instants one backfill may create. */
export const MAX_BACKFILL_INSTANTS = 1_000;

/**
 * The timing's instants in `[from, to)`, earliest first, at most `max + 1` (one more than allowed tells the caller
 * the range is too long). An interval's grid is that of its first run, extended backwards by whole intervals, so
 * a range before the schedule existed has instants too.
 */
export function backfillInstants(timing: Timing, from: number, to: number, max = MAX_BACKFILL_INSTANTS): number[] {
  if (timing.type === 'interval') {
    const period = timing.everySeconds * 1000;
    const first = timing.firstRunAt + Math.ceil((from - timing.firstRunAt) / period) * period;
    const out: number[] = [];
    for (let t = first; t < to && out.length <= max; t += period) out.push(t);
    return out;
  }
  const out: number[] = [];
  // Walked up to `to` only: a sparse timing (once a year) must not be searched a thousand occurrences ahead.
  for (let t = nextRunAfter(timing, from - 1); t !== null && t < to && out.length <= max; t = nextRunAfter(timing, t)) out.push(t);
  return out;
}
