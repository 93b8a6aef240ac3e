import { describe, expect, it } from 'vitest';
import { DEFAULT_DST } from '../../src/domain/schedule/timing.js';
import { validateTiming as fromIndex } from '../../src/domain/validation/index.js';
import { MAX_INTERVAL_SECONDS, MIN_INTERVAL_SECONDS } from '../../src/domain/validation/limits.js';
import { validateTiming, type TimingInput } from '../../src/domain/validation/timing.js';
import { expectFerryError } from './expect-ferry-error.js';

const NOW = Date.UTC(2027, 2, 10, 12, 0, 0);
const CREATE = { now: NOW, creating: true };
const UPDATE = { now: NOW, creating: false };

/** Inputs arrive from JSON and protobuf: members may be null or of any type, whatever TimingInput says. */
const loose = (input: Record<string, unknown>): TimingInput => input as TimingInput;

describe('validateTiming: presence and type', () => {
  it.each([
    ['an absent timing', undefined],
    ['a null timing', null],
  ])('reports %s as MISSING_FIELD timing', (_what, input) => {
    expectFerryError(() => validateTiming(input as TimingInput | undefined, CREATE), 'MISSING_FIELD', 'timing');
  });

  it.each([['a string', 'cron'], ['a number', 5], ['an array', []]])('rejects a timing that is %s', (_what, input) => {
    expectFerryError(() => validateTiming(input as unknown as TimingInput, CREATE), 'INVALID_TIMING', 'timing');
  });

  it('reports a missing type as MISSING_FIELD timing.type', () => {
    expectFerryError(() => validateTiming(loose({ expression: '0 3 * * *', timezone: 'UTC' }), CREATE), 'MISSING_FIELD', 'timing.type');
  });

  it.each(['weekly', 'CRON', 'Interval', '', 5, true])('rejects type %j as INVALID_TIMING timing.type', (type) => {
    const err = expectFerryError(() => validateTiming(loose({ type, expression: '0 3 * * *', timezone: 'UTC' }), CREATE), 'INVALID_TIMING', 'timing.type');
    expect(err.message).toBe('timing.type must be cron or interval.');
  });

  it('prefixes every field with the given path', () => {
    expectFerryError(() => validateTiming(undefined, CREATE, 'schedules[2].timing'), 'MISSING_FIELD', 'schedules[2].timing');
    expectFerryError(() => validateTiming({ type: 'cron', timezone: 'UTC' }, CREATE, 'schedules[2].timing'), 'MISSING_FIELD', 'schedules[2].timing.expression');
    expectFerryError(() => validateTiming({ type: 'cron', expression: '@daily', timezone: 'UTC' }, CREATE, 'schedules[2].timing'), 'INVALID_TIMING', 'schedules[2].timing.expression');
    expectFerryError(() => validateTiming({ type: 'interval', everySeconds: 90 }, CREATE, 'schedules[2].timing'), 'INVALID_TIMING', 'schedules[2].timing.every_seconds');
  });

  it('is exported from the validation index', () => {
    expect(fromIndex).toBe(validateTiming);
  });
});

describe('validateTiming: cron', () => {
  it('refuses an expression over 512 bytes before reading it, and takes one of 512', () => {
    const err = expectFerryError(() => validateTiming({ type: 'cron', expression: `0 3 * * ${'1,'.repeat(300)}2`, timezone: 'UTC' }, CREATE), 'INVALID_TIMING', 'timing.expression');
    expect(err.message).toBe('timing.expression must be at most 512 bytes.');
    const padded = `0 3 * * *${' '.repeat(512 - 9)}`;
    expect(validateTiming({ type: 'cron', expression: padded, timezone: 'UTC' }, CREATE)).toMatchObject({ expression: padded });
  });

  it('keeps the expression and zone as written', () => {
    expect(validateTiming({ type: 'cron', expression: ' 0  3 * * MON ', timezone: 'Europe/Berlin' }, CREATE)).toEqual({
      type: 'cron',
      expression: ' 0  3 * * MON ',
      timezone: 'Europe/Berlin',
      dst: DEFAULT_DST,
      startsAt: null,
      endsAt: null,
    });
  });

  it('accepts interval members that are null (the read shape carries them)', () => {
    expect(validateTiming(loose({ type: 'cron', expression: '0 3 * * *', timezone: 'UTC', everySeconds: null, startsAt: null }), CREATE)).toEqual({
      type: 'cron',
      expression: '0 3 * * *',
      timezone: 'UTC',
      dst: DEFAULT_DST,
      startsAt: null,
      endsAt: null,
    });
  });

  it.each(['UTC', 'Etc/UTC', 'America/New_York', 'Australia/Lord_Howe', 'Pacific/Chatham', 'Asia/Kolkata', 'America/Argentina/Buenos_Aires', 'US/Eastern'])(
    'accepts the IANA zone %s',
    (timezone) => {
      expect(validateTiming({ type: 'cron', expression: '0 3 * * *', timezone }, CREATE)).toEqual({ type: 'cron', expression: '0 3 * * *', timezone, dst: DEFAULT_DST, startsAt: null, endsAt: null });
    },
  );

  it.each(['Mars/Olympus_Mons', 'Europe/Berln', '', ' UTC', '+05:00', 'UTC+5', 'Local', 'America/', '/UTC'])('rejects the zone %j', (timezone) => {
    const err = expectFerryError(() => validateTiming({ type: 'cron', expression: '0 3 * * *', timezone }, CREATE), 'INVALID_TIMING', 'timing.timezone');
    expect(err.message).toContain('IANA time zone name');
  });

  it.each<[string, Record<string, unknown>, string, string]>([
    ['no expression', { timezone: 'UTC' }, 'MISSING_FIELD', 'timing.expression'],
    ['a null expression', { expression: null, timezone: 'UTC' }, 'MISSING_FIELD', 'timing.expression'],
    ['a numeric expression', { expression: 5, timezone: 'UTC' }, 'INVALID_TIMING', 'timing.expression'],
    ['an invalid expression', { expression: '0 0 * * L', timezone: 'UTC' }, 'INVALID_TIMING', 'timing.expression'],
    ['a never-firing expression', { expression: '0 0 31 4,6,9,11 *', timezone: 'UTC' }, 'INVALID_TIMING', 'timing.expression'],
    ['no timezone', { expression: '0 3 * * *' }, 'MISSING_FIELD', 'timing.timezone'],
    ['a numeric timezone', { expression: '0 3 * * *', timezone: 9 }, 'INVALID_TIMING', 'timing.timezone'],
    ['every_seconds', { expression: '0 3 * * *', timezone: 'UTC', everySeconds: 60 }, 'INVALID_TIMING', 'timing.every_seconds'],
    ['starts_at in the past', { expression: '0 3 * * *', timezone: 'UTC', startsAt: '2027-03-01T00:00:00Z' }, 'INVALID_TIMING', 'timing.starts_at'],
    ['ends_at that is not RFC 3339', { expression: '0 3 * * *', timezone: 'UTC', endsAt: 'never' }, 'INVALID_TIMING', 'timing.ends_at'],
  ])('rejects a cron timing with %s', (_what, members, code, field) => {
    expectFerryError(() => validateTiming(loose({ type: 'cron', ...members }), CREATE), code as 'INVALID_TIMING', field);
  });

  it('passes the parser message through to the caller', () => {
    const err = expectFerryError(() => validateTiming({ type: 'cron', expression: '0 0 * * L', timezone: 'UTC' }, CREATE), 'INVALID_TIMING', 'timing.expression');
    expect(err.message).toBe("The day-of-week field has 'L'; only numbers, names, *, ranges, lists and steps are allowed.");
  });

  it('says which members a cron timing takes when given an interval member', () => {
    const err = expectFerryError(() => validateTiming({ type: 'cron', expression: '0 3 * * *', timezone: 'UTC', everySeconds: 60 }, CREATE), 'INVALID_TIMING');
    expect(err.message).toBe('timing.every_seconds does not apply to cron timing, which takes expression, timezone and, optionally, dst, starts_at and ends_at.');
  });
});

describe('validateTiming: interval', () => {
  it('without starts_at, first runs one interval after now', () => {
    expect(validateTiming({ type: 'interval', everySeconds: 300 }, CREATE)).toEqual({
      type: 'interval',
      everySeconds: 300,
      startsAt: null,
      firstRunAt: NOW + 300_000,
      endsAt: null,
    });
  });

  it('with starts_at, first runs at starts_at', () => {
    const startsAt = Date.UTC(2027, 2, 11, 9, 30);
    expect(validateTiming({ type: 'interval', everySeconds: 3600, startsAt: '2027-03-11T10:30:00+01:00' }, CREATE)).toEqual({
      type: 'interval',
      everySeconds: 3600,
      startsAt,
      firstRunAt: startsAt,
      endsAt: null,
    });
  });

  it('accepts cron members that are null (the read shape carries them)', () => {
    expect(validateTiming(loose({ type: 'interval', everySeconds: 60, expression: null, timezone: null }), CREATE)).toMatchObject({ everySeconds: 60 });
  });

  it.each([MIN_INTERVAL_SECONDS, 120, 3600, 86_400, MAX_INTERVAL_SECONDS])('accepts every_seconds %i', (everySeconds) => {
    expect(validateTiming({ type: 'interval', everySeconds }, CREATE)).toMatchObject({ type: 'interval', everySeconds });
  });

  it('pins the limits: 60 s and 30 days', () => {
    expect([MIN_INTERVAL_SECONDS, MAX_INTERVAL_SECONDS]).toEqual([60, 2_592_000]);
  });

  it.each<[string, unknown]>([
    ['zero', 0],
    ['59 s', 59],
    ['61 s', 61],
    ['90 s (not whole minutes)', 90],
    ['a fraction', 60.5],
    ['negative', -60],
    ['one minute over 30 days', MAX_INTERVAL_SECONDS + 60],
    ['a numeric string', '60'],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['a boolean', true],
  ])('rejects every_seconds that is %s', (_what, everySeconds) => {
    expectFerryError(() => validateTiming(loose({ type: 'interval', everySeconds }), CREATE), 'INVALID_TIMING', 'timing.every_seconds');
  });

  it.each<[string, Record<string, unknown>, string, string]>([
    ['no every_seconds', {}, 'MISSING_FIELD', 'timing.every_seconds'],
    ['a null every_seconds', { everySeconds: null }, 'MISSING_FIELD', 'timing.every_seconds'],
    ['an expression', { everySeconds: 60, expression: '* * * * *' }, 'INVALID_TIMING', 'timing.expression'],
    ['a timezone', { everySeconds: 60, timezone: 'UTC' }, 'INVALID_TIMING', 'timing.timezone'],
    ['starts_at that is not RFC 3339', { everySeconds: 60, startsAt: 'tomorrow' }, 'INVALID_TIMING', 'timing.starts_at'],
    ['starts_at in month 13', { everySeconds: 60, startsAt: '2030-13-01T00:00:00Z' }, 'INVALID_TIMING', 'timing.starts_at'],
    ['starts_at without an offset', { everySeconds: 60, startsAt: '2030-01-01T00:00:00' }, 'INVALID_TIMING', 'timing.starts_at'],
    ['a numeric starts_at', { everySeconds: 60, startsAt: NOW + 60_000 }, 'INVALID_TIMING', 'timing.starts_at'],
  ])('rejects an interval timing with %s', (_what, members, code, field) => {
    expectFerryError(() => validateTiming(loose({ type: 'interval', ...members }), CREATE), code as 'INVALID_TIMING', field);
  });

  it('says which members an interval timing takes when given a cron member', () => {
    const err = expectFerryError(() => validateTiming({ type: 'interval', everySeconds: 60, timezone: 'UTC' }, CREATE), 'INVALID_TIMING');
    expect(err.message).toBe('timing.timezone does not apply to interval timing, which takes every_seconds and, optionally, starts_at and ends_at.');
  });

  it('on create, requires starts_at strictly after now', () => {
    const iso = (ms: number) => new Date(ms).toISOString();
    for (const startsAt of [iso(NOW - 60_000), iso(NOW)]) {
      const err = expectFerryError(() => validateTiming({ type: 'interval', everySeconds: 60, startsAt }, CREATE), 'INVALID_TIMING', 'timing.starts_at');
      expect(err.message).toBe('timing.starts_at must be in the future.');
    }
    expect(validateTiming({ type: 'interval', everySeconds: 60, startsAt: iso(NOW + 1) }, CREATE)).toMatchObject({ firstRunAt: NOW + 1 });
  });

  it('on update, keeps a starts_at in the past (the occurrences continue from it)', () => {
    const startsAt = NOW - 86_400_000;
    expect(validateTiming({ type: 'interval', everySeconds: 600, startsAt: new Date(startsAt).toISOString() }, UPDATE)).toEqual({
      type: 'interval',
      everySeconds: 600,
      startsAt,
      firstRunAt: startsAt,
      endsAt: null,
    });
  });
});
