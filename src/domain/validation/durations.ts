import { type ErrorCode, FerryError } from '../errors.js';
import { MAX_DELAY_MS, MAX_DELIVER_AT_AHEAD_MS, MAX_TIMEOUT_SECONDS, MIN_DELAY_MS, MIN_TIMEOUT_SECONDS } from './limits.js';
import { DELAY_PATTERN as DELAY, TIMEOUT_PATTERN as TIMEOUT } from './patterns.js';

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

export function parseDelay(s: string, field = 'delay'): number {
  const m = typeof s === 'string' ? DELAY.exec(s) : null;
  if (m === null) {
    throw new FerryError('INVALID_DELAY', 'The delay must be an integer followed by s, m, h or d, such as 90s or 2h.', field);
  }
  const ms = Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
  if (ms < MIN_DELAY_MS || ms > MAX_DELAY_MS) {
    throw new FerryError('INVALID_DELAY', 'The delay must be between 1s and 30d.', field);
  }
  return ms;
}

/**
 * A duration in the delay syntax, in its shortest exact form: the largest unit that divides it (`90s`, `1m`,
 * `1h`, `2d`); whole seconds only.
 */
export function formatDuration(ms: number): string {
  for (const unit of ['d', 'h', 'm'] as const) {
    if (ms > 0 && ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
  }
  return `${Math.round(ms / UNIT_MS.s)}s`;
}

/** Returns whole seconds, the unit timeouts are stored in. */
export function parseTimeout(s: string, field = 'timeout'): number {
  const m = typeof s === 'string' ? TIMEOUT.exec(s) : null;
  if (m === null) {
    throw new FerryError('INVALID_TIMEOUT', 'The timeout must be whole seconds or minutes, such as 30s or 2m.', field);
  }
  const seconds = Number(m[1]) * (m[2] === 'm' ? 60 : 1);
  if (seconds < MIN_TIMEOUT_SECONDS || seconds > MAX_TIMEOUT_SECONDS) {
    throw new FerryError('INVALID_TIMEOUT', 'The timeout must be between 1s and 5m.', field);
  }
  return seconds;
}

// RFC 3339 section 5.6; `T` and `Z` may be lower case. Fractions stop at nanoseconds, the finest any clock reports.
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

function daysInMonth(y: number, m: number): number {
  if (m === 2) return isLeapYear(y) ? 29 : 28;
  return [4, 6, 9, 11].includes(m) ? 30 : 31;
}

/** Days since 1970-01-01 of a proleptic Gregorian date; Date.UTC would misread years 0 to 99 as 1900 to 1999. */
function daysFromCivil(y: number, m: number, d: number): number {
  const year = m <= 2 ? y - 1 : y;
  const era = Math.floor(year / 400);
  const yoe = year - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** Parses a strict RFC 3339 timestamp to epoch milliseconds; sub-millisecond digits are dropped. */
export function parseRfc3339(s: string, code: ErrorCode, field: string): number {
  const m = typeof s === 'string' ? RFC3339.exec(s) : null;
  const fail = (why: string) => new FerryError(code, `${field} ${why}`, field);
  if (m === null) throw fail('must be an RFC 3339 timestamp such as 2026-01-31T09:30:00Z.');
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) throw fail('is not a real calendar date.');
  // Second 60 is RFC 3339's leap second; it is read as the first instant of the next minute.
  if (hour > 23 || minute > 59 || second > 60) throw fail('has a time of day out of range.');
  let offsetMinutes = 0;
  if (m[8] === undefined) {
    const offsetHours = Number(m[10]);
    const offsetMins = Number(m[11]);
    if (offsetHours > 23 || offsetMins > 59) throw fail('has an offset out of range.');
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  const millis = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  const local = daysFromCivil(year, month, day) * 86_400_000 + ((hour * 60 + minute) * 60 + second) * 1000 + millis;
  return local - offsetMinutes * 60_000;
}

/**
 * The absolute delivery time of a new request, or null when it is due at once. A past deliver_at means now, as the
 * contract says, so a clock difference between caller and service never rejects an otherwise valid request.
 */
export function resolveDeliveryTime(input: { delay?: string; deliverAt?: string; now: number }): number | null {
  const { delay, deliverAt, now } = input;
  if (delay !== undefined && deliverAt !== undefined) {
    throw new FerryError('INVALID_DELIVER_AT', 'deliver_at cannot be combined with delay; send only one of them.', 'deliver_at');
  }
  if (delay !== undefined) return now + parseDelay(delay);
  if (deliverAt === undefined) return null;
  const at = parseRfc3339(deliverAt, 'INVALID_DELIVER_AT', 'deliver_at');
  if (at > now + MAX_DELIVER_AT_AHEAD_MS) {
    throw new FerryError('INVALID_DELIVER_AT', 'deliver_at must be within 30 days of now.', 'deliver_at');
  }
  return at <= now ? null : at;
}
