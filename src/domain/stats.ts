/**
 * A project's activity per UTC minute, for the overview (`GET /stats`): what happened to its requests, counted as
 * it happens and kept for a day.
 */

/** The counters of one minute, in the order the API lists them. */
export const STAT_COUNTERS = ['accepted', 'delivered', 'failed', 'retried', 'callbacks'] as const;

export type StatCounter = (typeof STAT_COUNTERS)[number];

/**
 * One minute's counts: requests accepted (every source: the API, replays, schedule occurrences, callbacks),
 * requests that ended `succeeded`, requests that ended `failed`, attempts followed by another attempt, and requests
 * accepted as callbacks (also counted in `accepted`).
 */
export type StatCounts = Record<StatCounter, number>;

export const MINUTE_MS = 60_000;

/** Minutes the overview covers: the current one and the 1,439 before it. */
export const STATS_WINDOW_MINUTES = 24 * 60;

/** The source a request created to report another's ending carries. */
export const CALLBACK_SOURCE = 'callback';

/** The start of the UTC minute `at` falls in. */
export function minuteOf(at: number): number {
  return Math.floor(at / MINUTE_MS) * MINUTE_MS;
}

/** The first minute of the window that ends with the minute of `now`. */
export function windowStart(now: number): number {
  return minuteOf(now) - (STATS_WINDOW_MINUTES - 1) * MINUTE_MS;
}

export function zeroCounts(): StatCounts {
  return { accepted: 0, delivered: 0, failed: 0, retried: 0, callbacks: 0 };
}

/** Adds `more` into `into`, counter by counter. */
export function addCounts(into: StatCounts, more: Readonly<StatCounts>): void {
  for (const c of STAT_COUNTERS) into[c] += more[c];
}

export function isZero(counts: Readonly<StatCounts>): boolean {
  return STAT_COUNTERS.every((c) => counts[c] === 0);
}

/**
 * Failed requests per ended request (failed over delivered plus failed), between 0 and 1; null when none ended.
 * Cancelled requests are neither.
 */
export function failureRate(counts: Readonly<StatCounts>): number | null {
  const ended = counts.delivered + counts.failed;
  return ended === 0 ? null : counts.failed / ended;
}
