import { FerryError } from '../errors.js';
import { shortestGapMs } from '../schedule/jitter.js';
import {
  DEFAULT_SCHEDULE_POLICY,
  MAX_JITTER_SECONDS,
  MAX_MAX_RUNS,
  MAX_PAUSE_AFTER_FAILURES,
  MIN_PAUSE_AFTER_FAILURES,
  OVERLAP_POLICIES,
  type OverlapPolicy,
  type SchedulePolicy,
} from '../schedule/policy.js';
import type { Timing } from '../schedule/timing.js';

/** A schedule's policy as a caller sends it; any member may be absent, null, or of the wrong type at run time. */
export interface SchedulePolicyInput {
  overlap?: string;
  max_runs?: number;
  jitter_seconds?: number;
  pause_after_failures?: number;
}

// JSON null and an absent member mean the same, as in a timing.
function given(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/**
 * Checks a schedule's policy against its (validated) timing. Absent members take the defaults, which are what every
 * schedule did before it had a policy.
 *
 * @param input the policy as sent; undefined or null for the defaults.
 * @param timing the schedule's validated timing: jitter may not exceed the shortest gap between its occurrences.
 * @param now ms since epoch: the gap is measured over the 366 days from now.
 * @param field the JSON path of the policy, the prefix of every error's field (`policy.jitter_seconds`).
 * @throws FerryError `INVALID_FIELD` naming the member at fault.
 */
export function validateSchedulePolicy(input: SchedulePolicyInput | undefined, timing: Timing, now: number, field = 'policy'): SchedulePolicy {
  if (!given(input)) return DEFAULT_SCHEDULE_POLICY;
  if (typeof input !== 'object' || Array.isArray(input)) {
    throw new FerryError('INVALID_FIELD', `${field} must be an object with overlap, max_runs, jitter_seconds or pause_after_failures.`, field);
  }
  const p = input as SchedulePolicyInput;
  return {
    overlap: overlapOf(p.overlap, `${field}.overlap`),
    maxRuns: given(p.max_runs) ? wholeNumber(p.max_runs, 1, MAX_MAX_RUNS, `${field}.max_runs`) : null,
    jitterSeconds: given(p.jitter_seconds) ? jitterOf(p.jitter_seconds, timing, now, `${field}.jitter_seconds`) : 0,
    pauseAfterFailures: given(p.pause_after_failures)
      ? wholeNumber(p.pause_after_failures, MIN_PAUSE_AFTER_FAILURES, MAX_PAUSE_AFTER_FAILURES, `${field}.pause_after_failures`)
      : null,
  };
}

function overlapOf(value: unknown, path: string): OverlapPolicy {
  if (!given(value)) return DEFAULT_SCHEDULE_POLICY.overlap;
  if (typeof value !== 'string' || !(OVERLAP_POLICIES as readonly string[]).includes(value)) {
    throw new FerryError('INVALID_FIELD', `${path} must be ${OVERLAP_POLICIES.slice(0, -1).join(', ')} or ${OVERLAP_POLICIES.at(-1)}.`, path);
  }
  return value as OverlapPolicy;
}

function wholeNumber(value: unknown, min: number, max: number, path: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new FerryError('INVALID_FIELD', `${path} must be a whole number from ${min} to ${max}.`, path);
  }
  return value;
}

/** Jitter never reaches the next occurrence: at most the shortest gap between two, and at most an hour. */
function jitterOf(value: unknown, timing: Timing, now: number, path: string): number {
  const seconds = wholeNumber(value, 0, MAX_JITTER_SECONDS, path);
  if (seconds === 0) return 0;
  const gap = shortestGapMs(timing, now);
  if (gap !== null && seconds * 1000 > gap) {
    throw new FerryError(
      'INVALID_FIELD',
      `${path} must be at most ${Math.floor(gap / 1000)}, the shortest gap in seconds between two occurrences of the timing in the next 366 days.`,
      path,
    );
  }
  return seconds;
}
