import { FerryError } from '../errors.js';
import { MAX_BACKFILL_INSTANTS, backfillInstants } from '../schedule/backfill.js';
import type { Timing } from '../schedule/timing.js';
import { parseRfc3339 } from './durations.js';

export interface BackfillInput {
  from?: string;
  to?: string;
}

/**
 * A backfill's range `[from, to)`: both RFC 3339, `from` before `to`, `to` not in the future, and at most
 * `MAX_BACKFILL_INSTANTS` of the timing's instants inside. Answers the range and those instants.
 */
export function validateBackfill(input: BackfillInput, timing: Timing, now: number): { from: number; to: number; instants: number[] } {
  const from = required(input.from, 'from');
  const to = required(input.to, 'to');
  if (to > now) throw new FerryError('INVALID_FIELD', 'to must not be in the future: a backfill creates past occurrences.', 'to');
  if (from >= to) throw new FerryError('INVALID_FIELD', 'from must be before to.', 'from');
  const instants = backfillInstants(timing, from, to);
  if (instants.length > MAX_BACKFILL_INSTANTS) {
    throw new FerryError('INVALID_FIELD', `The range holds more than ${MAX_BACKFILL_INSTANTS} occurrences; backfill it in parts.`, 'to');
  }
  return { from, to, instants };
}

function required(value: string | undefined, field: string): number {
  if (value === undefined || value === null || value === '') throw new FerryError('MISSING_FIELD', `${field} is required.`, field);
  return parseRfc3339(value, 'INVALID_FIELD', field);
}
