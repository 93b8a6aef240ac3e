import type { ScheduleSummary, Timing } from '../../../sdk/src/types.js';

/**
 * Timings in words: "At 09:00 on weekdays, Europe/Berlin", "Every 15 minutes". Only the common cron shapes are put
 * in words; anything else answers null and the console shows the expression itself, which is never wrong.
 */

/** The timing as the API reads it back (every member present, null when unused). */
export type ReadTiming = NonNullable<ScheduleSummary['timing']>;

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const MONTH_NAMES = MONTHS.map((m) => m.slice(0, 3).toLowerCase());

const NUMBER = /^\d{1,2}$/;

/** A plain number field, or null when it is a list, range, step or star. */
function plain(field: string, max: number): number | null {
  if (!NUMBER.test(field)) return null;
  const n = Number(field);
  return n <= max ? n : null;
}

/**
 * The N of a step field `*\/N` when N divides the field's cycle, so the runs really are N apart; a step such as
 * `*\/7` minutes restarts at every hour, and "every 7 minutes" would be wrong around it.
 */
function evenStep(field: string, cycle: number): number | null {
  const step = /^\*\/(\d{1,2})$/.exec(field);
  if (step === null) return null;
  const n = Number(step[1]);
  return n > 0 && cycle % n === 0 ? n : null;
}

/** A list of plain numbers ("9,17"), or null. */
function plainList(field: string, max: number): number[] | null {
  const parts = field.split(',').map((p) => plain(p, max));
  return parts.every((p): p is number => p !== null) ? parts : null;
}

/**
 * Weekday field with names and 7 for Sunday: "1-5", "MON-FRI", "0,6", "FRI-7". Answers the days 0–6, or null.
 * Ranges are read on 0–7 as the API reads them (so `7-7` is Sunday alone) and only then folded onto 0–6.
 */
function weekdays(field: string): number[] | null {
  const day = (text: string): number | null => {
    const named = DAY_NAMES.indexOf(text.toLowerCase());
    return named >= 0 ? named : plain(text, 7);
  };
  const days = new Set<number>();
  for (const part of field.split(',')) {
    const [from, to, extra] = part.split('-');
    if (extra !== undefined || from === undefined) return null;
    const a = day(from);
    const b = to === undefined ? a : day(to);
    if (a === null || b === null || b < a) return null;
    for (let d = a; d <= b; d++) days.add(d % 7);
  }
  return [...days].sort((x, y) => x - y);
}

function month(field: string): number | null {
  const named = MONTH_NAMES.indexOf(field.toLowerCase());
  if (named >= 0) return named;
  const n = plain(field, 12);
  return n === null || n === 0 ? null : n - 1;
}

const two = (n: number) => String(n).padStart(2, '0');
const ordinal = (n: number) => {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${['th', 'st', 'nd', 'rd'][n % 10] ?? 'th'}`;
};
const joinWords = (words: string[]) => (words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`);

function dayWords(days: number[]): string {
  const key = days.join(',');
  if (key === '1,2,3,4,5') return 'on weekdays';
  if (key === '0,6') return 'at weekends';
  if (key === '0,1,2,3,4,5,6') return 'every day';
  const mondayFirst = [...days].sort((x, y) => ((x + 6) % 7) - ((y + 6) % 7));
  return `on ${joinWords(mondayFirst.map((d) => DAYS[d]!))}`;
}

/** A five-field cron expression in words, or null when its shape is not a common one. */
export function cronInWords(expression: string): string | null {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5) return null;
  const [min, hour, dom, mon, dow] = fields as [string, string, string, string, string];
  const dateFree = dom === '*' && mon === '*' && dow === '*';

  if (min === '*' && hour === '*' && dateFree) return 'Every minute';
  const everyMinutes = evenStep(min, 60);
  if (everyMinutes !== null && hour === '*' && dateFree) return everyMinutes === 1 ? 'Every minute' : `Every ${everyMinutes} minutes`;

  const minute = plain(min, 59);
  if (minute === null) return null;
  const past = minute === 0 ? 'on the hour' : `at ${minute} minute${minute === 1 ? '' : 's'} past`;
  if (hour === '*' && dateFree) return `Every hour, ${past}`;
  const everyHours = evenStep(hour, 24);
  if (everyHours !== null && dateFree) return everyHours === 1 ? `Every hour, ${past}` : `Every ${everyHours} hours, ${past}`;

  const hours = plainList(hour, 23);
  if (hours === null) return null;
  const at = `At ${joinWords(hours.map((h) => `${two(h)}:${two(minute)}`))}`;

  if (dom === '*' && mon === '*') {
    if (dow === '*') return `${at} every day`;
    const days = weekdays(dow);
    return days === null ? null : `${at} ${dayWords(days)}`;
  }
  if (dow !== '*') return null;
  const dates = plainList(dom, 31);
  if (dates === null || dates.includes(0)) return null;
  const onDates = `on the ${joinWords(dates.map(ordinal))}`;
  if (mon === '*') return `${at} ${onDates} of every month`;
  const m = month(mon);
  return m === null ? null : `${at} ${onDates} of ${MONTHS[m]}`;
}

/** A whole number of seconds as the largest units that fit: "15 minutes", "1 hour 30 minutes", "2 days". */
export function durationInWords(seconds: number): string {
  const parts: string[] = [];
  let rest = Math.round(seconds);
  for (const [unit, size] of [['day', 86_400], ['hour', 3_600], ['minute', 60], ['second', 1]] as const) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0) parts.push(`${n} ${unit}${n === 1 ? '' : 's'}`);
  }
  return parts.length === 0 ? '0 seconds' : parts.join(' ');
}

/** The timing in words, e.g. "At 09:00 on weekdays, Europe/Berlin"; the expression stands in for shapes without words. */
export function timingInWords(timing: ReadTiming | Timing | null): string {
  if (timing === null) return 'No timing';
  if (timing.type === 'interval') {
    const every = timing.every_seconds ?? 0;
    return every === 86_400 ? 'Every day' : `Every ${durationInWords(every).replace(/^1 (\w+)$/, '$1')}`;
  }
  const expression = timing.expression ?? '';
  const zone = timing.timezone ?? 'UTC';
  return `${cronInWords(expression) ?? `Cron ${expression}`}, ${zone}`;
}

/**
 * The timing as given: the cron expression and its zone with its daylight-saving policy when not the default, or
 * the interval in seconds; then its start and end when it has them.
 */
export function timingAsGiven(timing: ReadTiming | Timing | null): string {
  if (timing === null) return '';
  const start = timing.starts_at ? `, from ${timing.starts_at}` : '';
  const end = timing.ends_at ? `, until ${timing.ends_at} (exclusive)` : '';
  if (timing.type === 'interval') return `every_seconds ${timing.every_seconds ?? '?'}${start}${end}`;
  const gap = timing.dst?.gap ?? 'shift';
  const overlap = timing.dst?.overlap ?? 'first';
  const dst = gap === 'shift' && overlap === 'first' ? '' : `, DST gap ${gap}, overlap ${overlap}`;
  return `${timing.expression ?? ''} (${timing.timezone ?? 'UTC'})${dst}${start}${end}`;
}

/** The zone runs are best read in: the cron's own zone; for intervals, the viewer's. */
export function zoneOf(timing: ReadTiming | Timing | null): string {
  if (timing?.type === 'cron' && timing.timezone) return timing.timezone;
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}
