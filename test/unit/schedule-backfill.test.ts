import { describe, expect, it } from 'vitest';
import { FerryError } from '../../src/domain/errors.js';
import { backfillInstants } from '../../src/domain/schedule/backfill.js';
import { EMPTY_RUN_STATE, notBackfilled, withBackfilled } from '../../src/domain/schedule/runs.js';
import { validateBackfill } from '../../src/domain/validation/index.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const T = Date.UTC(2030, 0, 15, 12, 0, 0);

describe('backfill instants', () => {
  it('extends an interval\'s grid backwards from its first run by whole intervals; the range is [from, to)', () => {
    const timing = { type: 'interval', everySeconds: 900, startsAt: null, firstRunAt: T + 7 * MINUTE, endsAt: null } as const;
    expect(backfillInstants(timing, T - HOUR, T)).toEqual([T - 53 * MINUTE, T - 38 * MINUTE, T - 23 * MINUTE, T - 8 * MINUTE]);
    expect(backfillInstants(timing, T - 8 * MINUTE, T + 7 * MINUTE)).toEqual([T - 8 * MINUTE]);
  });

  it('takes a cron timing\'s instants in its zone', () => {
    const timing = { type: 'cron', expression: '0 * * * *', timezone: 'Asia/Kolkata', dst: { gap: 'shift', overlap: 'first' }, startsAt: null, endsAt: null } as const;
    // Kolkata is UTC+5:30: its whole hours are at :30 UTC.
    expect(backfillInstants(timing, T - 3 * HOUR, T)).toEqual([T - 150 * MINUTE, T - 90 * MINUTE, T - 30 * MINUTE]);
  });

  it('refuses a range in the future, backwards, or holding more than 1,000 instants, naming the field', () => {
    const timing = { type: 'interval', everySeconds: 60, startsAt: null, firstRunAt: T, endsAt: null } as const;
    const iso = (t: number) => new Date(t).toISOString();
    const field = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        return err instanceof FerryError ? [err.code, err.field] : err;
      }
      return null;
    };
    expect(field(() => validateBackfill({ from: iso(T - HOUR), to: iso(T + MINUTE) }, timing, T))).toEqual(['INVALID_FIELD', 'to']);
    expect(field(() => validateBackfill({ from: iso(T), to: iso(T - HOUR) }, timing, T))).toEqual(['INVALID_FIELD', 'from']);
    expect(field(() => validateBackfill({ to: iso(T) }, timing, T))).toEqual(['MISSING_FIELD', 'from']);
    expect(field(() => validateBackfill({ from: 'yesterday', to: iso(T) }, timing, T))).toEqual(['INVALID_FIELD', 'from']);
    expect(field(() => validateBackfill({ from: iso(T - 1001 * MINUTE), to: iso(T) }, timing, T))).toEqual(['INVALID_FIELD', 'to']);
    expect(validateBackfill({ from: iso(T - 1000 * MINUTE), to: iso(T) }, timing, T).instants).toHaveLength(1000);
  });
});

describe('backfilled ranges', () => {
  it('merge with the ranges they touch, and leave the instants inside them out of a later backfill', () => {
    const quarters = (from: number) => [0, 1, 2, 3].map((k) => from + k * 15 * MINUTE);
    let runs = withBackfilled(EMPTY_RUN_STATE, T, T + HOUR, quarters(T));
    runs = withBackfilled(runs, T + 2 * HOUR, T + 3 * HOUR, quarters(T + 2 * HOUR));
    expect(runs.backfilled).toEqual([[T, T + HOUR], [T + 2 * HOUR, T + 3 * HOUR]]);
    runs = withBackfilled(runs, T + HOUR, T + 2 * HOUR, quarters(T + HOUR));
    expect(runs.backfilled).toEqual([[T, T + 3 * HOUR]]);
    expect(runs.counts.backfilled).toBe(12);
    // Recorded again (a racing call, or a retry): the instants are covered, nothing is counted twice.
    expect(withBackfilled(runs, T, T + 3 * HOUR, [...quarters(T), ...quarters(T + HOUR)]).counts.backfilled).toBe(12);
    expect(notBackfilled(runs, [T - 1, T, T + 3 * HOUR - 1, T + 3 * HOUR])).toEqual([T - 1, T + 3 * HOUR]);
  });
});
