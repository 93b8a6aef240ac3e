import type { CronSpec } from './cron.js';

/**
 * Searches for the wall-clock times a cron expression matches, with no time zone involved. A wall time is a local
 * date and time written as milliseconds since the epoch as if it were UTC, so every calendar field can be read and
 * built with the UTC methods of `Date`, whatever the host's `TZ`. `cron-runs.ts` maps wall times to instants.
 *
 * This is written here rather than left to croner: a croner `nextRun` costs about 50 µs, one occurrence can need
 * several searches (forwards, backwards, bounded to one offset segment), and our parser, which must own the grammar
 * to reject croner's extensions with clear messages, already holds the field sets. With lookup tables a search is a
 * handful of steps.
 */

const MINUTE_MS = 60_000;

/**
 * A parsed expression with per-field lookup tables: for each value, the nearest allowed value at or after it and at
 * or before it (-1 for none).
 */
export interface CompiledCron {
  readonly spec: CronSpec;
  readonly nextMinute: Int8Array;
  readonly prevMinute: Int8Array;
  readonly nextHour: Int8Array;
  readonly prevHour: Int8Array;
  readonly nextMonth: Int8Array;
  readonly prevMonth: Int8Array;
  readonly firstMonth: number;
  readonly lastMonth: number;
  readonly dayOfMonth: Uint8Array;
  readonly dayOfWeek: Uint8Array;
  readonly eitherDay: boolean;
}

/** Builds the lookup tables of a parsed expression. */
export function compileCron(spec: CronSpec): CompiledCron {
  const [nextMinute, prevMinute] = nearestTables(spec.minutes, 0, 59);
  const [nextHour, prevHour] = nearestTables(spec.hours, 0, 23);
  const [nextMonth, prevMonth] = nearestTables(spec.months, 1, 12);
  return {
    spec,
    nextMinute,
    prevMinute,
    nextHour,
    prevHour,
    nextMonth,
    prevMonth,
    firstMonth: spec.months[0]!,
    lastMonth: spec.months[spec.months.length - 1]!,
    dayOfMonth: membership(spec.daysOfMonth, 32),
    dayOfWeek: membership(spec.daysOfWeek, 7),
    eitherDay: spec.dayRule === 'either',
  };
}

/** Both tables have a slot for every value from 0 to max + 1; slots below min and above max read -1. */
function nearestTables(values: readonly number[], min: number, max: number): [Int8Array, Int8Array] {
  const allowed = membership(values, max + 2);
  const next = new Int8Array(max + 2).fill(-1);
  const prev = new Int8Array(max + 2).fill(-1);
  for (let v = max, seen = -1; v >= min; v--) next[v] = seen = allowed[v] ? v : seen;
  for (let v = min, seen = -1; v <= max; v++) prev[v] = seen = allowed[v] ? v : seen;
  return [next, prev];
}

function membership(values: readonly number[], size: number): Uint8Array {
  const set = new Uint8Array(size);
  for (const v of values) set[v] = 1;
  return set;
}

function dayMatches(c: CompiledCron, day: number, weekday: number): boolean {
  return c.eitherDay ? c.dayOfMonth[day] === 1 || c.dayOfWeek[weekday] === 1 : c.dayOfMonth[day] === 1 && c.dayOfWeek[weekday] === 1;
}

const MONTH_DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  if (month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) return 29;
  return MONTH_DAYS[month]!;
}

/**
 * The earliest matching wall time (whole minute) at or after `from`, or null if there is none up to `limit`.
 *
 * @param c the compiled expression.
 * @param from a wall time; rounded up to a whole minute.
 * @param limit the last wall time worth returning.
 */
export function nextMatchingWall(c: CompiledCron, from: number, limit: number): number | null {
  let t = Math.ceil(from / MINUTE_MS) * MINUTE_MS;
  while (t <= limit) {
    const d = new Date(t);
    const year = d.getUTCFullYear();
    const month = d.getUTCMonth() + 1;
    const day = d.getUTCDate();
    const hour = d.getUTCHours();
    const minute = d.getUTCMinutes();
    const m = c.nextMonth[month]!;
    if (m !== month) {
      t = m < 0 ? Date.UTC(year + 1, c.firstMonth - 1, 1) : Date.UTC(year, m - 1, 1);
      continue;
    }
    const last = daysInMonth(year, month);
    let found = -1;
    for (let dd = day, wd = d.getUTCDay(); dd <= last; dd++, wd = (wd + 1) % 7) {
      if (dayMatches(c, dd, wd)) {
        found = dd;
        break;
      }
    }
    if (found !== day) {
      t = found < 0 ? Date.UTC(year, month, 1) : Date.UTC(year, month - 1, found);
      continue;
    }
    const h = c.nextHour[hour]!;
    if (h !== hour) {
      t = h < 0 ? Date.UTC(year, month - 1, day + 1) : Date.UTC(year, month - 1, day, h);
      continue;
    }
    const mi = c.nextMinute[minute]!;
    if (mi === minute) return t;
    t = mi < 0 ? Date.UTC(year, month - 1, day, hour + 1) : Date.UTC(year, month - 1, day, hour, mi);
  }
  return null;
}

/**
 * The latest matching wall time (whole minute) at or before `to`, or null if there is none down to `limit`.
 *
 * @param c the compiled expression.
 * @param to a wall time; rounded down to a whole minute.
 * @param limit the earliest wall time worth returning.
 */
export function previousMatchingWall(c: CompiledCron, to: number, limit: number): number | null {
  let t = Math.floor(to / MINUTE_MS) * MINUTE_MS;
  // Each step lands on the last minute of the period before the one that failed, hence the `- MINUTE_MS`.
  while (t >= limit) {
    const d = new Date(t);
    const year = d.getUTCFullYear();
    const month = d.getUTCMonth() + 1;
    const day = d.getUTCDate();
    const hour = d.getUTCHours();
    const minute = d.getUTCMinutes();
    const m = c.prevMonth[month]!;
    if (m !== month) {
      t = (m < 0 ? Date.UTC(year - 1, c.lastMonth, 1) : Date.UTC(year, m, 1)) - MINUTE_MS;
      continue;
    }
    let found = -1;
    for (let dd = day, wd = d.getUTCDay(); dd >= 1; dd--, wd = (wd + 6) % 7) {
      if (dayMatches(c, dd, wd)) {
        found = dd;
        break;
      }
    }
    if (found !== day) {
      t = (found < 0 ? Date.UTC(year, month - 1, 1) : Date.UTC(year, month - 1, found + 1)) - MINUTE_MS;
      continue;
    }
    const h = c.prevHour[hour]!;
    if (h !== hour) {
      t = (h < 0 ? Date.UTC(year, month - 1, day) : Date.UTC(year, month - 1, day, h + 1)) - MINUTE_MS;
      continue;
    }
    const mi = c.prevMinute[minute]!;
    if (mi === minute) return t;
    t = mi < 0 ? Date.UTC(year, month - 1, day, hour) - MINUTE_MS : Date.UTC(year, month - 1, day, hour, mi);
  }
  return null;
}
