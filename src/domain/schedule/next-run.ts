import { latestCronRun, nextCronRun } from './cron-runs.js';
import type { IntervalTiming, Timing } from './timing.js';

/*
 * When a schedule's occurrences fall. All instants are milliseconds since the Unix epoch, UTC.
 *
 * Cron timing is read in its IANA zone with Vixie cron's rules (day of month OR day of week when both are
 * restricted). Across DST changes a job whose hour field starts with `*` follows real time: a spring-forward gap
 * simply has no such local times, and a fall-back overlap runs twice. Any other job is fixed-hour: its local times
 * inside a gap run once, together, at the first instant after the gap; in an overlap it runs on the first pass only.
 * See `cron-runs.ts`.
 *
 * Interval timing is `firstRunAt + k * everySeconds`, k >= 0, a fixed duration with no DST effect.
 */

/**
 * The first occurrence strictly after `after`.
 *
 * @param timing a validated timing (see `validateTiming`).
 * @param after ms since epoch.
 * @returns ms since epoch, or null when the timing never fires again (for cron: none before the year 10000).
 */
export function nextRunAfter(timing: Timing, after: number): number | null {
  requireInstant(after, 'after');
  if (timing.type === 'cron') return nextCronRun(timing.expression, timing.timezone, after);
  return nextIntervalRun(timing, after);
}

/**
 * The latest occurrence at or before `at`, answered without walking the occurrences in between.
 *
 * @param timing a validated timing (see `validateTiming`).
 * @param at ms since epoch.
 * @returns ms since epoch, or null when there is none: `at` is before an interval's first run, or a cron timing
 *   has no occurrence in the eight years up to `at`.
 */
export function latestRunAtOrBefore(timing: Timing, at: number): number | null {
  requireInstant(at, 'at');
  if (timing.type === 'cron') return latestCronRun(timing.expression, timing.timezone, at);
  if (at < timing.firstRunAt) return null;
  const period = timing.everySeconds * 1000;
  return timing.firstRunAt + Math.floor((at - timing.firstRunAt) / period) * period;
}

/**
 * The next `count` occurrences strictly after `after`, earliest first; fewer when the timing stops firing.
 *
 * @param timing a validated timing (see `validateTiming`).
 * @param after ms since epoch.
 * @param count how many to return; 0 or more.
 */
export function runTimes(timing: Timing, after: number, count: number): number[] {
  const runs: number[] = [];
  let last = after;
  while (runs.length < count) {
    const next = nextRunAfter(timing, last);
    if (next === null) break;
    runs.push(next);
    last = next;
  }
  return runs;
}

function nextIntervalRun(timing: IntervalTiming, after: number): number {
  if (after < timing.firstRunAt) return timing.firstRunAt;
  const period = timing.everySeconds * 1000;
  return timing.firstRunAt + (Math.floor((after - timing.firstRunAt) / period) + 1) * period;
}

// NaN or an infinity would make every comparison false and a search loop forever.
function requireInstant(value: number, name: string): void {
  if (!Number.isFinite(value)) throw new RangeError(`${name} must be a finite number of milliseconds, not ${value}.`);
}
