import { FerryError } from '../errors.js';
import type { SchedulePolicy } from '../schedule/policy.js';
import { DEFAULT_SCHEDULE_POLICY } from '../schedule/default-policy.js';
import type { Timing } from '../schedule/timing.js';

export interface SchedulePolicyInput {
  overlap?: string;
  max_runs?: number;
  jitter_seconds?: number;
  pause_after_failures?: number;
}

const OVERLAPS = ['allow_all', 'skip', 'buffer_one'] as const;

function intIn(v: unknown, min: number, max: number): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
}

export function validateSchedulePolicy(input: SchedulePolicyInput | undefined, _timing: Timing, _now: number, field = 'policy'): SchedulePolicy {
  if (input === undefined || input === null) return DEFAULT_SCHEDULE_POLICY;
  if (typeof input !== 'object' || Array.isArray(input)) throw new FerryError('INVALID_FIELD', `${field} must be an object.`, field);
  const overlap = input.overlap ?? 'allow_all';
  if (!(OVERLAPS as readonly string[]).includes(overlap)) {
    throw new FerryError('INVALID_FIELD', `${field}.overlap must be ${OVERLAPS.join(', ')}.`, `${field}.overlap`);
  }
  const maxRuns = input.max_runs ?? null;
  if (maxRuns !== null && !intIn(maxRuns, 1, 2 ** 31 - 1)) throw new FerryError('INVALID_FIELD', `${field}.max_runs must be a whole number from 1.`, `${field}.max_runs`);
  const jitterSeconds = input.jitter_seconds ?? 0;
  if (!intIn(jitterSeconds, 0, 3600)) throw new FerryError('INVALID_FIELD', `${field}.jitter_seconds must be 0 to 3600.`, `${field}.jitter_seconds`);
  const pause = input.pause_after_failures ?? null;
  if (pause !== null && !intIn(pause, 1, 100)) {
    throw new FerryError('INVALID_FIELD', `${field}.pause_after_failures must be 1 to 100.`, `${field}.pause_after_failures`);
  }
  return { overlap: overlap as SchedulePolicy['overlap'], maxRuns, jitterSeconds, pauseAfterFailures: pause };
}
