import { describe, expect, it } from 'vitest';
import { jitterDelayMs, shortestGapMs } from '../../src/domain/schedule/jitter.js';
import type { CronTiming, DstPolicy, IntervalTiming } from '../../src/domain/schedule/timing.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const T0 = Date.UTC(2027, 0, 4, 9, 0);

const cron = (expression: string, timezone = 'UTC', dst: DstPolicy = { gap: 'shift', overlap: 'first' }, endsAt: number | null = null): CronTiming => ({
  type: 'cron',
  expression,
  timezone,
  dst,
  startsAt: null,
  endsAt,
});
const interval = (everySeconds: number, endsAt: number | null = null): IntervalTiming => ({ type: 'interval', everySeconds, startsAt: T0, firstRunAt: T0, endsAt });

describe('jitterDelayMs', () => {
  it('is the same for the same schedule and occurrence, every time', () => {
    const first = jitterDelayMs('sch_01JABC', T0, 30, T0 + MINUTE);
    for (let i = 0; i < 5; i++) expect(jitterDelayMs('sch_01JABC', T0, 30, T0 + MINUTE)).toBe(first);
    // Another schedule or another occurrence draws again.
    const others = new Set(Array.from({ length: 50 }, (_, i) => jitterDelayMs(`sch_${i}`, T0, 30, null)));
    expect(others.size).toBeGreaterThan(45);
    const later = new Set(Array.from({ length: 50 }, (_, i) => jitterDelayMs('sch_01JABC', T0 + i * MINUTE, 30, null)));
    expect(later.size).toBeGreaterThan(45);
  });

  it('is a whole number of milliseconds from 0 to jitter_seconds, never early', () => {
    let max = 0;
    for (let i = 0; i < 10_000; i++) {
      const d = jitterDelayMs(`sch_${i}`, T0 + i * MINUTE, 2, null);
      expect(Number.isInteger(d)).toBe(true);
      expect(d).toBeGreaterThanOrEqual(0);
      expect(d).toBeLessThanOrEqual(2000);
      max = Math.max(max, d);
    }
    expect(max).toBeGreaterThan(1990);
  });

  it('is 0 without jitter', () => {
    expect(jitterDelayMs('sch_a', T0, 0, T0 + MINUTE)).toBe(0);
  });

  it('never reaches the next occurrence', () => {
    for (let i = 0; i < 10_000; i++) {
      const next = T0 + 1 + (i % 7) * 1000;
      expect(jitterDelayMs(`sch_${i}`, T0, 3600, next)).toBeLessThan(next - T0);
    }
    expect(jitterDelayMs('sch_a', T0, 3600, T0 + 1)).toBe(0);
  });

  // Draws are independent, so a tenth of 10,000 holds 1,000 ± 30 (one standard deviation): a bound of ±5 % of a
  // bin (1.7 deviations) is missed by some bin of ten about half the time by chance alone. The bounds here are 5 % of
  // all draws for the running total at every tenth (the largest gap between the empirical and the uniform
  // distribution, about five deviations), and ±15 % for each bin (five deviations).
  it('spreads 10,000 draws uniformly: within 5 % of uniform at every tenth of the span', () => {
    const bins = new Array<number>(10).fill(0);
    for (let i = 0; i < 10_000; i++) {
      const d = jitterDelayMs(`sch_${i.toString(36).padStart(6, '0')}`, T0, 30, T0 + MINUTE);
      bins[Math.min(9, Math.floor(d / 3000))]! += 1;
    }
    let total = 0;
    bins.forEach((n, k) => {
      total += n;
      expect(Math.abs(total - (k + 1) * 1000)).toBeLessThanOrEqual(500);
      expect(Math.abs(n - 1000)).toBeLessThanOrEqual(150);
    });
  });
});

describe('shortestGapMs', () => {
  it.each<[string, CronTiming, number | null]>([
    ['every minute', cron('* * * * *'), MINUTE],
    ['every five minutes', cron('*/5 * * * *'), 5 * MINUTE],
    ['a list of minutes in some hours', cron('0,10,45 8-17 * * *'), 10 * MINUTE],
    ['last of a day to first of the next', cron('0 0,23 * * *'), HOUR],
    ['weekdays at nine in Berlin', cron('0 9 * * 1-5', 'Europe/Berlin'), DAY],
    ['daily in New York, a gap shifted run half an hour early', cron('30 2 * * *', 'America/New_York'), 23.5 * HOUR],
    ['daily in New York, gaps skipped', cron('30 2 * * *', 'America/New_York', { gap: 'skip', overlap: 'first' }), DAY],
    ['daily in New York, both passes of the overlap', cron('30 1 * * *', 'America/New_York', { gap: 'shift', overlap: 'both' }), HOUR],
    ['daily in Lord Howe, both passes of its half-hour overlap', cron('45 1 * * *', 'Australia/Lord_Howe', { gap: 'shift', overlap: 'both' }), 30 * MINUTE],
    ['monthly', cron('0 0 1 * *'), 28 * DAY],
    ['one occurrence before its end', cron('0 12 * * *', 'UTC', undefined, T0 + DAY), null],
  ])('%s', (_what, timing, gap) => {
    expect(shortestGapMs(timing, T0)).toBe(gap);
  });

  it('an interval: its period, or null when its end leaves fewer than two occurrences', () => {
    expect(shortestGapMs(interval(600), T0 - HOUR)).toBe(600_000);
    expect(shortestGapMs(interval(600, T0 + 600_001), T0 - HOUR)).toBe(600_000);
    expect(shortestGapMs(interval(600, T0 + 600_000), T0 - HOUR)).toBeNull();
    expect(shortestGapMs(interval(30 * 86_400), T0 + 1)).toBe(30 * DAY);
  });

  it('measures a timing that starts later from its start', () => {
    const later = T0 + 800 * DAY;
    expect(shortestGapMs({ ...cron('*/10 * * * *'), startsAt: later }, T0)).toBe(10 * 60_000);
    expect(shortestGapMs({ type: 'interval', everySeconds: 900, startsAt: later, firstRunAt: later, endsAt: null }, T0)).toBe(900_000);
  });

  it('looks 366 days ahead only: a yearly job from just after its run has one occurrence there', () => {
    expect(shortestGapMs(cron('0 0 1 1 *'), Date.UTC(2027, 0, 1, 0, 1))).toBeNull();
    expect(shortestGapMs(cron('0 0 1 1 *'), Date.UTC(2026, 11, 31))).toBe(365 * DAY);
  });
});
