import { cronRunDst, latestCronRun, nextCronRun, type RunDst } from './cron-runs.js';
import type { IntervalTiming, Timing } from './timing.js';

/*
 * When a schedule's occurrences fall. All instants are milliseconds since the Unix epoch, UTC.
 *
 * Cron timing is read in its IANA zone with Vixie cron's rules (day of month OR day of week when both are
 * restricted). Across DST changes a job whose hour field starts with `*` follows real time: a spring-forward gap
 * simply has no such local times, and a fall-back overlap runs twice. Any other job is fixed-hour and follows the
 * timing's `dst` policy; by default its local times inside a gap run once, together, at the first instant after the
 * gap, and in an overlap it runs on the first pass only. See `cron-runs.ts`.
 *
 * Interval timing is `firstRunAt + k * everySeconds`, k >= 0, a fixed duration with no DST effect.
 *
 * Both kinds are bounded by `startsAt` (no occurrence before it) and `endsAt` (none at or after it).
 */

/**
 * The first occurrence strictly after `after`.
 *
 * @param timing a validated timing (see `validateTiming`).
 * @param after ms since epoch.
 * @returns ms since epoch, or null when the timing never fires again (past its end; for cron also none before the
 *   year 10000).
 */
export function nextRunAfter(timing: Timing, after: number): number | null {
  requireInstant(after, 'after');
  const next =
    timing.type === 'cron'
      ? nextCronRun(timing.expression, timing.timezone, timing.startsAt === null ? after : Math.max(after, timing.startsAt - 1), timing.dst)
      : nextIntervalRun(timing, after);
  return next !== null && timing.endsAt !== null && next >= timing.endsAt ? null : next;
}

/**
 * The latest occurrence at or before `at`, answered without walking the occurrences in between.
 *
 * @param timing a validated timing (see `validateTiming`).
 * @param at ms since epoch.
 * @returns ms since epoch, or null when there is none: `at` is before the first run (an interval's first run, a
 *   cron timing's `startsAt`), or a cron timing has no occurrence in the eight years up to `at`.
 */
export function latestRunAtOrBefore(timing: Timing, at: number): number | null {
  requireInstant(at, 'at');
  const to = timing.endsAt === null ? at : Math.min(at, timing.endsAt - 1);
  if (timing.type === 'cron') {
    const latest = latestCronRun(timing.expression, timing.timezone, to, timing.dst);
    return latest !== null && timing.startsAt !== null && latest < timing.startsAt ? null : latest;
  }
  if (to < timing.firstRunAt) return null;
  const period = timing.everySeconds * 1000;
  return timing.firstRunAt + Math.floor((to - timing.firstRunAt) / period) * period;
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

export type { RunDst };

/**
 * The next `count` occurrences strictly after `after`, each with what a DST change did to it: `gap_shifted` (it runs
 * for local times a spring-forward skipped), `overlap_first` / `overlap_second` (its local time is one a fall-back
 * repeats, and this is that pass), or `none`. Interval occurrences are always `none`.
 *
 * @param timing a validated timing (see `validateTiming`).
 * @param after ms since epoch.
 * @param count how many to return; 0 or more.
 */
export function runDetails(timing: Timing, after: number, count: number): Array<{ instant: number; dst: RunDst }> {
  return runTimes(timing, after, count).map((instant) => ({
    instant,
    dst: timing.type === 'cron' ? cronRunDst(timing.expression, timing.timezone, instant, timing.dst) : 'none',
  }));
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
