import { FerryError } from '../errors.js';
import { parseCron } from '../schedule/cron.js';
import { nextRunAfter } from '../schedule/next-run.js';
import { DEFAULT_DST, DST_GAP_VALUES, DST_OVERLAP_VALUES, type DstPolicy, type Timing } from '../schedule/timing.js';
import { isTimeZone } from '../schedule/zone-offsets.js';
import { parseRfc3339 } from './durations.js';
import { INTERVAL_STEP_SECONDS, MAX_CRON_EXPRESSION_BYTES, MAX_INTERVAL_SECONDS, MIN_INTERVAL_SECONDS, utf8Length } from './limits.js';
import { TIMING_TYPES } from './patterns.js';

/** Timing as a caller sends it; any member may be absent, null, or of the wrong type at run time. */
export interface TimingInput {
  type?: string;
  expression?: string;
  timezone?: string;
  everySeconds?: number;
  startsAt?: string;
  endsAt?: string;
  dst?: DstPolicyInput;
}

/** A DST policy as a caller sends it; either member may be absent (its default applies). */
export interface DstPolicyInput {
  gap?: string;
  overlap?: string;
}

interface TimingOptions {
  /** The current instant, ms since epoch. */
  now: number;
  /**
   * True when creating or changing a schedule: starts_at and ends_at must then be in the future, and the timing must
   * fire at least once before ends_at.
   */
  creating: boolean;
}

const CRON_ONLY = [['expression', 'expression'], ['timezone', 'timezone'], ['dst', 'dst']] as const;
const INTERVAL_ONLY = [['everySeconds', 'every_seconds']] as const;

// JSON null and an absent member mean the same: the read shape of a timing carries nulls for the other type's
// members, so a timing read back and sent again stays valid.
function given(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/**
 * Checks a schedule's timing and resolves it: a cron expression with its IANA zone and DST policy, or an interval
 * with its first occurrence; either with its bounds, `starts_at` (inclusive) and `ends_at` (exclusive).
 *
 * @param input the timing as sent; undefined when the caller sent none.
 * @param opts `now` resolves an interval without starts_at (first run one interval from now); `creating` requires
 *   starts_at and ends_at to be in the future and the timing to fire at least once before ends_at.
 * @param field the JSON path of the timing, used as the prefix of every error's field (`timing.expression`).
 * @returns the validated timing.
 * @throws FerryError `MISSING_FIELD` for an absent timing, type, expression, timezone or every_seconds, and
 *   `INVALID_TIMING` for anything else wrong, with the field at fault.
 */
export function validateTiming(input: TimingInput | undefined, opts: TimingOptions, field = 'timing'): Timing {
  if (!given(input)) throw new FerryError('MISSING_FIELD', `${field} is required.`, field);
  if (typeof input !== 'object' || Array.isArray(input)) {
    throw new FerryError('INVALID_TIMING', `${field} must be an object with type cron or interval.`, field);
  }
  const { type } = input as TimingInput;
  if (!given(type)) throw new FerryError('MISSING_FIELD', `${field}.type is required: cron or interval.`, `${field}.type`);
  let timing: Timing;
  if (type === 'cron') timing = validateCron(input as TimingInput, opts, field);
  else if (type === 'interval') timing = validateInterval(input as TimingInput, opts, field);
  else throw new FerryError('INVALID_TIMING', `${field}.type must be ${TIMING_TYPES.join(' or ')}.`, `${field}.type`);
  // A schedule that could never fire would be created already ended; refusing it says why.
  if (opts.creating && timing.endsAt !== null && nextRunAfter(timing, opts.now) === null) {
    throw new FerryError('INVALID_TIMING', `${field}.ends_at leaves no occurrence of the timing: it must come after the first one.`, `${field}.ends_at`);
  }
  return timing;
}

function rejectMembers(input: TimingInput, members: typeof CRON_ONLY | typeof INTERVAL_ONLY, type: string, field: string): void {
  for (const [member, jsonName] of members) {
    if (given(input[member])) {
      const takes = type === 'cron' ? 'expression, timezone and, optionally, dst, starts_at and ends_at' : 'every_seconds and, optionally, starts_at and ends_at';
      throw new FerryError('INVALID_TIMING', `${field}.${jsonName} does not apply to ${type} timing, which takes ${takes}.`, `${field}.${jsonName}`);
    }
  }
}

function requireString(value: unknown, path: string): string {
  if (!given(value)) throw new FerryError('MISSING_FIELD', `${path} is required.`, path);
  if (typeof value !== 'string') throw new FerryError('INVALID_TIMING', `${path} must be a string.`, path);
  return value;
}

function validateCron(input: TimingInput, opts: TimingOptions, field: string): Timing {
  rejectMembers(input, INTERVAL_ONLY, 'cron', field);
  const expression = requireString(input.expression, `${field}.expression`);
  if (utf8Length(expression) > MAX_CRON_EXPRESSION_BYTES) {
    throw new FerryError('INVALID_TIMING', `${field}.expression must be at most ${MAX_CRON_EXPRESSION_BYTES} bytes.`, `${field}.expression`);
  }
  parseCron(expression, `${field}.expression`);
  const timezone = requireString(input.timezone, `${field}.timezone`);
  if (!isTimeZone(timezone)) {
    throw new FerryError(
      'INVALID_TIMING',
      `${field}.timezone must be an IANA time zone name such as Europe/Berlin, America/New_York or UTC.`,
      `${field}.timezone`,
    );
  }
  const dst = validateDst(input.dst, `${field}.dst`);
  const { startsAt, endsAt } = validateBounds(input, opts, field);
  return { type: 'cron', expression, timezone, dst, startsAt, endsAt };
}

function validateDst(input: unknown, path: string): DstPolicy {
  if (!given(input)) return DEFAULT_DST;
  if (typeof input !== 'object' || Array.isArray(input)) {
    throw new FerryError('INVALID_TIMING', `${path} must be an object with gap and overlap, such as {"gap": "shift", "overlap": "first"}.`, path);
  }
  const { gap, overlap } = input as DstPolicyInput;
  return {
    gap: given(gap) ? oneOf(gap, DST_GAP_VALUES, `${path}.gap`) : DEFAULT_DST.gap,
    overlap: given(overlap) ? oneOf(overlap, DST_OVERLAP_VALUES, `${path}.overlap`) : DEFAULT_DST.overlap,
  };
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], path: string): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new FerryError('INVALID_TIMING', `${path} must be ${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}.`, path);
  }
  return value as T;
}

/** `starts_at` (inclusive) and `ends_at` (exclusive): in the future when creating, the end after the start. */
function validateBounds(input: TimingInput, opts: TimingOptions, field: string): { startsAt: number | null; endsAt: number | null } {
  const startsAt = optionalInstant(input.startsAt, opts, `${field}.starts_at`);
  const endsAt = optionalInstant(input.endsAt, opts, `${field}.ends_at`);
  if (startsAt !== null && endsAt !== null && endsAt <= startsAt) {
    throw new FerryError('INVALID_TIMING', `${field}.ends_at must be after ${field}.starts_at.`, `${field}.ends_at`);
  }
  return { startsAt, endsAt };
}

function optionalInstant(value: unknown, opts: TimingOptions, path: string): number | null {
  if (!given(value)) return null;
  const instant = parseRfc3339(value as string, 'INVALID_TIMING', path);
  if (opts.creating && instant <= opts.now) throw new FerryError('INVALID_TIMING', `${path} must be in the future.`, path);
  return instant;
}

function validateInterval(input: TimingInput, opts: TimingOptions, field: string): Timing {
  rejectMembers(input, CRON_ONLY, 'interval', field);
  const path = `${field}.every_seconds`;
  const everySeconds: unknown = input.everySeconds;
  if (!given(everySeconds)) throw new FerryError('MISSING_FIELD', `${path} is required.`, path);
  if (typeof everySeconds !== 'number' || !Number.isInteger(everySeconds) || everySeconds % INTERVAL_STEP_SECONDS !== 0) {
    throw new FerryError('INVALID_TIMING', `${path} must be a whole number of minutes in seconds, such as 60, 300 or 3600.`, path);
  }
  if (everySeconds < MIN_INTERVAL_SECONDS || everySeconds > MAX_INTERVAL_SECONDS) {
    throw new FerryError(
      'INVALID_TIMING',
      `${path} must be from ${MIN_INTERVAL_SECONDS} (one minute) to ${MAX_INTERVAL_SECONDS} (30 days).`,
      path,
    );
  }
  const { startsAt, endsAt } = validateBounds(input, opts, field);
  return { type: 'interval', everySeconds, startsAt, firstRunAt: startsAt ?? opts.now + everySeconds * 1000, endsAt };
}
