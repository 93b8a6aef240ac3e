import { describe, expect, it } from 'vitest';
import { MISSED_RUN_GRACE_MS, planFiring } from '../../src/domain/schedule/firing.js';
import { DEFAULT_DST, type CronTiming, type IntervalTiming } from '../../src/domain/schedule/timing.js';

/**
 * What a due schedule does when the scheduler looks at it: the most recent occurrence at or before now fires, if
 * it is at most 12 h old, and the timer moves to the first occurrence after now. Never a burst, never a run twice.
 */

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const T0 = Date.UTC(2030, 0, 15, 12, 0, 0);

const interval = (everySeconds: number, firstRunAt = T0): IntervalTiming => ({ type: 'interval', everySeconds, startsAt: firstRunAt, firstRunAt, endsAt: null });
const cron = (expression: string, timezone = 'UTC'): CronTiming => ({ type: 'cron', expression, timezone, dst: DEFAULT_DST, startsAt: null, endsAt: null });

describe('planFiring', () => {
  it('the grace period is 12 hours', () => {
    expect(MISSED_RUN_GRACE_MS).toBe(12 * HOUR);
  });

  it('on time: the occurrence the timer was set for fires, and the timer moves one period on', () => {
    expect(planFiring(interval(60), T0, T0)).toEqual({ fireAt: T0, nextRunAt: T0 + MINUTE });
    expect(planFiring(interval(60), T0 + 3 * MINUTE, T0 + 3 * MINUTE)).toEqual({ fireAt: T0 + 3 * MINUTE, nextRunAt: T0 + 4 * MINUTE });
  });

  it('ahead of its instant (enqueued early): that occurrence fires, and the timer moves one period on from it', () => {
    expect(planFiring(interval(60), T0, T0 - 10 * SECOND)).toEqual({ fireAt: T0, nextRunAt: T0 + MINUTE });
    expect(planFiring(cron('0 * * * *'), T0, T0 - 1)).toEqual({ fireAt: T0, nextRunAt: T0 + HOUR });
  });

  it('a little late (less than a period): still that occurrence, and the next one keeps its own time', () => {
    expect(planFiring(interval(60), T0, T0 + 59_999)).toEqual({ fireAt: T0, nextRunAt: T0 + MINUTE });
    expect(planFiring(interval(3600), T0, T0 + 10 * MINUTE)).toEqual({ fireAt: T0, nextRunAt: T0 + HOUR });
  });

  it('after a downtime over several occurrences only the most recent one fires, and the timer moves past now', () => {
    // Down from just before T0 until 5.5 minutes later: T0 .. T0+5min were missed; only T0+5min fires.
    expect(planFiring(interval(60), T0, T0 + 5 * MINUTE + 30 * SECOND)).toEqual({ fireAt: T0 + 5 * MINUTE, nextRunAt: T0 + 6 * MINUTE });
    // Landing exactly on an occurrence: that one is the most recent, the next is a full period later.
    expect(planFiring(interval(60), T0, T0 + 7 * MINUTE)).toEqual({ fireAt: T0 + 7 * MINUTE, nextRunAt: T0 + 8 * MINUTE });
    // Eleven hours of a ten-minute schedule: one run, not 66.
    expect(planFiring(interval(600), T0, T0 + 11 * HOUR + 1)).toEqual({ fireAt: T0 + 11 * HOUR, nextRunAt: T0 + 11 * HOUR + 10 * MINUTE });
  });

  it('a timer left behind on an earlier occurrence (the schedule had not been moved on) fires the most recent one', () => {
    // Its timer still says T0 + 1 min, but T0 + 3 min has come: the later one is the one to fire.
    expect(planFiring(interval(60), T0 + MINUTE, T0 + 3 * MINUTE + 1)).toEqual({ fireAt: T0 + 3 * MINUTE, nextRunAt: T0 + 4 * MINUTE });
  });

  it('the most recent missed occurrence fires when it is at most 12 h old, and not when it is older', () => {
    const every = interval(2 * 86_400);
    expect(planFiring(every, T0, T0 + 12 * HOUR)).toEqual({ fireAt: T0, nextRunAt: T0 + 2 * DAY });
    expect(planFiring(every, T0, T0 + 12 * HOUR + 1)).toEqual({ fireAt: null, nextRunAt: T0 + 2 * DAY });
    expect(planFiring(every, T0, T0 + 13 * HOUR)).toEqual({ fireAt: null, nextRunAt: T0 + 2 * DAY });
    // The occurrence after the skipped one is still in the future: the schedule carries on from it.
    expect(planFiring(every, T0, T0 + 2 * DAY - 1)).toEqual({ fireAt: null, nextRunAt: T0 + 2 * DAY });
  });

  it('a long downtime over a short period fires its latest occurrence, however old the timer was', () => {
    // A week down, every minute: the latest minute is at most a minute old, so it fires once.
    expect(planFiring(interval(60), T0, T0 + 7 * DAY + 42 * SECOND)).toEqual({ fireAt: T0 + 7 * DAY, nextRunAt: T0 + 7 * DAY + MINUTE });
  });

  it('a week down over a daily schedule: the last day is more than 12 h old, so nothing fires and tomorrow is next', () => {
    expect(planFiring(interval(86_400), T0, T0 + 7 * DAY + 13 * HOUR)).toEqual({ fireAt: null, nextRunAt: T0 + 8 * DAY });
    expect(planFiring(interval(86_400), T0, T0 + 7 * DAY + 11 * HOUR)).toEqual({ fireAt: T0 + 7 * DAY, nextRunAt: T0 + 8 * DAY });
  });

  it('the grace period can be given', () => {
    expect(planFiring(interval(3600), T0, T0 + 30 * MINUTE, 30 * MINUTE)).toEqual({ fireAt: T0, nextRunAt: T0 + HOUR });
    expect(planFiring(interval(3600), T0, T0 + 30 * MINUTE + 1, 30 * MINUTE)).toEqual({ fireAt: null, nextRunAt: T0 + HOUR });
  });

  it('cron timing: the latest missed hour fires, the next hour is next', () => {
    const hourly = cron('0 * * * *');
    expect(planFiring(hourly, T0, T0)).toEqual({ fireAt: T0, nextRunAt: T0 + HOUR });
    expect(planFiring(hourly, T0, T0 + 5 * HOUR + 17 * MINUTE)).toEqual({ fireAt: T0 + 5 * HOUR, nextRunAt: T0 + 6 * HOUR });
    const daily = cron('0 12 * * *');
    expect(planFiring(daily, T0, T0 + 3 * DAY + 11 * HOUR)).toEqual({ fireAt: T0 + 3 * DAY, nextRunAt: T0 + 4 * DAY });
    expect(planFiring(daily, T0, T0 + 3 * DAY + 13 * HOUR)).toEqual({ fireAt: null, nextRunAt: T0 + 4 * DAY });
  });

  it('over many instants: the fired occurrence is a grid point at or before now, the latest one, and the next is after now', () => {
    // A fixed pseudo-random walk: same cases on every run.
    let seed = 12345;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 2_000; i++) {
      const everySeconds = 60 * (1 + rand(3 * 24 * 60));
      const period = everySeconds * SECOND;
      const timing = interval(everySeconds);
      const dueAt = T0 + rand(20) * period;
      const now = dueAt + rand(30 * DAY);
      const plan = planFiring(timing, dueAt, now);
      const latest = T0 + Math.floor((now - T0) / period) * period;
      expect(plan.nextRunAt).toBe(latest + period);
      expect(plan.nextRunAt!).toBeGreaterThan(now);
      if (now - latest <= MISSED_RUN_GRACE_MS) expect(plan.fireAt).toBe(latest);
      else expect(plan.fireAt).toBeNull();
      // Firing again at a later look finds nothing older to fire: the timer is past the fired occurrence.
      if (plan.fireAt !== null) expect(plan.nextRunAt!).toBeGreaterThan(plan.fireAt);
    }
  });
});
