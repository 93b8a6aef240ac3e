import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseCron, type CronSpec } from '../../src/domain/schedule/cron.js';
import { latestRunAtOrBefore, nextRunAfter, runTimes } from '../../src/domain/schedule/next-run.js';
import { offsetSegmentAt } from '../../src/domain/schedule/zone-offsets.js';
import { DEFAULT_DST, type CronTiming, type IntervalTiming, type Timing } from '../../src/domain/schedule/timing.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const at = (iso: string): number => {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new Error(`bad instant in test: ${iso}`);
  return ms;
};
const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
const cron = (expression: string, timezone = 'UTC'): CronTiming => ({ type: 'cron', expression, timezone, dst: DEFAULT_DST, startsAt: null, endsAt: null });
const interval = (everySeconds: number, firstRunAt: number): IntervalTiming => ({ type: 'interval', everySeconds, startsAt: null, firstRunAt, endsAt: null });
/** The next `count` runs after `after`, as ISO strings without seconds noise. */
const runs = (timing: Timing, after: string, count: number): string[] => runTimes(timing, at(after), count).map((t) => iso(t)!);
const z = (s: string): string => `${s}:00.000Z`;

// Every row: [what it pins, expression, zone, after, the runs that follow, in UTC].
type Row = [string, string, string, string, string[]];

const NEW_YORK = 'America/New_York';
const BERLIN = 'Europe/Berlin';
const LORD_HOWE = 'Australia/Lord_Howe';

describe('cron across DST changes, as exact UTC instants', () => {
  // 2027-03-14: at 07:00Z New York jumps from 02:00 EST (-5) to 03:00 EDT (-4); local 02:00-02:59 does not exist.
  const newYorkSpring: Row[] = [
    ['fixed-hour in the gap runs at the first instant after it', '30 2 * * *', NEW_YORK, '2027-03-12T12:00Z',
      ['2027-03-13T07:30', '2027-03-14T07:00', '2027-03-15T06:30']],
    ['two local times of one job in the gap make one run', '0,30 2 * * *', NEW_YORK, '2027-03-12T12:00Z',
      ['2027-03-13T07:00', '2027-03-13T07:30', '2027-03-14T07:00', '2027-03-15T06:00', '2027-03-15T06:30']],
    ['a minute step in a fixed hour makes one run in the gap', '*/15 2 * * *', NEW_YORK, '2027-03-14T06:00Z',
      ['2027-03-14T07:00', '2027-03-15T06:00', '2027-03-15T06:15']],
    ['a gap run and a match at the gap end (03:00) make one run', '0 2,3 * * *', NEW_YORK, '2027-03-12T12:00Z',
      ['2027-03-13T07:00', '2027-03-13T08:00', '2027-03-14T07:00', '2027-03-15T06:00', '2027-03-15T07:00']],
    ['fixed-hour outside the gap is untouched (03:00 EDT)', '0 3 * * *', NEW_YORK, '2027-03-13T00:00Z',
      ['2027-03-13T08:00', '2027-03-14T07:00', '2027-03-15T07:00']],
    ['fixed-hour just before the gap', '59 1 * * *', NEW_YORK, '2027-03-13T12:00Z', ['2027-03-14T06:59', '2027-03-15T05:59']],
    ['wildcard-hour follows real time: nothing extra in the gap', '*/15 * * * *', NEW_YORK, '2027-03-14T06:30Z',
      ['2027-03-14T06:45', '2027-03-14T07:00', '2027-03-14T07:15']],
    ['wildcard-hour skips the local time the gap removes (02:30)', '30 * * * *', NEW_YORK, '2027-03-14T05:00Z',
      ['2027-03-14T05:30', '2027-03-14T06:30', '2027-03-14T07:30', '2027-03-14T08:30']],
    ['a stepped wildcard hour skips 02:00 and goes on at 04:00 EDT', '0 */2 * * *', NEW_YORK, '2027-03-14T04:00Z',
      ['2027-03-14T05:00', '2027-03-14T08:00', '2027-03-14T10:00']],
  ];

  // 2027-11-07: at 06:00Z New York falls back from 02:00 EDT (-4) to 01:00 EST (-5); local 01:00-01:59 happens twice.
  const newYorkFall: Row[] = [
    ['fixed-hour in the overlap runs once, on the first pass', '30 1 * * *', NEW_YORK, '2027-11-06T12:00Z',
      ['2027-11-07T05:30', '2027-11-08T06:30']],
    ['a minute step in a fixed hour runs on the first pass only', '*/20 1 * * *', NEW_YORK, '2027-11-07T04:00Z',
      ['2027-11-07T05:00', '2027-11-07T05:20', '2027-11-07T05:40', '2027-11-08T06:00']],
    ['fixed-hour either side of the overlap', '0 1,2 * * *', NEW_YORK, '2027-11-06T12:00Z',
      ['2027-11-07T05:00', '2027-11-07T07:00', '2027-11-08T06:00']],
    ['wildcard-hour runs in both passes', '*/15 * * * *', NEW_YORK, '2027-11-07T04:50Z',
      ['2027-11-07T05:00', '2027-11-07T05:15', '2027-11-07T05:30', '2027-11-07T05:45',
        '2027-11-07T06:00', '2027-11-07T06:15', '2027-11-07T06:30', '2027-11-07T06:45', '2027-11-07T07:00']],
    ['wildcard-hour hourly runs 01:30 twice', '30 * * * *', NEW_YORK, '2027-11-07T04:00Z',
      ['2027-11-07T04:30', '2027-11-07T05:30', '2027-11-07T06:30', '2027-11-07T07:30']],
    ['fixed-hour asked from inside the second pass waits for the next day', '30 1 * * *', NEW_YORK, '2027-11-07T06:10Z',
      ['2027-11-08T06:30']],
    ['wildcard-hour asked from inside the second pass stays in it', '*/15 * * * *', NEW_YORK, '2027-11-07T06:10Z',
      ['2027-11-07T06:15', '2027-11-07T06:30']],
  ];

  // 2027-03-28: at 01:00Z Berlin jumps from 02:00 CET (+1) to 03:00 CEST (+2).
  // 2027-10-31: at 01:00Z Berlin falls back from 03:00 CEST (+2) to 02:00 CET (+1); 02:00-02:59 happens twice.
  const berlin: Row[] = [
    ['fixed-hour in the gap', '30 2 * * *', BERLIN, '2027-03-27T12:00Z', ['2027-03-28T01:00', '2027-03-29T00:30']],
    ['wildcard-hour across the gap', '30 * * * *', BERLIN, '2027-03-27T23:00Z',
      ['2027-03-27T23:30', '2027-03-28T00:30', '2027-03-28T01:30', '2027-03-28T02:30']],
    ['fixed-hour in the overlap', '30 2 * * *', BERLIN, '2027-10-30T12:00Z', ['2027-10-31T00:30', '2027-11-01T01:30']],
    ['wildcard-hour across the overlap', '*/30 * * * *', BERLIN, '2027-10-31T00:00Z',
      ['2027-10-31T00:30', '2027-10-31T01:00', '2027-10-31T01:30', '2027-10-31T02:00']],
  ];

  // Lord Howe moves by 30 minutes. 2027-10-03: at 2027-10-02T15:30Z 02:00 (+10:30) becomes 02:30 (+11).
  // 2027-04-04: at 2027-04-03T15:00Z 02:00 (+11) becomes 01:30 (+10:30); 01:30-01:59 happens twice.
  const lordHowe: Row[] = [
    ['fixed-hour in the half-hour gap', '15 2 * * *', LORD_HOWE, '2027-10-01T00:00Z',
      ['2027-10-01T15:45', '2027-10-02T15:30', '2027-10-03T15:15']],
    ['a gap run and a match at the gap end (02:30) make one run', '0,30 2 * * *', LORD_HOWE, '2027-10-01T12:00Z',
      ['2027-10-01T15:30', '2027-10-01T16:00', '2027-10-02T15:30', '2027-10-03T15:00', '2027-10-03T15:30']],
    ['wildcard-hour across the half-hour gap', '*/15 * * * *', LORD_HOWE, '2027-10-02T15:00Z',
      ['2027-10-02T15:15', '2027-10-02T15:30', '2027-10-02T15:45']],
    ['fixed-hour in the half-hour overlap', '45 1 * * *', LORD_HOWE, '2027-04-02T12:00Z',
      ['2027-04-02T14:45', '2027-04-03T14:45', '2027-04-04T15:15']],
    ['wildcard-hour in both passes of the half-hour overlap', '*/15 * * * *', LORD_HOWE, '2027-04-03T14:20Z',
      ['2027-04-03T14:30', '2027-04-03T14:45', '2027-04-03T15:00', '2027-04-03T15:15', '2027-04-03T15:30']],
  ];

  const steady: Row[] = [
    ['a zone without DST keeps its offset (Tokyo, +9)', '30 2 * * *', 'Asia/Tokyo', '2027-03-13T00:00Z',
      ['2027-03-13T17:30', '2027-03-14T17:30']],
    ['UTC', '0 0 * * *', 'UTC', '2027-03-14T00:00Z', ['2027-03-15T00:00', '2027-03-16T00:00']],
    ['Etc/UTC', '0 12 * * *', 'Etc/UTC', '2027-11-07T12:00Z', ['2027-11-08T12:00']],
  ];

  it.each([...newYorkSpring, ...newYorkFall, ...berlin, ...lordHowe, ...steady])('%s: %j in %s after %s', (_what, expression, zone, after, expected) => {
    expect(runs(cron(expression, zone), after, expected.length)).toEqual(expected.map(z));
  });
});

describe('cron calendar rules (UTC)', () => {
  it.each<Row>([
    ['Vixie: day of month OR day of week when both are restricted (1st or Mondays)', '0 0 1 * 1', 'UTC', '2027-07-31T12:00Z',
      ['2027-08-01T00:00', '2027-08-02T00:00', '2027-08-09T00:00', '2027-08-16T00:00', '2027-08-23T00:00', '2027-08-30T00:00',
        '2027-09-01T00:00', '2027-09-06T00:00']],
    ['Vixie: a day field starting with * combines with AND (1st/11th/21st/31st that is a Monday)', '0 0 */10 * 1', 'UTC',
      '2027-08-01T00:00Z', ['2027-10-11T00:00', '2027-11-01T00:00']],
    ['only the day of week restricts when day of month is *', '0 0 * * 1', 'UTC', '2027-07-31T12:00Z', ['2027-08-02T00:00', '2027-08-09T00:00']],
    ['only the day of month restricts when day of week is *', '0 0 13 * *', 'UTC', '2027-07-31T12:00Z', ['2027-08-13T00:00', '2027-09-13T00:00']],
    ['Sunday as 0 (2027-03-14 is a Sunday)', '0 12 * * 0', 'UTC', '2027-03-10T00:00Z', ['2027-03-14T12:00', '2027-03-21T12:00']],
    ['Sunday as 7', '0 12 * * 7', 'UTC', '2027-03-10T00:00Z', ['2027-03-14T12:00', '2027-03-21T12:00']],
    ['Sunday as SUN', '0 12 * * sun', 'UTC', '2027-03-10T00:00Z', ['2027-03-14T12:00', '2027-03-21T12:00']],
    ['weekday names in a range', '0 9 * * MON-FRI', 'UTC', '2027-03-12T10:00Z', ['2027-03-15T09:00', '2027-03-16T09:00']],
    ['month names', '0 0 1 jan,JUL *', 'UTC', '2027-02-01T00:00Z', ['2027-07-01T00:00', '2028-01-01T00:00']],
    ['leap day runs in leap years only', '0 0 29 2 *', 'UTC', '2027-01-01T00:00Z', ['2028-02-29T00:00', '2032-02-29T00:00']],
    ['leap day skips 2100, which is not a leap year', '0 0 29 2 *', 'UTC', '2096-03-01T00:00Z', ['2104-02-29T00:00']],
    ['the 31st skips short months', '0 0 31 * *', 'UTC', '2027-01-31T00:00Z', ['2027-03-31T00:00', '2027-05-31T00:00']],
    ['every minute', '* * * * *', 'UTC', '2027-03-14T23:58:30Z', ['2027-03-14T23:59', '2027-03-15T00:00']],
    ['the new year crossing', '59 23 31 12 *', 'UTC', '2027-06-01T00:00Z', ['2027-12-31T23:59', '2028-12-31T23:59']],
    ['local New Year ahead of UTC (Tokyo, +9)', '0 0 1 1 *', 'Asia/Tokyo', '2027-06-01T00:00Z', ['2027-12-31T15:00', '2028-12-31T15:00']],
    ['local New Year behind UTC (New York, -5)', '0 0 1 1 *', NEW_YORK, '2027-06-01T00:00Z', ['2028-01-01T05:00', '2029-01-01T05:00']],
    ['Chatham (+13:45 in summer) at a quarter-hour offset', '0 9 * * *', 'Pacific/Chatham', '2027-01-10T00:00Z', ['2027-01-10T19:15', '2027-01-11T19:15']],
  ])('%s: %j in %s after %s', (_what, expression, zone, after, expected) => {
    expect(runs(cron(expression, zone), after, expected.length)).toEqual(expected.map(z));
  });

  it('is strictly after: a run exactly at `after` is not returned, one a millisecond later is', () => {
    const daily = cron('0 0 * * *');
    expect(iso(nextRunAfter(daily, at('2027-03-14T00:00:00Z')))).toBe('2027-03-15T00:00:00.000Z');
    expect(iso(nextRunAfter(daily, at('2027-03-14T00:00:00Z') - 1))).toBe('2027-03-14T00:00:00.000Z');
    expect(iso(nextRunAfter(daily, at('2027-03-14T00:00:00.001Z')))).toBe('2027-03-15T00:00:00.000Z');
  });

  it('runTimes returns exactly count runs, and none for count 0', () => {
    expect(runTimes(cron('*/5 * * * *'), at('2027-01-01T00:00Z'), 0)).toEqual([]);
    const many = runTimes(cron('*/5 * * * *'), at('2027-01-01T00:00Z'), 500);
    expect(many).toHaveLength(500);
    expect(many.every((t, i) => t === at('2027-01-01T00:05Z') + i * 5 * MINUTE)).toBe(true);
  });

  it('refuses an unvalidated expression that can never fire instead of searching for it', () => {
    expect(() => nextRunAfter(cron('0 0 30 2 *'), 0)).toThrow(/never fires/);
  });

  it('refuses a non-finite instant rather than searching forever', () => {
    expect(() => nextRunAfter(cron('* * * * *'), Number.NaN)).toThrow(RangeError);
    expect(() => latestRunAtOrBefore(cron('* * * * *'), Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });
});

describe('latestRunAtOrBefore for cron', () => {
  it.each<[string, string, string, string, string | null]>([
    ['a run exactly at `at` counts', '0 0 * * *', 'UTC', '2027-03-14T00:00:00Z', '2027-03-14T00:00'],
    ['a millisecond before it does not', '0 0 * * *', 'UTC', '2027-03-13T23:59:59.999Z', '2027-03-13T00:00'],
    ['the gap run of a fixed-hour job', '30 2 * * *', NEW_YORK, '2027-03-14T07:30Z', '2027-03-14T07:00'],
    ['before the gap run, the day before', '30 2 * * *', NEW_YORK, '2027-03-14T06:59Z', '2027-03-13T07:30'],
    ['a fixed-hour job seen from the second pass of an overlap', '30 1 * * *', NEW_YORK, '2027-11-07T06:45Z', '2027-11-07T05:30'],
    ['a wildcard-hour job seen from the second pass of an overlap', '30 * * * *', NEW_YORK, '2027-11-07T06:45Z', '2027-11-07T06:30'],
    ['a wildcard-hour job in the first minutes after the gap', '30 * * * *', NEW_YORK, '2027-03-14T07:10Z', '2027-03-14T06:30'],
    ['Lord Howe half-hour overlap, second pass', '*/15 * * * *', LORD_HOWE, '2027-04-03T15:05Z', '2027-04-03T15:00'],
    ['leap day, three years back', '0 0 29 2 *', 'UTC', '2027-06-01T00:00Z', '2024-02-29T00:00'],
    ['leap day across 2100, seven years back', '0 0 29 2 *', 'UTC', '2103-06-01T00:00Z', '2096-02-29T00:00'],
    ['a rare AND day (Feb 29th on a Sunday) within eight years', '0 0 29 2 */7', 'UTC', '2039-01-01T00:00Z', '2032-02-29T00:00'],
    ['nothing within the eight-year search: null', '0 0 29 2 */7', 'UTC', '2041-01-01T00:00Z', null],
    ['before 1900: null', '* * * * *', 'UTC', '1899-12-31T23:00Z', null],
  ])('%s: %j in %s at %s', (_what, expression, zone, when, expected) => {
    expect(iso(latestRunAtOrBefore(cron(expression, zone), at(when)))).toBe(expected === null ? null : z(expected));
  });
});

describe('interval timing', () => {
  const first = at('2027-03-14T06:30:00Z');
  const every5m = interval(300, first);

  it.each<[string, number, number]>([
    ['long before the first run: the first run', first - 10 * DAY, first],
    ['just before the first run: the first run', first - 1, first],
    ['at the first run: the one after', first, first + 5 * MINUTE],
    ['inside the first period', first + 1, first + 5 * MINUTE],
    ['at the end of the first period', first + 5 * MINUTE - 1, first + 5 * MINUTE],
    ['exactly on the k-th run: the (k+1)-th', first + 7 * 5 * MINUTE, first + 8 * 5 * MINUTE],
    ['years later, exact arithmetic', first + 10 * 365 * DAY + 1, first + (Math.floor((10 * 365 * DAY + 1) / (5 * MINUTE)) + 1) * 5 * MINUTE],
  ])('nextRunAfter %s', (_what, after, expected) => {
    expect(nextRunAfter(every5m, after)).toBe(expected);
  });

  it.each<[string, number, number | null]>([
    ['before the first run: null', first - 1, null],
    ['at the first run: the first run', first, first],
    ['inside a period: its start', first + 5 * MINUTE + 4 * MINUTE, first + 5 * MINUTE],
    ['exactly on a run: that run', first + 12 * 5 * MINUTE, first + 12 * 5 * MINUTE],
  ])('latestRunAtOrBefore %s', (_what, when, expected) => {
    expect(latestRunAtOrBefore(every5m, when)).toBe(expected);
  });

  it('computes the latest run of a one-minute interval 200,000 years on by arithmetic, not by walking', () => {
    const everyMinute = interval(60, 0);
    const far = 200_000 * 365 * DAY + 59_999;
    expect(latestRunAtOrBefore(everyMinute, far)).toBe(far - 59_999);
    expect(nextRunAfter(everyMinute, far)).toBe(far + 1);
  });

  it('is fixed UTC arithmetic with no DST effect (hourly across the New York spring gap and fall overlap)', () => {
    const hourly = interval(3600, at('2027-03-14T05:00Z'));
    expect(runs(hourly, '2027-03-14T05:00Z', 3)).toEqual(['2027-03-14T06:00', '2027-03-14T07:00', '2027-03-14T08:00'].map(z));
    const overNight = interval(3600, at('2027-11-07T04:00Z'));
    expect(runs(overNight, '2027-11-07T04:30Z', 3)).toEqual(['2027-11-07T05:00', '2027-11-07T06:00', '2027-11-07T07:00'].map(z));
  });

  it('runTimes before, at and after the first run', () => {
    expect(runTimes(every5m, first - HOUR, 3)).toEqual([first, first + 5 * MINUTE, first + 10 * MINUTE]);
    expect(runTimes(every5m, first, 2)).toEqual([first + 5 * MINUTE, first + 10 * MINUTE]);
    expect(runTimes(interval(30 * 24 * 3600, first), first + 1, 2)).toEqual([first + 30 * DAY, first + 60 * DAY]);
  });
});

/** A small deterministic generator (xorshift32), so a failure can be replayed. */
function randomSource(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 0x1_0000_0000;
  };
}

const ZONES = [NEW_YORK, BERLIN, LORD_HOWE, 'Pacific/Chatham', 'Antarctica/Troll', 'Africa/Casablanca', 'Asia/Tokyo', 'UTC'];

describe('latestRunAtOrBefore agrees with nextRunAfter (random instants, expressions and zones)', () => {
  const random = randomSource(20_270_314);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const PIECES = [
    ['*', '*/15', '0', '30', '0,30', '5-10', '*/7', '59'],
    ['*', '*/2', '2', '1', '1-3', '0,12', '3/5', '*/5'],
    ['*', '*', '1', '15', '*/10', '29', '31', '1-7'],
    ['*', '*', '2', 'JAN-JUN', '*/3', '11', 'mar,oct'],
    ['*', '*', '0', '1-5', 'SAT,SUN', '*/2', '7'],
  ];
  const cases: Array<[string, string, number]> = [];
  while (cases.length < 400) {
    const expression = PIECES.map(pick).join(' ');
    try {
      parseCron(expression);
    } catch {
      continue; // a combination that never fires
    }
    const when = at('2026-01-01T00:00Z') + Math.floor(random() * 6 * 365 * DAY);
    cases.push([expression, pick(ZONES), when]);
  }

  it('latest(at) <= at < next(latest(at)), nextRunAfter(latest(at) - 1) === latest(at), and no run between latest and next', () => {
    for (const [expression, zone, when] of cases) {
      const timing = cron(expression, zone);
      const context = `${expression} in ${zone} at ${iso(when)}`;
      const latest = latestRunAtOrBefore(timing, when);
      const next = nextRunAfter(timing, when);
      expect(next, context).not.toBeNull();
      expect(next!, context).toBeGreaterThan(when);
      expect(latestRunAtOrBefore(timing, next!), context).toBe(next);
      expect(latestRunAtOrBefore(timing, next! - 1), context).toBe(latest);
      if (latest !== null) {
        expect(latest, context).toBeLessThanOrEqual(when);
        expect(nextRunAfter(timing, latest), context).toBe(next);
        expect(nextRunAfter(timing, latest - 1), context).toBe(latest);
      }
    }
  });
});

/** Does a wall time (local date and time written as if UTC) match the parsed expression? */
function matches(spec: CronSpec, wall: number): boolean {
  const d = new Date(wall);
  const dom = spec.daysOfMonth.includes(d.getUTCDate());
  const dow = spec.daysOfWeek.includes(d.getUTCDay());
  return (
    spec.minutes.includes(d.getUTCMinutes()) &&
    spec.hours.includes(d.getUTCHours()) &&
    spec.months.includes(d.getUTCMonth() + 1) &&
    (spec.dayRule === 'either' ? dom || dow : dom && dow)
  );
}

/** The local wall time of every whole minute from `from - 1 minute` to `to`, read from Intl. */
function wallClock(zone: string, from: number, to: number): number[] {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric',
  });
  const walls: number[] = [];
  for (let t = from - MINUTE; t < to; t += MINUTE) {
    const p = Object.fromEntries(format.formatToParts(t).map((part) => [part.type, Number(part.value)]));
    walls.push(Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!));
  }
  return walls;
}

/**
 * The rules applied literally, minute by minute of real time: a wildcard-hour job runs whenever the local time
 * matches; a fixed-hour job runs at a matching local time the first time the clock shows it, and once at the first
 * minute after a jump for any matching local times the clock jumped over.
 *
 * @param walls from `wallClock(zone, from, to)`.
 */
function bruteForceRuns(spec: CronSpec, walls: readonly number[], from: number): number[] {
  const seen = new Set<number>();
  const runs: number[] = [];
  for (let i = 1; i < walls.length; i++) {
    const previous = walls[i - 1]!;
    const wall = walls[i]!;
    let run = false;
    if (spec.wildcardHour) {
      run = matches(spec, wall);
    } else {
      for (let skipped = previous + MINUTE; skipped < wall && !run; skipped += MINUTE) run = matches(spec, skipped);
      run ||= !seen.has(wall) && matches(spec, wall);
    }
    if (run) runs.push(from + (i - 1) * MINUTE);
    seen.add(wall);
  }
  return runs;
}

describe('cron agrees with a minute-by-minute reading of the rules over DST changes', () => {
  const windows: Array<[string, string]> = [
    [NEW_YORK, '2027-03-14'],
    [NEW_YORK, '2027-11-07'],
    [BERLIN, '2027-03-28'],
    [BERLIN, '2027-10-31'],
    [LORD_HOWE, '2027-10-03'],
    [LORD_HOWE, '2027-04-04'],
    // Chatham changes at 02:45 local; Troll by two hours.
    ['Pacific/Chatham', '2027-04-04'],
    ['Pacific/Chatham', '2027-09-26'],
    ['Antarctica/Troll', '2027-03-28'],
    ['Antarctica/Troll', '2027-10-31'],
    // Offset changes an hour or two before New Year (UTC): the window runs across the year boundary.
    ['Africa/Casablanca', '1986-01-01'],
    ['Africa/Tripoli', '1982-01-01'],
  ];
  const expressions = [
    '30 2 * * *', '0,30 2 * * *', '*/15 2 * * *', '0 2,3 * * *', '30 1 * * *', '*/20 1 * * *', '0 1,2 * * *',
    '15,45 1-3 * * *', '* 2 * * *', '0 0-23 * * *', '50 2 * * *', '*/15 * * * *', '30 * * * *', '0 */2 * * *',
    '*/7 * * * *', '45 */1 * * *', '0 3 * * *',
  ];

  it.each(windows)('%s around %s', (zone, day) => {
    const from = at(`${day}T00:00Z`) - DAY;
    const to = from + 2 * DAY;
    const walls = wallClock(zone, from, to);
    expect(walls.some((w, i) => i > 0 && w !== walls[i - 1]! + MINUTE), `${zone} changes offset around ${day}`).toBe(true);
    for (const expression of expressions) {
      const expected = bruteForceRuns(parseCron(expression), walls, from);
      const timing = cron(expression, zone);
      const actual: number[] = [];
      for (let t = nextRunAfter(timing, from - 1); t !== null && t < to; t = nextRunAfter(timing, t)) actual.push(t);
      expect(actual.map(iso), `${expression} in ${zone}`).toEqual(expected.map(iso));
      // Every 7 minutes from 30 hours in: all these jobs run at least daily, and an offset change stretches a day by
      // at most a few hours, so the window holds the answer.
      for (let t = from + 30 * HOUR; t < to; t += 7 * MINUTE) {
        const latest = expected.filter((r) => r <= t).pop() ?? null;
        expect(iso(latestRunAtOrBefore(timing, t)), `${expression} in ${zone} at ${iso(t)}`).toBe(iso(latest));
      }
    }
  });
});

describe('offset segments', () => {
  it('finds the exact change instants and offsets (New York, 2027)', () => {
    expect(offsetSegmentAt(NEW_YORK, at('2027-06-01T00:00Z'))).toEqual({
      start: at('2027-03-14T07:00Z'), end: at('2027-11-07T06:00Z'), offset: -4 * HOUR, previousOffset: -5 * HOUR,
    });
    expect(offsetSegmentAt(LORD_HOWE, at('2027-04-03T15:00Z'))).toMatchObject({ start: at('2027-04-03T15:00Z'), offset: 10.5 * HOUR, previousOffset: 11 * HOUR });
  });

  it('a segment at the start of a UTC year reports a change made late in the previous year', () => {
    // Casablanca went from +1 to +0 at 1985-12-31T23:00Z, an hour before New Year (UTC).
    expect(offsetSegmentAt('Africa/Casablanca', at('1986-01-01T00:30Z'))).toMatchObject({
      start: at('1985-12-31T23:00Z'), offset: 0, previousOffset: HOUR,
    });
  });

  it('a zone without changes has one offset the whole year', () => {
    expect(offsetSegmentAt('Asia/Tokyo', at('2027-06-01T00:00Z'))).toEqual({
      start: at('2027-01-01T00:00Z'), end: at('2028-01-01T00:00Z'), offset: 9 * HOUR, previousOffset: 9 * HOUR,
    });
  });
});

describe('independence from the host time zone', () => {
  const hostZone = process.env.TZ;
  afterEach(() => {
    if (hostZone === undefined) delete process.env.TZ;
    else process.env.TZ = hostZone;
    vi.resetModules();
  });

  it('computes the same instants with TZ=Pacific/Chatham and fresh caches', async () => {
    const probe = (api: { runTimes: typeof runTimes }) => [
      api.runTimes(cron('30 2 * * *', NEW_YORK), at('2027-03-12T12:00Z'), 4),
      api.runTimes(cron('*/15 * * * *', LORD_HOWE), at('2027-04-03T14:20Z'), 6),
      api.runTimes(cron('0 0 29 2 *', 'UTC'), at('2027-01-01T00:00Z'), 2),
    ];
    const here = probe({ runTimes });
    process.env.TZ = 'Pacific/Chatham';
    expect(new Date(at('2027-06-01T00:00Z')).getTimezoneOffset(), 'the host zone really changed').toBe(-12 * 60 - 45);
    vi.resetModules();
    const fresh = await import('../../src/domain/schedule/next-run.js');
    expect(probe(fresh)).toEqual(here);
  });
});
