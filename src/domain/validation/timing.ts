import { FerryError } from '../errors.js';
import { parseCron } from '../schedule/cron.js';
import type { Timing } from '../schedule/timing.js';
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
}

interface TimingOptions {
  /** The current instant, ms since epoch. */
  now: number;
  /** True when creating a schedule: starts_at must then be in the future. */
  creating: boolean;
}

const CRON_ONLY = [['expression', 'expression'], ['timezone', 'timezone']] as const;
const INTERVAL_ONLY = [['everySeconds', 'every_seconds'], ['startsAt', 'starts_at']] as const;

// JSON null and an absent member mean the same: the read shape of a timing carries nulls for the other type's
// members, so a timing read back and sent again stays valid.
function given(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/**
 * Checks a schedule's timing and resolves it: a cron expression with its IANA zone, or an interval with its first
 * occurrence.
 *
 * @param input the timing as sent; undefined when the caller sent none.
 * @param opts `now` resolves an interval without starts_at (first run one interval from now); `creating` requires
 *   starts_at to be in the future.
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
  if (type === 'cron') return validateCron(input as TimingInput, field);
  if (type === 'interval') return validateInterval(input as TimingInput, opts, field);
  throw new FerryError('INVALID_TIMING', `${field}.type must be ${TIMING_TYPES.join(' or ')}.`, `${field}.type`);
}

function rejectMembers(input: TimingInput, members: typeof CRON_ONLY | typeof INTERVAL_ONLY, type: string, field: string): void {
  for (const [member, jsonName] of members) {
    if (given(input[member])) {
      const takes = type === 'cron' ? 'expression and timezone' : 'every_seconds and, optionally, starts_at';
      throw new FerryError('INVALID_TIMING', `${field}.${jsonName} does not apply to ${type} timing, which takes ${takes}.`, `${field}.${jsonName}`);
    }
  }
}

function requireString(value: unknown, path: string): string {
  if (!given(value)) throw new FerryError('MISSING_FIELD', `${path} is required.`, path);
  if (typeof value !== 'string') throw new FerryError('INVALID_TIMING', `${path} must be a string.`, path);
  return value;
}

function validateCron(input: TimingInput, field: string): Timing {
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
  return { type: 'cron', expression, timezone };
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
  let startsAt: number | null = null;
  if (given(input.startsAt)) {
    const startsPath = `${field}.starts_at`;
    startsAt = parseRfc3339(input.startsAt as string, 'INVALID_TIMING', startsPath);
    if (opts.creating && startsAt <= opts.now) {
      throw new FerryError('INVALID_TIMING', `${startsPath} must be in the future.`, startsPath);
    }
  }
  return { type: 'interval', everySeconds, startsAt, firstRunAt: startsAt ?? opts.now + everySeconds * 1000 };
}
