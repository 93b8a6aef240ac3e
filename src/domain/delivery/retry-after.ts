/**
 * Reading a destination's Retry-After header (RFC 9110 §10.2.3). The value is both interpreted (to pick the next
 * attempt's time) and kept (so the attempt record shows what the destination actually said), which are two
 * different jobs: the kept text must be bounded and safe to display, the interpretation must be strict.
 */

export interface RetryAfterReading {
  /** What was sent, escaped to printable ASCII and bounded; '' when absent. */
  readonly raw: string;
  /** The stored text was cut to fit RETRY_AFTER_RAW_MAX. */
  readonly truncated: boolean;
  /** The stored text holds at least one `\xNN` or `\uNNNN` escape. */
  readonly escaped: boolean;
  readonly status: 'valid' | 'invalid' | 'absent';
  /** Milliseconds from `now` until the destination asked to be retried; 0 unless valid and in the future. */
  readonly delayMs: number;
}

export const RETRY_AFTER_RAW_MAX = 128;

// RFC 9111 §1.2.2 saturates delta-seconds at 2^31; the same bound keeps far-future dates comparable and safe.
const MAX_DELAY_SECONDS = 2 ** 31;
export const MAX_RETRY_AFTER_DELAY_MS = MAX_DELAY_SECONDS * 1000;

export interface PrintableText {
  readonly text: string;
  readonly truncated: boolean;
  readonly escaped: boolean;
}

/**
 * Escapes every UTF-16 unit outside 0x20–0x7E and bounds the result. Cutting happens between whole escapes, so the
 * result never ends in half an escape sequence; `escaped` describes the result, not the input.
 */
export function toPrintable(value: string, max: number): PrintableText {
  let text = '';
  let escaped = false;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    const piece = unit >= 0x20 && unit <= 0x7e ? value[i] ?? '' : escapeUnit(unit);
    if (text.length + piece.length > max) return { text, truncated: true, escaped };
    text += piece;
    if (piece.length > 1) escaped = true;
  }
  return { text, truncated: false, escaped };
}

function escapeUnit(unit: number): string {
  const hex = unit.toString(16).toUpperCase();
  return unit <= 0xff ? `\\x${hex.padStart(2, '0')}` : `\\u${hex.padStart(4, '0')}`;
}

export function parseRetryAfter(raw: string | null | undefined, now: number): RetryAfterReading {
  if (raw === null || raw === undefined) {
    return { raw: '', truncated: false, escaped: false, status: 'absent', delayMs: 0 };
  }
  const kept = toPrintable(raw, RETRY_AFTER_RAW_MAX);
  const delayMs = interpret(trimOws(raw), now);
  return {
    raw: kept.text,
    truncated: kept.truncated,
    escaped: kept.escaped,
    status: delayMs === null ? 'invalid' : 'valid',
    delayMs: delayMs ?? 0,
  };
}

/** Milliseconds to wait, or null when the value is not a Retry-After value at all. */
function interpret(value: string, now: number): number | null {
  if (/^[0-9]+$/.test(value)) return deltaSecondsMs(value);
  const at = parseHttpDate(value, now);
  if (at === null) return null;
  return Math.min(Math.max(0, Math.ceil(at - now)), MAX_RETRY_AFTER_DELAY_MS);
}

function deltaSecondsMs(digits: string): number {
  const significant = digits.replace(/^0+(?=.)/, '');
  // Past 10 digits the number is beyond 2^31 anyway; stopping there keeps huge inputs exact and cheap.
  const seconds = significant.length > 10 ? MAX_DELAY_SECONDS : Math.min(Number(significant), MAX_DELAY_SECONDS);
  return seconds * 1000;
}

// Only OWS (space and tab) surrounds a field value; anything else makes the value invalid.
function trimOws(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && isOws(value.charCodeAt(start))) start++;
  while (end > start && isOws(value.charCodeAt(end - 1))) end--;
  return value.slice(start, end);
}

function isOws(unit: number): boolean {
  return unit === 0x20 || unit === 0x09;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';

// HTTP-date is case-sensitive (RFC 9110 §5.6.7), so no `i` flag. The day name is not checked against the date:
// it is redundant, and a mismatch leaves no doubt about which instant was meant.
const IMF_FIXDATE = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
const RFC850_DATE = new RegExp(`^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
const ASCTIME_DATE = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ${MONTH} ( \\d|\\d{2}) ${TIME} (\\d{4})$`);

interface DateFields {
  year: number;
  month: string;
  day: string;
  hour: string;
  minute: string;
  second: string;
}

/** Epoch milliseconds of an HTTP-date in any of its three forms, or null. */
export function parseHttpDate(value: string, now: number): number | null {
  let m = IMF_FIXDATE.exec(value);
  if (m) return toEpochMs({ day: m[1] ?? '', month: m[2] ?? '', year: Number(m[3]), hour: m[4] ?? '', minute: m[5] ?? '', second: m[6] ?? '' });
  m = RFC850_DATE.exec(value);
  if (m) {
    const year = twoDigitYear(Number(m[3]), now);
    return toEpochMs({ day: m[1] ?? '', month: m[2] ?? '', year, hour: m[4] ?? '', minute: m[5] ?? '', second: m[6] ?? '' });
  }
  m = ASCTIME_DATE.exec(value);
  if (m) return toEpochMs({ month: m[1] ?? '', day: m[2] ?? '', hour: m[3] ?? '', minute: m[4] ?? '', second: m[5] ?? '', year: Number(m[6]) });
  return null;
}

/**
 * RFC 9110 §5.6.7: a two-digit year that would be more than 50 years ahead of `now` means the most recent past year
 * with those digits. Read as a sliding window, the year lands in (now − 50, now + 50], so near the end of a century
 * small digits mean the next one. Judged by calendar year, which is as precise as a two-digit year deserves.
 */
export function twoDigitYear(yy: number, now: number): number {
  const current = new Date(now).getUTCFullYear();
  const candidate = current - (current % 100) + yy;
  if (candidate > current + 50) return candidate - 100;
  if (candidate <= current - 50) return candidate + 100;
  return candidate;
}

function toEpochMs(f: DateFields): number | null {
  const month = MONTHS.indexOf(f.month) + 1;
  const day = Number(f.day.trim());
  const hour = Number(f.hour);
  const minute = Number(f.minute);
  // 60 is allowed for a leap second; it lands on the next minute's first second.
  const second = Number(f.second);
  if (month < 1 || day < 1 || day > daysInMonth(f.year, month) || hour > 23 || minute > 59 || second > 60) return null;
  return ((daysFromCivil(f.year, month, day) * 24 + hour) * 60 + minute) * 60_000 + second * 1000;
}

function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

function daysInMonth(y: number, m: number): number {
  if (m === 2) return isLeapYear(y) ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

// Days since 1970-01-01 in the proleptic Gregorian calendar; avoids Date.UTC's remapping of years 0–99.
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}
