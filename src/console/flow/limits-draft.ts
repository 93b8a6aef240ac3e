import type { Budget, BudgetLimits } from '../../../sdk/src/types.js';

/** The limits form as typed: every field a string as its input holds it, and the adaptive box. */
export interface LimitsDraft {
  readonly limit: string;
  readonly period: string;
  readonly burst: string;
  readonly concurrency: string;
  readonly adaptive: boolean;
}

/** The form's fields, named by the JSON path a 422's `field` gives for them. */
export type LimitsField = 'rate.limit' | 'rate.period' | 'rate.burst' | 'concurrency';

export type BuiltLimits = { ok: true; limits: BudgetLimits } | { ok: false; field: LimitsField; message: string };

/** The form filled with a budget's configuration as read, so that saving it unchanged keeps every limit. */
export function draftOf(budget: Pick<Budget, 'rate' | 'concurrency' | 'adaptive'>): LimitsDraft {
  return {
    limit: budget.rate === null ? '' : String(budget.rate.limit),
    period: budget.rate?.period ?? '',
    burst: budget.rate === null ? '' : String(budget.rate.burst),
    concurrency: budget.concurrency === null ? '' : String(budget.concurrency),
    adaptive: budget.adaptive,
  };
}

/**
 * The form as the body of `PUT`, which replaces the whole configuration: an empty field is a limit left out, and
 * with every rate field empty there is no rate. Only text that is not a number at all is refused here; ranges,
 * whole numbers and the period's syntax are the API's to judge, and its 422 is shown at the field it names.
 */
export function limitsOf(draft: LimitsDraft): BuiltLimits {
  const limits: BudgetLimits = { adaptive: draft.adaptive };
  const [limit, period, burst] = [draft.limit.trim(), draft.period.trim(), draft.burst.trim()];
  if (limit !== '' || period !== '' || burst !== '') {
    const rate: Partial<NonNullable<BudgetLimits['rate']>> = {};
    if (limit !== '') {
      const n = numberOf(limit);
      if (n === null) return notANumber('rate.limit', 'The rate limit');
      rate.limit = n;
    }
    if (period !== '') rate.period = period;
    if (burst !== '') {
      const n = numberOf(burst);
      if (n === null) return notANumber('rate.burst', 'The burst');
      rate.burst = n;
    }
    // Sent even when incomplete: the API names the missing member, in its own words.
    limits.rate = rate as NonNullable<BudgetLimits['rate']>;
  }
  const concurrency = draft.concurrency.trim();
  if (concurrency !== '') {
    const n = numberOf(concurrency);
    if (n === null) return notANumber('concurrency', 'The concurrency');
    limits.concurrency = n;
  }
  return { ok: true, limits };
}

function numberOf(text: string): number | null {
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
}

function notANumber(field: LimitsField, what: string): BuiltLimits {
  return { ok: false, field, message: `${what} must be a number, or empty for no such limit.` };
}
