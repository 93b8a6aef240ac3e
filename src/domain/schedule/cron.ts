import { FerryError } from '../errors.js';

/**
 * A five-field cron expression read with Vixie cron's rules. The sets are what each field allows; `nextRunAfter`
 * in `next-run.ts` turns them into instants in a time zone.
 */
export interface CronSpec {
  /** Sorted, distinct, 0 to 59. */
  readonly minutes: readonly number[];
  /** Sorted, distinct, 0 to 23. */
  readonly hours: readonly number[];
  /** Sorted, distinct, 1 to 31. */
  readonly daysOfMonth: readonly number[];
  /** Sorted, distinct, 1 to 12. */
  readonly months: readonly number[];
  /** Sorted, distinct, 0 (Sunday) to 6; a written 7 is Sunday too. */
  readonly daysOfWeek: readonly number[];
  /**
   * `either` when both day fields are restricted (neither starts with `*`): a day matching either field runs.
   * `both` otherwise: a day must match both, so a plain `*` leaves the other field alone to restrict. As in Vixie
   * cron only the first character counts, so `*\/2` is a `*` field here and combines with AND.
   */
  readonly dayRule: 'either' | 'both';
  /**
   * The hour field starts with `*`. Such a job follows real time across DST changes (nothing extra in a gap, both
   * passes of an overlap); any other job is fixed-hour (once after a gap, first pass of an overlap).
   */
  readonly wildcardHour: boolean;
}

interface FieldRule {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  /** Three-letter names in value order from `min`, for the fields that take names. */
  readonly names?: readonly string[];
  readonly allowedText: string;
  readonly rangeText: string;
  readonly backwardsHint?: string;
}

const PLAIN = 'only numbers, *, ranges, lists and steps are allowed';
const NAMED = 'only numbers, names, *, ranges, lists and steps are allowed';

const FIELDS: readonly FieldRule[] = [
  { name: 'minute', min: 0, max: 59, allowedText: PLAIN, rangeText: 'it allows 0 to 59' },
  { name: 'hour', min: 0, max: 23, allowedText: PLAIN, rangeText: 'it allows 0 to 23' },
  { name: 'day-of-month', min: 1, max: 31, allowedText: PLAIN, rangeText: 'it allows 1 to 31' },
  {
    name: 'month',
    min: 1,
    max: 12,
    names: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'],
    allowedText: NAMED,
    rangeText: 'it allows 1 to 12 or JAN to DEC',
  },
  {
    name: 'day-of-week',
    min: 0,
    max: 7,
    names: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'],
    allowedText: NAMED,
    rangeText: 'it allows 0 to 7 (0 and 7 are Sunday) or SUN to SAT',
    backwardsHint: ' (Sunday may be written 7, as in FRI-7)',
  },
];

// The longest day each month can have; February's 29 counts because leap years come round.
const LONGEST_MONTH_DAY = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const SEPARATORS = /[ \t]+/;
const ALLOWED_CHARACTER = /[0-9A-Za-z*,/-]/;
// Quartz and croner extensions (last day, nearest weekday) that Vixie cron does not have.
const LAST_OR_WEEKDAY = /^(?:\d+|[A-Za-z]{3})?(LW|L|W)$/i;

/**
 * Reads a five-field cron expression: minute, hour, day of month, month (1-12 or JAN-DEC), day of week (0-7 or
 * SUN-SAT, 0 and 7 both Sunday). Each field is `*`, a number, a range `a-b`, a list `a,b-c`, or a step `*\/n`,
 * `a-b/n` or `a/n` (which means `a-max/n`). Names are three letters in any case.
 *
 * @param expression the expression as the caller wrote it; spaces and tabs separate fields.
 * @param field the JSON path reported with errors.
 * @param rules `input` (new timings) also refuses a step past the field's largest value (`*\/90` in minutes fires
 *   only at 0, always a slip); `stored` reads an expression saved before that rule the way it was accepted then.
 * @returns the allowed values of every field and the day and DST rules that follow from how it was written.
 * @throws FerryError `INVALID_TIMING` when the expression breaks the grammar or can never fire (`0 0 30 2 *`).
 */
export function parseCron(expression: string, field = 'timing.expression', rules: 'input' | 'stored' = 'input'): CronSpec {
  const fail = (message: string) => new FerryError('INVALID_TIMING', message, field);
  const trimmed = expression.trim();
  if (trimmed === '') throw fail("The cron expression is empty; write five fields, such as '*/15 * * * *'.");
  if (trimmed.startsWith('@')) {
    throw fail(`Macros such as '${trimmed.split(SEPARATORS)[0]}' are not supported; write the five fields, such as '0 0 * * *' for every day at midnight.`);
  }
  const parts = trimmed.split(SEPARATORS);
  if (parts.length !== 5) {
    const extra = parts.length > 5 ? ' Seconds and years are not supported.' : '';
    throw fail(`A cron expression has exactly five fields (minute, hour, day of month, month, day of week); this one has ${parts.length}.${extra}`);
  }
  const [minutes, hours, daysOfMonth, months, rawDaysOfWeek] = parts.map((text, i) => parseField(text, FIELDS[i]!, fail, rules)) as [
    number[], number[], number[], number[], number[],
  ];
  const daysOfWeek = [...new Set(rawDaysOfWeek.map((d) => d % 7))].sort((a, b) => a - b);
  const domStar = parts[2]!.startsWith('*');
  const dowStar = parts[4]!.startsWith('*');
  const spec: CronSpec = {
    minutes,
    hours,
    daysOfMonth,
    months,
    daysOfWeek,
    dayRule: domStar || dowStar ? 'both' : 'either',
    wildcardHour: parts[1]!.startsWith('*'),
  };
  if (!canFire(spec)) {
    throw fail('This cron expression never fires: none of its months has any of its days of month (such as February 30 or April 31).');
  }
  return spec;
}

/**
 * Whether some day ever matches. Under `either` every month has every weekday, so it always does. Under `both` a
 * month and day that exist together suffice: that date's weekday runs through all seven over the years (February
 * 29th's too, within 28 years).
 */
function canFire(spec: CronSpec): boolean {
  if (spec.dayRule === 'either') return true;
  return spec.months.some((m) => spec.daysOfMonth.some((d) => d <= LONGEST_MONTH_DAY[m]!));
}

function parseField(text: string, rule: FieldRule, fail: (message: string) => FerryError, rules: 'input' | 'stored'): number[] {
  for (const ch of text) {
    if (!ALLOWED_CHARACTER.test(ch)) throw fail(`The ${rule.name} field has '${ch}'; ${rule.allowedText}.`);
  }
  const allowed = new Set<number>();
  for (const item of text.split(',')) {
    if (item === '') throw fail(`The ${rule.name} field '${text}' has an empty list item; separate values with single commas.`);
    const [lo, hi, step] = parseItem(item, rule, fail, rules);
    for (let v = lo; v <= hi; v += step) allowed.add(v);
  }
  return [...allowed].sort((a, b) => a - b);
}

/** One list item as an inclusive range and a step. */
function parseItem(item: string, rule: FieldRule, fail: (message: string) => FerryError, rules: 'input' | 'stored'): [number, number, number] {
  const slashParts = item.split('/');
  if (slashParts.length > 2) throw fail(`The ${rule.name} field has '${item}'; a step is one '/' followed by a whole number.`);
  const [base, stepText] = slashParts as [string, string | undefined];
  let step = 1;
  if (stepText !== undefined) {
    if (!/^\d+$/.test(stepText)) throw fail(`The ${rule.name} field has '${item}'; a step after '/' must be a whole number.`);
    step = Number(stepText);
    if (step === 0 || (rules === 'input' && step > rule.max)) {
      throw fail(`The ${rule.name} field has step ${stepText} in '${item}'; a step must be from 1 to ${rule.max}.`);
    }
  }
  if (base === '*') return [rule.min, rule.max, step];
  const ends = base.split('-');
  if (ends.length === 1 && !base.includes('*')) {
    const value = parseValue(base, rule, fail);
    // `a/n` is `a-max/n`, as in Vixie cron.
    return [value, stepText === undefined ? value : rule.max, step];
  }
  if (ends.length !== 2 || ends[0] === '' || ends[1] === '' || base.includes('*')) {
    throw fail(`The ${rule.name} field has '${item}', which is not a value, a range such as 1-5, or a step such as */5.`);
  }
  const lo = parseValue(ends[0]!, rule, fail);
  const hi = parseValue(ends[1]!, rule, fail);
  if (lo > hi) throw fail(`The ${rule.name} field has the range '${base}', which runs backwards; put the smaller value first${rule.backwardsHint ?? ''}.`);
  return [lo, hi, step];
}

function parseValue(token: string, rule: FieldRule, fail: (message: string) => FerryError): number {
  if (/^\d+$/.test(token)) {
    const value = Number(token);
    if (value < rule.min || value > rule.max) throw fail(`The ${rule.name} field has ${token}; ${rule.rangeText}.`);
    return value;
  }
  if (rule.names !== undefined && /^[A-Za-z]{3}$/.test(token)) {
    const index = rule.names.indexOf(token.toUpperCase());
    if (index < 0) throw fail(`The ${rule.name} field has '${token}', which is not a ${rule.name} name; ${rule.rangeText}.`);
    return rule.min + index;
  }
  const special = LAST_OR_WEEKDAY.exec(token);
  if (special !== null) throw fail(`The ${rule.name} field has '${special[1]}'; ${rule.allowedText}.`);
  throw fail(`The ${rule.name} field has '${token}'; ${rule.allowedText}.`);
}
