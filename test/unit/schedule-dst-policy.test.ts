import { describe, expect, it } from 'vitest';
import { planFiring } from '../../src/domain/schedule/firing.js';
import { latestRunAtOrBefore, nextRunAfter, runDetails, runTimes } from '../../src/domain/schedule/next-run.js';
import { timingWithDefaults, type CronTiming, type DstPolicy, type IntervalTiming, type Timing } from '../../src/domain/schedule/timing.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const at = (iso: string): number => {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new Error(`bad instant in test: ${iso}`);
  return ms;
};
const cron = (expression: string, timezone: string, dst: DstPolicy, bounds: { startsAt?: number; endsAt?: number } = {}): CronTiming => ({
  type: 'cron',
  expression,
  timezone,
  dst,
  startsAt: bounds.startsAt ?? null,
  endsAt: bounds.endsAt ?? null,
});
const SHIFT_FIRST: DstPolicy = { gap: 'shift', overlap: 'first' };
const SKIP_SECOND: DstPolicy = { gap: 'skip', overlap: 'second' };
const SHIFT_BOTH: DstPolicy = { gap: 'shift', overlap: 'both' };
const SKIP_FIRST: DstPolicy = { gap: 'skip', overlap: 'first' };

/** Runs after `after` as `HH:MM label` pairs in UTC: `2027-03-14T07:00 gap_shifted`. */
const detailed = (timing: Timing, after: string, count: number): string[] =>
  runDetails(timing, at(after), count).map(({ instant, dst }) => `${new Date(instant).toISOString().slice(0, 16)} ${dst}`);

const NEW_YORK = 'America/New_York';
const BERLIN = 'Europe/Berlin';
const LORD_HOWE = 'Australia/Lord_Howe';
const KOLKATA = 'Asia/Kolkata';

// [what it pins, expression, zone, dst, after, the runs that follow in UTC with their dst label].
type Row = [string, string, string, DstPolicy, string, string[]];

const rows: Row[] = [
  // New York, 2027-03-14 07:00Z: 02:00 EST (-5) jumps to 03:00 EDT (-4); local 02:00-02:59 does not exist.
  ['NY gap, shift: 02:30 runs at 03:00 EDT', '30 2 * * *', NEW_YORK, SHIFT_FIRST, '2027-03-13T00:00Z',
    ['2027-03-13T07:30 none', '2027-03-14T07:00 gap_shifted', '2027-03-15T06:30 none']],
  ['NY gap, skip: no run that day', '30 2 * * *', NEW_YORK, SKIP_FIRST, '2027-03-13T00:00Z',
    ['2027-03-13T07:30 none', '2027-03-15T06:30 none']],
  ['NY gap, two local times in it: one shifted run, or none', '0,30 2 * * *', NEW_YORK, SKIP_SECOND, '2027-03-13T12:00Z',
    ['2027-03-15T06:00 none', '2027-03-15T06:30 none']],
  ['NY gap, a wildcard hour follows real time whatever dst says', '*/30 * * * *', NEW_YORK, SHIFT_FIRST, '2027-03-14T06:00Z',
    ['2027-03-14T06:30 none', '2027-03-14T07:00 none', '2027-03-14T07:30 none']],
  // New York, 2027-11-07 06:00Z: 02:00 EDT (-4) falls back to 01:00 EST (-5); local 01:00-01:59 happens twice.
  ['NY overlap, first', '30 1 * * *', NEW_YORK, SHIFT_FIRST, '2027-11-06T12:00Z',
    ['2027-11-07T05:30 overlap_first', '2027-11-08T06:30 none']],
  ['NY overlap, second', '30 1 * * *', NEW_YORK, SKIP_SECOND, '2027-11-06T12:00Z',
    ['2027-11-07T06:30 overlap_second', '2027-11-08T06:30 none']],
  ['NY overlap, both', '30 1 * * *', NEW_YORK, SHIFT_BOTH, '2027-11-06T12:00Z',
    ['2027-11-07T05:30 overlap_first', '2027-11-07T06:30 overlap_second', '2027-11-08T06:30 none']],
  ['NY overlap, second, with a time after the overlap the same day', '0 1-2 * * *', NEW_YORK, SKIP_SECOND, '2027-11-06T12:00Z',
    ['2027-11-07T06:00 overlap_second', '2027-11-07T07:00 none', '2027-11-08T06:00 none']],
  ['NY overlap, both, with a time after the overlap the same day', '0 1-2 * * *', NEW_YORK, SHIFT_BOTH, '2027-11-06T12:00Z',
    ['2027-11-07T05:00 overlap_first', '2027-11-07T06:00 overlap_second', '2027-11-07T07:00 none']],
  ['NY overlap, a wildcard hour runs both passes whatever dst says', '*/30 * * * *', NEW_YORK, SKIP_SECOND, '2027-11-07T04:45Z',
    ['2027-11-07T05:00 overlap_first', '2027-11-07T05:30 overlap_first', '2027-11-07T06:00 overlap_second', '2027-11-07T06:30 overlap_second', '2027-11-07T07:00 none']],
  // Berlin, 2027-03-28 01:00Z: 02:00 CET (+1) jumps to 03:00 CEST (+2).
  ['Berlin gap, shift', '30 2 * * *', BERLIN, SHIFT_BOTH, '2027-03-27T00:00Z',
    ['2027-03-27T01:30 none', '2027-03-28T01:00 gap_shifted', '2027-03-29T00:30 none']],
  ['Berlin gap, skip', '30 2 * * *', BERLIN, SKIP_SECOND, '2027-03-27T00:00Z',
    ['2027-03-27T01:30 none', '2027-03-29T00:30 none']],
  // Berlin, 2027-10-31 01:00Z: 03:00 CEST (+2) falls back to 02:00 CET (+1); local 02:00-02:59 happens twice.
  ['Berlin overlap, first', '30 2 * * *', BERLIN, SKIP_FIRST, '2027-10-30T12:00Z',
    ['2027-10-31T00:30 overlap_first', '2027-11-01T01:30 none']],
  ['Berlin overlap, second', '30 2 * * *', BERLIN, SKIP_SECOND, '2027-10-30T12:00Z',
    ['2027-10-31T01:30 overlap_second', '2027-11-01T01:30 none']],
  ['Berlin overlap, both', '30 2 * * *', BERLIN, SHIFT_BOTH, '2027-10-30T12:00Z',
    ['2027-10-31T00:30 overlap_first', '2027-10-31T01:30 overlap_second', '2027-11-01T01:30 none']],
  ['Berlin, a weekday job away from the changes is unaffected', '0 9 * * 1-5', BERLIN, SKIP_SECOND, '2027-03-26T00:00Z',
    ['2027-03-26T08:00 none', '2027-03-29T07:00 none']],
  // Lord Howe, 2027-10-02 15:30Z: 02:00 (+10:30) jumps to 02:30 (+11), a half-hour gap.
  ['Lord Howe gap, shift', '15 2 * * *', LORD_HOWE, SHIFT_FIRST, '2027-10-01T00:00Z',
    ['2027-10-01T15:45 none', '2027-10-02T15:30 gap_shifted', '2027-10-03T15:15 none']],
  ['Lord Howe gap, skip', '15 2 * * *', LORD_HOWE, SKIP_FIRST, '2027-10-01T00:00Z',
    ['2027-10-01T15:45 none', '2027-10-03T15:15 none']],
  // Lord Howe, 2027-04-03 15:00Z: 02:00 (+11) falls back to 01:30 (+10:30); local 01:30-01:59 happens twice.
  ['Lord Howe overlap, first', '45 1 * * *', LORD_HOWE, SHIFT_FIRST, '2027-04-03T00:00Z',
    ['2027-04-03T14:45 overlap_first', '2027-04-04T15:15 none']],
  ['Lord Howe overlap, second', '45 1 * * *', LORD_HOWE, SKIP_SECOND, '2027-04-03T00:00Z',
    ['2027-04-03T15:15 overlap_second', '2027-04-04T15:15 none']],
  ['Lord Howe overlap, both', '45 1 * * *', LORD_HOWE, SHIFT_BOTH, '2027-04-03T00:00Z',
    ['2027-04-03T14:45 overlap_first', '2027-04-03T15:15 overlap_second', '2027-04-04T15:15 none']],
  ['Lord Howe, a local time outside the half-hour overlap runs once', '15 1 * * *', LORD_HOWE, SHIFT_BOTH, '2027-04-03T00:00Z',
    ['2027-04-03T14:15 none', '2027-04-04T14:45 none']],
  // Kolkata (+05:30) has no DST: every option gives the same runs.
  ['Kolkata, shift and first', '30 2 * * *', KOLKATA, SHIFT_FIRST, '2027-03-13T00:00Z', ['2027-03-13T21:00 none', '2027-03-14T21:00 none']],
  ['Kolkata, skip and second', '30 2 * * *', KOLKATA, SKIP_SECOND, '2027-03-13T00:00Z', ['2027-03-13T21:00 none', '2027-03-14T21:00 none']],
  ['Kolkata, both', '30 2 * * *', KOLKATA, SHIFT_BOTH, '2027-11-06T00:00Z', ['2027-11-06T21:00 none', '2027-11-07T21:00 none']],
];

describe('the DST policy of fixed-hour cron jobs, as exact UTC instants', () => {
  it.each(rows)('%s', (_what, expression, zone, dst, after, expected) => {
    expect(detailed(cron(expression, zone, dst), after, expected.length)).toEqual(expected);
  });

  it.each(rows)('looking back agrees with looking forward: %s', (_what, expression, zone, dst, after) => {
    const timing = cron(expression, zone, dst);
    const from = at(after);
    const runs = runTimes(timing, from, 6);
    // Every minute from `after` to the last run: the latest run at or before it is the one the forward walk gave.
    let expected = latestRunAtOrBefore(timing, from);
    expect(expected === null || expected <= from).toBe(true);
    for (let t = from + MINUTE, k = 0; t <= runs.at(-1)!; t += MINUTE) {
      if (t >= runs[k]!) expected = runs[k++]!;
      expect(latestRunAtOrBefore(timing, t)).toBe(expected);
    }
  });
});

describe('starts_at and ends_at', () => {
  const hourly = (bounds: { startsAt?: number; endsAt?: number }) => cron('0 * * * *', 'UTC', SHIFT_FIRST, bounds);

  it('a cron timing has no occurrence before starts_at, and one exactly at it', () => {
    expect(runTimes(hourly({ startsAt: at('2027-01-01T05:30Z') }), at('2027-01-01T00:00Z'), 2)).toEqual([at('2027-01-01T06:00Z'), at('2027-01-01T07:00Z')]);
    expect(nextRunAfter(hourly({ startsAt: at('2027-01-01T06:00Z') }), at('2027-01-01T00:00Z'))).toBe(at('2027-01-01T06:00Z'));
    expect(latestRunAtOrBefore(hourly({ startsAt: at('2027-01-01T06:00Z') }), at('2027-01-01T05:59Z'))).toBeNull();
    expect(latestRunAtOrBefore(hourly({ startsAt: at('2027-01-01T06:00Z') }), at('2027-01-01T06:10Z'))).toBe(at('2027-01-01T06:00Z'));
  });

  it('ends_at is exclusive: no occurrence at or after it', () => {
    const timing = hourly({ endsAt: at('2027-01-01T08:00Z') });
    expect(runTimes(timing, at('2027-01-01T05:00Z'), 10)).toEqual([at('2027-01-01T06:00Z'), at('2027-01-01T07:00Z')]);
    expect(nextRunAfter(timing, at('2027-01-01T07:00Z'))).toBeNull();
    expect(latestRunAtOrBefore(timing, at('2027-01-02T12:00Z'))).toBe(at('2027-01-01T07:00Z'));
    expect(runTimes(hourly({ endsAt: at('2027-01-01T08:00:00.001Z') }), at('2027-01-01T07:00Z'), 10)).toEqual([at('2027-01-01T08:00Z')]);
  });

  it('bounds an interval the same way', () => {
    const t0 = at('2027-01-01T00:00Z');
    const timing: IntervalTiming = { type: 'interval', everySeconds: 600, startsAt: t0, firstRunAt: t0, endsAt: t0 + 30 * MINUTE };
    expect(runTimes(timing, t0 - HOUR, 10)).toEqual([t0, t0 + 10 * MINUTE, t0 + 20 * MINUTE]);
    expect(latestRunAtOrBefore(timing, t0 + 5 * HOUR)).toBe(t0 + 20 * MINUTE);
    expect(latestRunAtOrBefore(timing, t0 - 1)).toBeNull();
  });

  it('labels interval occurrences none, even across a DST change of any zone', () => {
    const t0 = at('2027-03-14T06:00Z');
    const timing: IntervalTiming = { type: 'interval', everySeconds: 3600, startsAt: t0, firstRunAt: t0, endsAt: null };
    expect(runDetails(timing, t0 - 1, 3)).toEqual([0, 1, 2].map((k) => ({ instant: t0 + k * HOUR, dst: 'none' })));
  });

  it('a start inside a gap: the shifted run counts when it is at or after starts_at', () => {
    const timing = cron('30 2 * * *', NEW_YORK, SHIFT_FIRST, { startsAt: at('2027-03-14T07:00Z') });
    expect(detailed(timing, '2027-03-01T00:00Z', 2)).toEqual(['2027-03-14T07:00 gap_shifted', '2027-03-15T06:30 none']);
  });

  it('firing stops at ends_at: the last occurrence fires, with no next one; a late look fires nothing past the end', () => {
    const t = at('2027-01-01T06:00Z');
    const timing = hourly({ endsAt: t + 2 * HOUR });
    expect(planFiring(timing, t + HOUR, t + HOUR)).toEqual({ fireAt: t + HOUR, nextRunAt: null });
    expect(planFiring(timing, t + HOUR, t + 5 * HOUR)).toEqual({ fireAt: t + HOUR, nextRunAt: null });
    expect(planFiring(timing, t, t + 90 * MINUTE)).toEqual({ fireAt: t + HOUR, nextRunAt: null });
  });

  it('firing follows the DST policy: the second pass of an overlap is the next run after the day before', () => {
    const timing = cron('30 1 * * *', NEW_YORK, SKIP_SECOND);
    const dayBefore = at('2027-11-06T05:30Z');
    expect(planFiring(timing, dayBefore, dayBefore)).toEqual({ fireAt: dayBefore, nextRunAt: at('2027-11-07T06:30Z') });
  });
});

describe('timings stored before the DST policy and bounds', () => {
  it('read back with the defaults, which are the rules they followed', () => {
    expect(timingWithDefaults({ type: 'cron', expression: '30 2 * * *', timezone: NEW_YORK })).toEqual(cron('30 2 * * *', NEW_YORK, SHIFT_FIRST));
    expect((timingWithDefaults({ type: 'cron', expression: '30 2 * * *', timezone: NEW_YORK, dst: { overlap: 'both' } }) as CronTiming).dst).toEqual(SHIFT_BOTH);
    expect(timingWithDefaults({ type: 'interval', everySeconds: 60, startsAt: null, firstRunAt: 5 })).toEqual({
      type: 'interval',
      everySeconds: 60,
      startsAt: null,
      firstRunAt: 5,
      endsAt: null,
    });
  });

  it('keep only the members of their kind', () => {
    const stored = { type: 'interval', everySeconds: 60, startsAt: 1, firstRunAt: 1, endsAt: 9, expression: 'x', dst: SKIP_SECOND };
    expect(timingWithDefaults(stored)).toEqual({ type: 'interval', everySeconds: 60, startsAt: 1, firstRunAt: 1, endsAt: 9 });
  });
});
