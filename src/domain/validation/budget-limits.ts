import { FerryError } from '../errors.js';
import { BUDGET_RANGES, type BudgetKind, type BudgetLimits, type RateLimit } from '../flow/budgets.js';
import { formatDuration } from './durations.js';
import { validateFlowKey } from './flow-keys.js';
import { DELAY_PATTERN } from './patterns.js';
import { validateQueue } from './request-input.js';

/** The configuration `PUT /queues/{name}` and `PUT /flow-keys/{key}` take; absent and null mean no such limit. */
export interface BudgetLimitsInput {
  rate?: { limit?: number; period?: string; burst?: number } | null;
  concurrency?: number | null;
  adaptive?: boolean | null;
}

/** A burst is bounded like the limit: more tokens than attempts a period can ever start would mean nothing. */
export const MAX_BURST = BUDGET_RANGES.rateLimit.max;

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

function absent(v: unknown): v is undefined | null {
  return v === undefined || v === null;
}

function wholeIn(n: unknown, min: number, max: number): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n >= min && n <= max;
}

/** A budget's name as a path gives it: a queue label, or a flow key. */
export function validateBudgetName(kind: BudgetKind, name: string | undefined): string {
  return kind === 'queue' ? validateQueue(name ?? '', 'name') : validateFlowKey(name, 'key');
}

/** A rate's period in the delay syntax (`1s`, `90s`, `1h`), 1 s through 1 h; returns milliseconds. */
export function parsePeriod(period: unknown, field = 'rate.period'): number {
  const m = typeof period === 'string' ? DELAY_PATTERN.exec(period) : null;
  const { min, max } = BUDGET_RANGES.periodMs;
  const range = `from ${formatDuration(min)} to ${formatDuration(max)}`;
  if (m === null) throw new FerryError('INVALID_BUDGET', `The period must be an integer followed by s, m or h, ${range}, such as 1s or 1m.`, field);
  const ms = Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
  if (ms < min || ms > max) throw new FerryError('INVALID_BUDGET', `The period must be ${range}.`, field);
  return ms;
}

function validateRate(input: NonNullable<BudgetLimitsInput['rate']>): RateLimit {
  if (typeof input !== 'object' || Array.isArray(input)) throw new FerryError('INVALID_BUDGET', 'rate must be an object or null.', 'rate');
  const { min, max } = BUDGET_RANGES.rateLimit;
  if (absent(input.limit)) throw new FerryError('MISSING_FIELD', 'rate.limit is required: attempts started per period.', 'rate.limit');
  if (!wholeIn(input.limit, min, max)) {
    throw new FerryError('INVALID_BUDGET', `rate.limit must be a whole number from ${min} to ${max}.`, 'rate.limit');
  }
  if (absent(input.period)) throw new FerryError('MISSING_FIELD', 'rate.period is required, such as 1s or 1m.', 'rate.period');
  const periodMs = parsePeriod(input.period);
  const burst = absent(input.burst) ? input.limit : input.burst;
  if (!wholeIn(burst, 1, MAX_BURST)) throw new FerryError('INVALID_BUDGET', `rate.burst must be a whole number from 1 to ${MAX_BURST}.`, 'rate.burst');
  return { limit: input.limit, periodMs, burst };
}

/** The whole new configuration of a budget: what is absent is no limit, and `adaptive` is on unless turned off. */
export function validateBudgetLimits(input: BudgetLimitsInput): BudgetLimits {
  const rate = absent(input.rate) ? null : validateRate(input.rate);
  const { min, max } = BUDGET_RANGES.concurrency;
  let concurrency: number | null = null;
  if (!absent(input.concurrency)) {
    if (!wholeIn(input.concurrency, min, max)) {
      throw new FerryError('INVALID_BUDGET', `concurrency must be a whole number from ${min} to ${max.toLocaleString('en-US')}.`, 'concurrency');
    }
    concurrency = input.concurrency;
  }
  if (!absent(input.adaptive) && typeof input.adaptive !== 'boolean') {
    throw new FerryError('INVALID_FIELD', 'adaptive must be true or false.', 'adaptive');
  }
  return { rate, concurrency, adaptive: input.adaptive ?? true };
}
