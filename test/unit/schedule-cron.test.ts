import { describe, expect, it } from 'vitest';
import { parseCron, type CronSpec } from '../../src/domain/schedule/cron.js';
import { expectFerryError } from './expect-ferry-error.js';

const range = (from: number, to: number, step = 1): number[] => {
  const values: number[] = [];
  for (let v = from; v <= to; v += step) values.push(v);
  return values;
};

const EVERY = {
  minutes: range(0, 59),
  hours: range(0, 23),
  daysOfMonth: range(1, 31),
  months: range(1, 12),
  daysOfWeek: range(0, 6),
  dayRule: 'both',
  wildcardHour: true,
} as const satisfies CronSpec;

describe('parseCron: accepted forms and the sets they mean', () => {
  it.each<[string, string, Partial<CronSpec>]>([
    ['every field a wildcard', '* * * * *', {}],
    ['single numbers', '5 4 3 2 1', { minutes: [5], hours: [4], daysOfMonth: [3], months: [2], daysOfWeek: [1], dayRule: 'either', wildcardHour: false }],
    ['leading zeros', '05 08 09 01 01', { minutes: [5], hours: [8], daysOfMonth: [9], months: [1], daysOfWeek: [1], dayRule: 'either', wildcardHour: false }],
    ['field bounds', '0,59 0,23 1,31 1,12 0,6', { minutes: [0, 59], hours: [0, 23], daysOfMonth: [1, 31], months: [1, 12], daysOfWeek: [0, 6], dayRule: 'either', wildcardHour: false }],
    ['a range', '10-14 * * * *', { minutes: [10, 11, 12, 13, 14] }],
    ['a one-value range', '7-7 * * * *', { minutes: [7] }],
    ['a list of values and ranges', '1,5-7,30 * * * *', { minutes: [1, 5, 6, 7, 30] }],
    ['a wildcard step', '*/15 * * * *', { minutes: [0, 15, 30, 45] }],
    ['a wildcard step on days of month starts at 1', '0 0 */10 * *', { minutes: [0], hours: [0], daysOfMonth: [1, 11, 21, 31], wildcardHour: false }],
    ['a range step', '10-40/10 * * * *', { minutes: [10, 20, 30, 40] }],
    ['a value step a/n means a-max/n', '5/20 * * * *', { minutes: [5, 25, 45] }],
    ['overlapping list items', '1-10/3,4-5 * * * *', { minutes: [1, 4, 5, 7, 10] }],
    ['month names, any case', '0 0 1 jan,Jul,DEC *', { minutes: [0], hours: [0], daysOfMonth: [1], months: [1, 7, 12], wildcardHour: false }],
    ['a month name range with a step', '0 0 1 JAN-JUN/2 *', { minutes: [0], hours: [0], daysOfMonth: [1], months: [1, 3, 5], wildcardHour: false }],
    ['day names, any case', '0 0 * * sun,Wed,SAT', { minutes: [0], hours: [0], daysOfWeek: [0, 3, 6], wildcardHour: false }],
    ['a day name range', '0 0 * * MON-FRI', { minutes: [0], hours: [0], daysOfWeek: [1, 2, 3, 4, 5], wildcardHour: false }],
    ['Sunday as 0', '0 0 * * 0', { minutes: [0], hours: [0], daysOfWeek: [0], wildcardHour: false }],
    ['Sunday as 7', '0 0 * * 7', { minutes: [0], hours: [0], daysOfWeek: [0], wildcardHour: false }],
    ['a weekday range ending on 7', '0 0 * * FRI-7', { minutes: [0], hours: [0], daysOfWeek: [0, 5, 6], wildcardHour: false }],
    ['a weekday step over 0-7', '0 0 * * */2', { minutes: [0], hours: [0], daysOfWeek: [0, 2, 4, 6], wildcardHour: false }],
    ['a weekday value step runs to 7', '0 0 * * 1/3', { minutes: [0], hours: [0], daysOfWeek: [0, 1, 4], wildcardHour: false }],
    ['tabs and repeated spaces', ' 0\t0   * *  * ', { minutes: [0], hours: [0], wildcardHour: false }],
    ['February 29th', '0 0 29 2 *', { minutes: [0], hours: [0], daysOfMonth: [29], months: [2], wildcardHour: false }],
    ['a day that exists in some listed month', '0 0 31 2,3 *', { minutes: [0], hours: [0], daysOfMonth: [31], months: [2, 3], wildcardHour: false }],
    ['an impossible day of month saved by a weekday (Vixie OR)', '0 0 30 2 MON', { minutes: [0], hours: [0], daysOfMonth: [30], months: [2], daysOfWeek: [1], dayRule: 'either', wildcardHour: false }],
  ])('%s: %j', (_what, expression, expected) => {
    expect(parseCron(expression)).toEqual({ ...EVERY, ...expected });
  });

  it('reads a stored expression with a step longer than the field as it was accepted before steps were bounded', () => {
    expect(parseCron('*/90 * * * *', 'timing.expression', 'stored')).toEqual({ ...EVERY, minutes: [0] });
    expectFerryError(() => parseCron('*/0 * * * *', 'timing.expression', 'stored'), 'INVALID_TIMING', 'timing.expression');
  });

  it.each<[string, CronSpec['dayRule']]>([
    ['0 0 1 * 1', 'either'],
    ['0 0 1-7 * MON', 'either'],
    ['0 0 1 * *', 'both'],
    ['0 0 * * 1', 'both'],
    ['0 0 * * *', 'both'],
    // Vixie looks only at the first character: a step on `*` still counts as unrestricted, so the fields combine
    // with AND.
    ['0 0 */2 * 1', 'both'],
    ['0 0 1 * */2', 'both'],
  ])('pins the day rule of %j as %s', (expression, rule) => {
    expect(parseCron(expression).dayRule).toBe(rule);
  });

  it.each(['0 * * * *', '0 */2 * * *', '*/5 * * * *', '30 */1 1 * *'])('pins %j as wildcard-hour (hour field starts with *)', (expression) => {
    expect(parseCron(expression).wildcardHour).toBe(true);
  });

  it.each(['0 2 * * *', '0 0-23 * * *', '0 1,2 * * *', '0 0/1 * * *', '*/15 2 * * *'])('pins %j as fixed-hour (hour field not starting with *)', (expression) => {
    expect(parseCron(expression).wildcardHour).toBe(false);
  });
});

describe('parseCron: rejected forms', () => {
  it.each<[string, string, string]>([
    ['an empty expression', '', 'is empty'],
    ['a blank expression', ' \t ', 'is empty'],
    ['the @daily macro', '@daily', "Macros such as '@daily' are not supported"],
    ['the @reboot macro', '@reboot', "Macros such as '@reboot' are not supported"],
    ['four fields', '0 3 * *', 'exactly five fields (minute, hour, day of month, month, day of week); this one has 4.'],
    ['six fields (seconds)', '0 0 3 * * *', 'this one has 6. Seconds and years are not supported.'],
    ['seven fields (years)', '0 0 3 * * * 2027', 'this one has 7.'],
    ['words', 'every day', 'this one has 2.'],
    ['L in day of month', '0 0 L * *', "The day-of-month field has 'L'; only numbers, *, ranges, lists and steps are allowed."],
    ['L in day of week', '0 0 * * L', "The day-of-week field has 'L'; only numbers, names, *, ranges, lists and steps are allowed."],
    ['nL in day of week', '0 0 * * 5L', "The day-of-week field has 'L'; only numbers, names, *, ranges, lists and steps are allowed."],
    ['a name with L in day of week', '0 0 * * FRIL', "The day-of-week field has 'L';"],
    ['W in day of month', '0 0 15W * *', "The day-of-month field has 'W';"],
    ['LW in day of month', '0 0 LW * *', "The day-of-month field has 'LW';"],
    ['# in day of week', '0 0 * * 1#2', "The day-of-week field has '#';"],
    ['? in day of month', '0 0 ? * 1', "The day-of-month field has '?';"],
    ['a decimal point', '1.5 * * * *', "The minute field has '.';"],
    ['minute 60', '60 * * * *', 'The minute field has 60; it allows 0 to 59.'],
    ['hour 24', '* 24 * * *', 'The hour field has 24; it allows 0 to 23.'],
    ['day 0', '* * 0 * *', 'The day-of-month field has 0; it allows 1 to 31.'],
    ['day 32', '* * 32 * *', 'The day-of-month field has 32; it allows 1 to 31.'],
    ['month 0', '* * * 0 *', 'The month field has 0; it allows 1 to 12 or JAN to DEC.'],
    ['month 13', '* * * 13 *', 'The month field has 13; it allows 1 to 12 or JAN to DEC.'],
    ['weekday 8', '* * * * 8', 'The day-of-week field has 8; it allows 0 to 7 (0 and 7 are Sunday) or SUN to SAT.'],
    ['an out-of-range range end', '0-60 * * * *', 'The minute field has 60;'],
    ['a huge number', '99999999999999999999 * * * *', 'The minute field has 99999999999999999999;'],
    ['a reversed range', '5-2 * * * *', "The minute field has the range '5-2', which runs backwards; put the smaller value first."],
    ['a reversed weekday range', '0 0 * * FRI-SUN', "range 'FRI-SUN', which runs backwards; put the smaller value first (Sunday may be written 7, as in FRI-7)."],
    ['a reversed month range', '0 0 1 DEC-JAN *', "The month field has the range 'DEC-JAN', which runs backwards"],
    ['a step longer than the field', '*/90 * * * *', "The minute field has step 90 in '*/90'; a step must be from 1 to 59."],
    ['step 0 on a wildcard', '*/0 * * * *', "The minute field has step 0 in '*/0'; a step must be from 1 to 59."],
    ['a step past the field', '*/60 * * * *', "The minute field has step 60 in '*/60'; a step must be from 1 to 59."],
    ['a huge step', '*/99999999999 * * * *', "The minute field has step 99999999999 in '*/99999999999'; a step must be from 1 to 59."],
    ['a huge step on a range', '0 0 1-5/100 * *', "The day-of-month field has step 100 in '1-5/100'; a step must be from 1 to 31."],
    ['step 0 on a range', '* 1-5/0 * * *', "The hour field has step 0 in '1-5/0'"],
    ['a non-numeric step', '*/x * * * *', "The minute field has '*/x'; a step after '/' must be a whole number."],
    ['an empty step', '*/ * * * *', "a step after '/' must be a whole number"],
    ['a name as step', '0 0 * * */MON', "a step after '/' must be a whole number"],
    ['two steps', '*/2/3 * * * *', "The minute field has '*/2/3'; a step is one '/' followed by a whole number."],
    ['an empty list item', '1,,2 * * * *', "The minute field '1,,2' has an empty list item"],
    ['a trailing comma', '0 1, * * *', "The hour field '1,' has an empty list item"],
    ['a leading comma', '0 0 ,1 * *', "The day-of-month field ',1' has an empty list item"],
    ['a three-part range', '1-2-3 * * * *', "The minute field has '1-2-3', which is not a value, a range such as 1-5, or a step such as */5."],
    ['a range from *', '*-5 * * * *', "The minute field has '*-5', which is not a value"],
    ['a negative number', '-5 * * * *', "The minute field has '-5', which is not a value"],
    ['an open range', '5- * * * *', "The minute field has '5-', which is not a value"],
    ['an unknown month name', '0 0 1 FOO *', "The month field has 'FOO', which is not a month name; it allows 1 to 12 or JAN to DEC."],
    ['a day name in the month field', '0 0 1 MON *', "The month field has 'MON', which is not a month name"],
    ['a month name in the day-of-week field', '0 0 * * JAN', "The day-of-week field has 'JAN', which is not a day-of-week name"],
    ['a long day name', '0 0 * * MONDAY', "The day-of-week field has 'MONDAY'; only numbers, names, *, ranges, lists and steps are allowed."],
    ['a name in the hour field', '0 MON * * *', "The hour field has 'MON'; only numbers, *, ranges, lists and steps are allowed."],
    ['a never-firing February 30th', '0 0 30 2 *', 'never fires'],
    ['a never-firing 31st of the short months', '0 0 31 4,6,9,11 *', 'never fires'],
    ['a never-firing 30th/31st of February', '0 0 30,31 FEB *', 'never fires'],
    ['a never-firing day even with a starred weekday (AND)', '0 0 30 2 */2', 'never fires'],
  ])('rejects %s: %j', (_what, expression, message) => {
    const err = expectFerryError(() => parseCron(expression), 'INVALID_TIMING', 'timing.expression');
    expect(err.message).toContain(message);
  });

  it('reports the field it is given', () => {
    expectFerryError(() => parseCron('@daily', 'schedules[3].timing.expression'), 'INVALID_TIMING', 'schedules[3].timing.expression');
  });
});
