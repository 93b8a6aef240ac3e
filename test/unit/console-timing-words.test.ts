import { describe, expect, it } from 'vitest';
import { cronInWords, durationInWords, timingAsGiven, timingInWords, zoneOf, type ReadTiming } from '../../src/console/schedules/timing-words.js';

// A null zone never comes from the API (a cron timing always has one); the console still reads it as UTC.
const cron = (expression: string, timezone: string | null = 'Europe/Berlin'): ReadTiming => ({
  type: 'cron',
  expression,
  timezone,
  every_seconds: null,
  starts_at: null,
}) as ReadTiming;
const interval = (every: number, startsAt: string | null = null): ReadTiming => ({
  type: 'interval',
  expression: null,
  timezone: null,
  every_seconds: every,
  starts_at: startsAt,
  dst: null,
  ends_at: null,
});

describe('cronInWords puts the common shapes in words', () => {
  it.each([
    ['* * * * *', 'Every minute'],
    ['*/1 * * * *', 'Every minute'],
    ['*/5 * * * *', 'Every 5 minutes'],
    ['*/15 * * * *', 'Every 15 minutes'],
    ['*/30 * * * *', 'Every 30 minutes'],
    ['0 * * * *', 'Every hour, on the hour'],
    ['1 * * * *', 'Every hour, at 1 minute past'],
    ['45 * * * *', 'Every hour, at 45 minutes past'],
    ['0 */1 * * *', 'Every hour, on the hour'],
    ['0 */2 * * *', 'Every 2 hours, on the hour'],
    ['30 */6 * * *', 'Every 6 hours, at 30 minutes past'],
    ['0 */12 * * *', 'Every 12 hours, on the hour'],
    ['0 0 * * *', 'At 00:00 every day'],
    ['30 2 * * *', 'At 02:30 every day'],
    ['5 9,17 * * *', 'At 09:05 and 17:05 every day'],
    ['0 8,12,18 * * *', 'At 08:00, 12:00 and 18:00 every day'],
    ['0 9 * * 1-5', 'At 09:00 on weekdays'],
    ['0 9 * * MON-FRI', 'At 09:00 on weekdays'],
    ['0 9 * * mon-fri', 'At 09:00 on weekdays'],
    ['0 9 * * 1,2,3,4,5', 'At 09:00 on weekdays'],
    ['0 10 * * 0,6', 'At 10:00 at weekends'],
    ['0 10 * * 6,0', 'At 10:00 at weekends'],
    ['0 10 * * SAT,SUN', 'At 10:00 at weekends'],
    ['0 10 * * 6-7', 'At 10:00 at weekends'],
    ['0 9 * * 0-6', 'At 09:00 every day'],
    ['0 9 * * 0-7', 'At 09:00 every day'],
    ['0 9 * * SUN-SAT', 'At 09:00 every day'],
    ['0 9 * * 1', 'At 09:00 on Monday'],
    ['0 9 * * 0', 'At 09:00 on Sunday'],
    ['0 9 * * 7', 'At 09:00 on Sunday'],
    ['0 9 * * 7-7', 'At 09:00 on Sunday'],
    ['0 9 * * 1,1', 'At 09:00 on Monday'],
    ['0 9 * * 1,3,5', 'At 09:00 on Monday, Wednesday and Friday'],
    ['0 9 * * 0,1', 'At 09:00 on Monday and Sunday'],
    ['0 9 * * FRI-7', 'At 09:00 on Friday, Saturday and Sunday'],
    ['0 9 * * 1-3,5', 'At 09:00 on Monday, Tuesday, Wednesday and Friday'],
    ['0 9 1 * *', 'At 09:00 on the 1st of every month'],
    ['0 9 1,15 * *', 'At 09:00 on the 1st and 15th of every month'],
    ['0 9 2,3,4,11,12,13,21,22,23,31 * *', 'At 09:00 on the 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 22nd, 23rd and 31st of every month'],
    ['0 12 25 12 *', 'At 12:00 on the 25th of December'],
    ['0 12 25 dec *', 'At 12:00 on the 25th of December'],
    ['0 0 1 JAN *', 'At 00:00 on the 1st of January'],
    ['0 0 29 2 *', 'At 00:00 on the 29th of February'],
    ['  0   9\t* * 1-5 ', 'At 09:00 on weekdays'],
  ])('%s → %s', (expression, words) => {
    expect(cronInWords(expression)).toBe(words);
  });
});

describe('cronInWords leaves other shapes to the expression', () => {
  it.each([
    // Steps that do not divide their cycle restart every hour or day, so the runs are not evenly apart.
    ['*/7 * * * *'],
    ['*/45 * * * *'],
    ['0 */5 * * *'],
    ['0 */7 * * *'],
    // Ranges and starts with steps, ranges of minutes or hours.
    ['0-30/10 * * * *'],
    ['5/15 * * * *'],
    ['0 9-17/2 * * *'],
    ['0 9-17 * * *'],
    ['0-10 9 * * *'],
    ['* 9 * * *'],
    ['*/15 9 * * *'],
    ['*/15 * * * 1-5'],
    ['0 * * * 1-5'],
    ['0 */2 * * 1-5'],
    ['0 */2 1 * *'],
    // Steps and ranges in the day fields.
    ['0 9 * * */2'],
    ['0 9 * * 1-5/2'],
    ['0 9 */2 * *'],
    ['0 9 1-7 * *'],
    ['0 9 1 */3 *'],
    ['0 9 1 1-6 *'],
    ['0 9 1 1,7 *'],
    ['0 9 * 3 *'],
    ['0 9 * 3 1'],
    // Both day fields restricted: cron runs on either, which words would not say plainly.
    ['0 9 1 * 1'],
    ['0 9 13 * FRI'],
    // Backwards weekday ranges.
    ['0 9 * * 5-1'],
    ['0 9 * * 7-1'],
    // Out of range or malformed.
    ['60 * * * *'],
    ['0 24 * * *'],
    ['0 9 0 * *'],
    ['0 9 32 * *'],
    ['0 9 1 0 *'],
    ['0 9 1 13 *'],
    ['0 9 * * 8'],
    ['0 9 * * funday'],
    ['0 9 * * 1-'],
    ['0 9 * * ,1'],
    ['0 9 * * 1-2-3'],
    ['*/0 * * * *'],
    ['100 * * * *'],
    // Extensions other cron dialects have (the API refuses them too).
    ['0 9 L * *'],
    ['0 9 15W * *'],
    ['0 9 LW * *'],
    ['0 9 * * 5L'],
    ['0 9 * * 1#2'],
    ['0 9 ? * 1'],
    // Not five fields.
    [''],
    ['@daily'],
    ['0 9 * *'],
    ['0 0 9 * * *'],
    ['0 9 * * * 2027'],
  ])('%s', (expression) => {
    expect(cronInWords(expression)).toBeNull();
  });
});

describe('durationInWords', () => {
  it.each([
    [0, '0 seconds'],
    [1, '1 second'],
    [59, '59 seconds'],
    [60, '1 minute'],
    [900, '15 minutes'],
    [3_600, '1 hour'],
    [5_400, '1 hour 30 minutes'],
    [86_400, '1 day'],
    [90_061, '1 day 1 hour 1 minute 1 second'],
    [2_592_000, '30 days'],
    [59.6, '1 minute'],
  ])('%s s → %s', (seconds, words) => {
    expect(durationInWords(seconds)).toBe(words);
  });
});

describe('timingInWords', () => {
  it('puts a cron timing in words with its zone, or shows the expression with its zone', () => {
    expect(timingInWords(cron('0 9 * * 1-5'))).toBe('At 09:00 on weekdays, Europe/Berlin');
    expect(timingInWords(cron('*/7 * * * *', 'America/New_York'))).toBe('Cron */7 * * * *, America/New_York');
    expect(timingInWords(cron('0 9 * * *', null))).toBe('At 09:00 every day, UTC');
    expect(timingInWords({ type: 'cron', expression: '*/15 * * * *', timezone: 'UTC' })).toBe('Every 15 minutes, UTC');
  });

  it('says an interval as its single unit, or its units', () => {
    expect(timingInWords(interval(60))).toBe('Every minute');
    expect(timingInWords(interval(900))).toBe('Every 15 minutes');
    expect(timingInWords(interval(3_600))).toBe('Every hour');
    expect(timingInWords(interval(5_400))).toBe('Every 1 hour 30 minutes');
    expect(timingInWords(interval(86_400))).toBe('Every day');
    expect(timingInWords(interval(172_800))).toBe('Every 2 days');
    expect(timingInWords(interval(90_000))).toBe('Every 1 day 1 hour');
    expect(timingInWords({ type: 'interval', every_seconds: 600 })).toBe('Every 10 minutes');
  });

  it('says when there is no timing', () => {
    expect(timingInWords(null)).toBe('No timing');
  });
});

describe('timingAsGiven', () => {
  it('shows the timing as the API has it', () => {
    expect(timingAsGiven(cron('0 9 * * 1-5'))).toBe('0 9 * * 1-5 (Europe/Berlin)');
    expect(timingAsGiven(cron('0 9 * * 1-5', null))).toBe('0 9 * * 1-5 (UTC)');
    expect(timingAsGiven(interval(900))).toBe('every_seconds 900');
    expect(timingAsGiven(interval(900, '2026-11-25T09:00:00Z'))).toBe('every_seconds 900, from 2026-11-25T09:00:00Z');
    expect(timingAsGiven(null)).toBe('');
  });

  it('shows a DST policy other than the default, and the bounds', () => {
    const berlin = { ...cron('30 2 * * *'), dst: { gap: 'skip', overlap: 'both' }, starts_at: '2027-01-01T00:00:00Z', ends_at: '2028-01-01T00:00:00Z' } as ReadTiming;
    expect(timingAsGiven(berlin)).toBe('30 2 * * * (Europe/Berlin), DST gap skip, overlap both, from 2027-01-01T00:00:00Z, until 2028-01-01T00:00:00Z (exclusive)');
    expect(timingAsGiven({ ...cron('30 2 * * *'), dst: { gap: 'shift', overlap: 'first' } } as ReadTiming)).toBe('30 2 * * * (Europe/Berlin)');
    expect(timingAsGiven({ ...interval(900), ends_at: '2027-01-01T00:00:00Z' })).toBe('every_seconds 900, until 2027-01-01T00:00:00Z (exclusive)');
  });
});

describe('zoneOf', () => {
  it('reads cron runs in the cron zone and interval runs in the viewer zone', () => {
    const viewer = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
    expect(zoneOf(cron('0 9 * * *', 'America/New_York'))).toBe('America/New_York');
    expect(zoneOf(cron('0 9 * * *', null))).toBe(viewer);
    expect(zoneOf(interval(900))).toBe(viewer);
    expect(zoneOf(null)).toBe(viewer);
  });
});
