import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SCHEDULE_POLICY,
  isPastEnd,
  overlapDecision,
  shouldPauseAfterFailure,
  type SchedulePolicy,
} from '../../src/domain/schedule/policy.js';
import { DEFAULT_DST, type CronTiming, type Timing } from '../../src/domain/schedule/timing.js';
import { validateSchedulePolicy, type SchedulePolicyInput } from '../../src/domain/validation/schedule-policy.js';
import { validateTiming, type TimingInput } from '../../src/domain/validation/timing.js';
import { expectFerryError } from './expect-ferry-error.js';

const NOW = Date.UTC(2027, 2, 10, 12, 0, 0);
const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();
const policy = (p: Partial<SchedulePolicy>): SchedulePolicy => ({ ...DEFAULT_SCHEDULE_POLICY, ...p });
const everyMinute: CronTiming = { type: 'cron', expression: '* * * * *', timezone: 'UTC', dst: DEFAULT_DST, startsAt: null, endsAt: null };
const loose = (input: Record<string, unknown>): SchedulePolicyInput => input as SchedulePolicyInput;

describe('overlapDecision', () => {
  it.each<[SchedulePolicy['overlap'], boolean, boolean, string]>([
    ['allow_all', false, false, 'fire'],
    ['allow_all', true, false, 'fire'],
    ['allow_all', true, true, 'fire'],
    ['skip', false, false, 'fire'],
    ['skip', true, false, 'skip'],
    ['skip', true, true, 'skip'],
    ['buffer_one', false, false, 'fire'],
    ['buffer_one', true, false, 'buffer'],
    ['buffer_one', true, true, 'skip'],
  ])('%s, previous active %s, one waiting %s: %s', (overlap, previousActive, bufferedWaiting, decision) => {
    expect(overlapDecision(policy({ overlap }), previousActive, bufferedWaiting)).toBe(decision);
  });
});

describe('shouldPauseAfterFailure', () => {
  it('pauses at the Nth consecutive failure, never without a limit', () => {
    expect([0, 1, 2, 3, 4].map((n) => shouldPauseAfterFailure(policy({ pauseAfterFailures: 3 }), n))).toEqual([false, false, false, true, true]);
    expect(shouldPauseAfterFailure(policy({ pauseAfterFailures: 1 }), 1)).toBe(true);
    expect(shouldPauseAfterFailure(DEFAULT_SCHEDULE_POLICY, 1000)).toBe(false);
  });
});

describe('isPastEnd', () => {
  const bounded: Timing = { ...everyMinute, endsAt: NOW + HOUR };
  it('ends after max_runs occurrences of the timing', () => {
    expect(isPastEnd(everyMinute, policy({ maxRuns: 3 }), 2, NOW)).toBe(false);
    expect(isPastEnd(everyMinute, policy({ maxRuns: 3 }), 3, NOW)).toBe(true);
    expect(isPastEnd(everyMinute, DEFAULT_SCHEDULE_POLICY, 1_000_000, NOW)).toBe(false);
  });
  it('ends when no occurrence is left: none next, or the next at or after the exclusive ends_at', () => {
    expect(isPastEnd(everyMinute, DEFAULT_SCHEDULE_POLICY, 0, null)).toBe(true);
    expect(isPastEnd(bounded, DEFAULT_SCHEDULE_POLICY, 0, NOW + HOUR - 1)).toBe(false);
    expect(isPastEnd(bounded, DEFAULT_SCHEDULE_POLICY, 0, NOW + HOUR)).toBe(true);
  });
});

describe('validateSchedulePolicy', () => {
  it('takes the defaults for an absent or null policy and for absent members', () => {
    expect(validateSchedulePolicy(undefined, everyMinute, NOW)).toEqual({ overlap: 'allow_all', maxRuns: null, jitterSeconds: 0, pauseAfterFailures: null });
    expect(validateSchedulePolicy(null as unknown as undefined, everyMinute, NOW)).toEqual(DEFAULT_SCHEDULE_POLICY);
    expect(validateSchedulePolicy(loose({ overlap: null, max_runs: null }), everyMinute, NOW)).toEqual(DEFAULT_SCHEDULE_POLICY);
  });

  it('keeps every member given', () => {
    expect(validateSchedulePolicy({ overlap: 'buffer_one', max_runs: 5, jitter_seconds: 60, pause_after_failures: 100 }, everyMinute, NOW)).toEqual({
      overlap: 'buffer_one',
      maxRuns: 5,
      jitterSeconds: 60,
      pauseAfterFailures: 100,
    });
    expect(validateSchedulePolicy({ overlap: 'skip', pause_after_failures: 1 }, everyMinute, NOW)).toMatchObject({ overlap: 'skip', pauseAfterFailures: 1 });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['an unknown overlap', { overlap: 'queue' }, 'policy.overlap'],
    ['an overlap in capitals', { overlap: 'SKIP' }, 'policy.overlap'],
    ['max_runs 0', { max_runs: 0 }, 'policy.max_runs'],
    ['max_runs -1', { max_runs: -1 }, 'policy.max_runs'],
    ['a fractional max_runs', { max_runs: 1.5 }, 'policy.max_runs'],
    ['a string max_runs', { max_runs: '5' }, 'policy.max_runs'],
    ['jitter_seconds -1', { jitter_seconds: -1 }, 'policy.jitter_seconds'],
    ['jitter_seconds over an hour', { jitter_seconds: 3601 }, 'policy.jitter_seconds'],
    ['pause_after_failures 0', { pause_after_failures: 0 }, 'policy.pause_after_failures'],
    ['pause_after_failures 101', { pause_after_failures: 101 }, 'policy.pause_after_failures'],
  ])('refuses %s with 422 INVALID_FIELD naming the member', (_what, members, field) => {
    expectFerryError(() => validateSchedulePolicy(loose(members), everyMinute, NOW), 'INVALID_FIELD', field);
  });

  it('refuses a policy that is not an object', () => {
    expectFerryError(() => validateSchedulePolicy('skip' as unknown as SchedulePolicyInput, everyMinute, NOW), 'INVALID_FIELD', 'policy');
    expectFerryError(() => validateSchedulePolicy([] as unknown as SchedulePolicyInput, everyMinute, NOW, 'schedule.policy'), 'INVALID_FIELD', 'schedule.policy');
  });

  it('refuses jitter longer than the shortest gap between occurrences, and takes one exactly as long', () => {
    const err = expectFerryError(() => validateSchedulePolicy({ jitter_seconds: 61 }, everyMinute, NOW), 'INVALID_FIELD', 'policy.jitter_seconds');
    expect(err.message).toContain('at most 60');
    expect(validateSchedulePolicy({ jitter_seconds: 60 }, everyMinute, NOW).jitterSeconds).toBe(60);
    const fiveMinutes: Timing = { type: 'interval', everySeconds: 300, startsAt: null, firstRunAt: NOW + 300_000, endsAt: null };
    expectFerryError(() => validateSchedulePolicy({ jitter_seconds: 301 }, fiveMinutes, NOW), 'INVALID_FIELD', 'policy.jitter_seconds');
    // A daily job whose overlap runs twice an hour apart takes an hour at most.
    const bothPasses: Timing = { type: 'cron', expression: '30 1 * * *', timezone: 'America/New_York', dst: { gap: 'shift', overlap: 'both' }, startsAt: null, endsAt: null };
    expect(validateSchedulePolicy({ jitter_seconds: 3600 }, bothPasses, NOW).jitterSeconds).toBe(3600);
    const halfHourly: Timing = { ...bothPasses, expression: '*/30 * * * *' };
    expectFerryError(() => validateSchedulePolicy({ jitter_seconds: 1801 }, halfHourly, NOW), 'INVALID_FIELD', 'policy.jitter_seconds');
  });
});

describe('validateTiming: dst, starts_at and ends_at', () => {
  const CREATE = { now: NOW, creating: true };
  const cronInput = (members: Record<string, unknown>): TimingInput => ({ type: 'cron', expression: '0 3 * * *', timezone: 'Europe/Berlin', ...members }) as TimingInput;

  it('reads dst, each member defaulting on its own', () => {
    expect(validateTiming(cronInput({ dst: { gap: 'skip', overlap: 'both' } }), CREATE)).toMatchObject({ dst: { gap: 'skip', overlap: 'both' } });
    expect(validateTiming(cronInput({ dst: { overlap: 'second' } }), CREATE)).toMatchObject({ dst: { gap: 'shift', overlap: 'second' } });
    expect(validateTiming(cronInput({ dst: {} }), CREATE)).toMatchObject({ dst: DEFAULT_DST });
    expect(validateTiming(cronInput({ dst: null }), CREATE)).toMatchObject({ dst: DEFAULT_DST });
  });

  it('takes starts_at and ends_at on cron, inclusive start and exclusive end', () => {
    const startsAt = NOW + 24 * HOUR;
    const endsAt = NOW + 72 * HOUR;
    expect(validateTiming(cronInput({ startsAt: iso(startsAt), endsAt: iso(endsAt) }), CREATE)).toMatchObject({ startsAt, endsAt });
    expect(validateTiming({ type: 'interval', everySeconds: 60, endsAt: iso(NOW + HOUR) }, CREATE)).toMatchObject({ startsAt: null, endsAt: NOW + HOUR });
  });

  it.each<[string, TimingInput, string, string]>([
    ['an unknown dst.gap', cronInput({ dst: { gap: 'jump' } }), 'timing.dst.gap', 'timing.dst.gap must be shift or skip.'],
    ['an unknown dst.overlap', cronInput({ dst: { overlap: 'twice' } }), 'timing.dst.overlap', 'timing.dst.overlap must be first, second or both.'],
    ['a dst that is not an object', cronInput({ dst: 'skip' }), 'timing.dst', ''],
    ['dst on an interval', { type: 'interval', everySeconds: 60, dst: { gap: 'skip' } } as TimingInput, 'timing.dst', ''],
    ['ends_at before starts_at', cronInput({ startsAt: iso(NOW + 2 * HOUR), endsAt: iso(NOW + HOUR) }), 'timing.ends_at', 'timing.ends_at must be after timing.starts_at.'],
    ['ends_at equal to starts_at', cronInput({ startsAt: iso(NOW + 2 * HOUR), endsAt: iso(NOW + 2 * HOUR) }), 'timing.ends_at', ''],
    ['ends_at in the past', cronInput({ endsAt: iso(NOW - HOUR) }), 'timing.ends_at', 'timing.ends_at must be in the future.'],
    ['ends_at before the first occurrence', cronInput({ endsAt: iso(NOW + HOUR) }), 'timing.ends_at', ''],
    ['an interval ending before its first run', { type: 'interval', everySeconds: 3600, endsAt: iso(NOW + HOUR) } as TimingInput, 'timing.ends_at', ''],
    ['a cron starts_at in the past', cronInput({ startsAt: iso(NOW - HOUR) }), 'timing.starts_at', 'timing.starts_at must be in the future.'],
  ])('refuses %s', (_what, input, field, message) => {
    const err = expectFerryError(() => validateTiming(input, CREATE), 'INVALID_TIMING', field);
    if (message !== '') expect(err.message).toBe(message);
  });

  it('in a preview, takes bounds in the past and an end that leaves nothing', () => {
    const preview = { now: NOW, creating: false };
    expect(validateTiming(cronInput({ startsAt: iso(NOW - 48 * HOUR), endsAt: iso(NOW - 24 * HOUR) }), preview)).toMatchObject({ endsAt: NOW - 24 * HOUR });
  });
});
