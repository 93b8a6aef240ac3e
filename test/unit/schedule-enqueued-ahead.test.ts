import { describe, expect, it } from 'vitest';
import { DEFAULT_SCHEDULE_POLICY } from '../../src/domain/schedule/policy.js';
import { EMPTY_RUN_STATE } from '../../src/domain/schedule/runs.js';
import {
  existsAt,
  firedAhead,
  firedPatch,
  isWithdrawn,
  occurrenceCreatedAt,
  revisedAt,
  scheduleAsOf,
  takeBackPatch,
} from '../../src/domain/schedule/enqueued-ahead.js';
import type { StoredSchedule } from '../../src/domain/schedule/schedule.js';

/**
 * Before its instant an occurrence is not a run: the rule for the request an occurrence fired ahead creates, and for
 * the schedule that fired it, on instants given outright (no clock is read).
 */

const MINUTE = 60_000;
const T0 = Date.UTC(2030, 0, 15, 12, 0, 0);
const T1 = T0 + MINUTE;
const LEAD = 10_000;

function schedule(overrides: Partial<StoredSchedule> = {}): StoredSchedule {
  return {
    id: 'sch_unit',
    projectId: 'prj_unit',
    name: 'every minute',
    timing: { type: 'interval', everySeconds: 60, startsAt: T0, firstRunAt: T0, endsAt: null },
    status: 'active',
    pauseReason: null,
    policy: DEFAULT_SCHEDULE_POLICY,
    runs: EMPTY_RUN_STATE,
    request: { url: 'https://example.com/tick', headers: [], body: null, retry: 0, flowKeys: [], queue: 'default', timeoutSeconds: 50, metadata: {} },
    nextRunAt: T1,
    lastRunAt: T0,
    lastRunOutcome: 'enqueued',
    previousRunAt: null,
    previousRunOutcome: null,
    createdAt: T0 - MINUTE,
    updatedAt: T0 - MINUTE,
    version: 3,
    ...overrides,
  };
}

/** `s` after firing its occurrence at T1 ahead of it, as the scheduler records it. */
function firedAheadOf(s: StoredSchedule): StoredSchedule {
  return { ...s, ...firedPatch(s, T1, 'enqueued'), nextRunAt: T1 + MINUTE, version: s.version + 1 };
}

describe('the request of an occurrence enqueued ahead', () => {
  it('is created as of its instant, or as of its firing when that comes later', () => {
    expect(occurrenceCreatedAt(T1, T1 - LEAD)).toBe(T1);
    expect(occurrenceCreatedAt(T1, T1 + 5)).toBe(T1 + 5);
  });

  it('does not exist before it was created, and does from then on', () => {
    const request = { createdAt: T1, cancelledAt: null };
    expect(existsAt(request, T1 - 1)).toBe(false);
    expect(existsAt(request, T1)).toBe(true);
  });

  it('withdrawn before its instant (cancelled before it was created), it never exists; cancelled once it exists, it does', () => {
    const withdrawn = { createdAt: T1, cancelledAt: T1 - LEAD / 2 };
    expect(isWithdrawn(withdrawn)).toBe(true);
    expect(existsAt(withdrawn, T1 + 365 * 24 * 60 * MINUTE)).toBe(false);
    const cancelled = { createdAt: T1, cancelledAt: T1 };
    expect(isWithdrawn(cancelled)).toBe(false);
    expect(existsAt(cancelled, T1)).toBe(true);
  });
});

describe('a schedule that fired an occurrence ahead of its instant', () => {
  it('reads, until that instant, as if it had not fired it: the occurrence is its next run, the run before its last', () => {
    const fired = firedAheadOf(schedule());
    expect(fired).toMatchObject({ lastRunAt: T1, lastRunOutcome: 'enqueued', previousRunAt: T0, previousRunOutcome: 'enqueued' });
    expect(firedAhead(fired, T1 - LEAD)).toBe(T1);
    expect(scheduleAsOf(fired, T1 - LEAD)).toMatchObject({ nextRunAt: T1, lastRunAt: T0, lastRunOutcome: 'enqueued' });
    expect(scheduleAsOf(fired, T1 - 1)).toMatchObject({ nextRunAt: T1, lastRunAt: T0 });
  });

  it('reads as it is stored from the instant on: the occurrence is its last run, the one after it its next', () => {
    const fired = firedAheadOf(schedule());
    expect(firedAhead(fired, T1)).toBeNull();
    expect(scheduleAsOf(fired, T1)).toBe(fired);
    expect(scheduleAsOf(fired, T1)).toMatchObject({ nextRunAt: T1 + MINUTE, lastRunAt: T1 });
  });

  it('that skipped its first occurrence ahead of it (the allowance) reads as never run until then', () => {
    const never = schedule({ lastRunAt: null, lastRunOutcome: null });
    const fired = { ...never, ...firedPatch(never, T1, 'skipped_usage_limit') };
    expect(scheduleAsOf(fired, T1 - 1)).toMatchObject({ lastRunAt: null, lastRunOutcome: null, nextRunAt: T1 });
    expect(scheduleAsOf(fired, T1)).toMatchObject({ lastRunAt: T1, lastRunOutcome: 'skipped_usage_limit' });
  });

  it('is taken back by a change before the instant: the run before is the last again, the occurrence the next run again', () => {
    const fired = firedAheadOf(schedule());
    expect(takeBackPatch(fired, T1 - LEAD)).toEqual({
      lastRunAt: T0,
      lastRunOutcome: 'enqueued',
      previousRunAt: null,
      previousRunOutcome: null,
      nextRunAt: T1,
    });
    // Taken back, the schedule reads now as it did before: nothing of the occurrence is left.
    const back = { ...fired, ...takeBackPatch(fired, T1 - LEAD) };
    expect(scheduleAsOf(back, T1 - LEAD)).toMatchObject({ nextRunAt: T1, lastRunAt: T0, lastRunOutcome: 'enqueued' });
    expect(scheduleAsOf(back, T1 + 1)).toMatchObject({ nextRunAt: T1, lastRunAt: T0 });
  });

  it('has nothing to take back at or after the instant, or when nothing was fired ahead', () => {
    expect(takeBackPatch(firedAheadOf(schedule()), T1)).toEqual({});
    expect(takeBackPatch(schedule(), T1 - LEAD)).toEqual({});
  });
});

describe('a schedule revision', () => {
  it('moves forward with every change, even two in one millisecond or a clock behind the last change', () => {
    const s = schedule({ updatedAt: T0 });
    expect(revisedAt(s, T0 + 500)).toBe(T0 + 500);
    expect(revisedAt(s, T0)).toBe(T0 + 1);
    expect(revisedAt(s, T0 - 2_000)).toBe(T0 + 1);
  });
});
