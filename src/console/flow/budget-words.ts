import type { Budget, WaitingFor } from '../../../sdk/src/types.js';

/**
 * A queue's or flow key's limits and live state in words, as the Queues and Flow keys pages and the request page
 * show them. The API's numbers are shown as they come; only their wording is decided here.
 */

const count = new Intl.NumberFormat('en', { maximumFractionDigits: 2 });

/** A count as shown: grouped, and at most two decimals (an admitted rate lowered by a destination can be 7.5). */
export function numberText(n: number): string {
  return count.format(n);
}

/** `10 per 1s, burst 10`, or that there is no rate limit. */
export function rateText(rate: Budget['rate']): string {
  if (rate === null) return 'no rate limit';
  return `${numberText(rate.limit)} per ${rate.period}, burst ${numberText(rate.burst)}`;
}

/** `5 at once`, or that there is no concurrency limit. */
export function concurrencyText(concurrency: number | null): string {
  return concurrency === null ? 'no concurrency limit' : `${numberText(concurrency)} at once`;
}

/** Attempts in flight, against the concurrency limit when there is one: `2 of 5`. */
export function inFlightText(budget: Pick<Budget, 'in_flight' | 'concurrency'>): string {
  const now = numberText(budget.in_flight);
  return budget.concurrency === null ? now : `${now} of ${numberText(budget.concurrency)}`;
}

/** Attempts started in the current period, against the rate: `3 of 10 per 1s`; null without a rate. */
export function startedText(budget: Pick<Budget, 'started_in_period' | 'rate'>): string | null {
  if (budget.rate === null || budget.started_in_period === null) return null;
  return `${numberText(budget.started_in_period)} of ${numberText(budget.rate.limit)} per ${budget.rate.period}`;
}

/** Requests held back, by reason, in the order the API gives them; reasons with none are left out. */
export function waitingText(waiting: Budget['waiting']): string {
  const parts: string[] = [];
  if (waiting.rate > 0) parts.push(`${numberText(waiting.rate)} for the rate`);
  if (waiting.concurrency > 0) parts.push(`${numberText(waiting.concurrency)} for concurrency`);
  if (waiting.paused > 0) parts.push(`${numberText(waiting.paused)} for the pause`);
  return parts.length === 0 ? 'none' : parts.join(', ');
}

/** Every request the budget holds back now, whatever the reason. */
export function waitingTotal(waiting: Budget['waiting']): number {
  return waiting.rate + waiting.concurrency + waiting.paused;
}

/**
 * True while a destination's 429 or 503 has lowered the admitted rate below the limit: the one state an operator
 * cannot guess from the configuration, so it is marked wherever the budget shows.
 */
export function isSlowed(budget: Pick<Budget, 'rate' | 'admitted_rate'>): boolean {
  return budget.rate !== null && budget.admitted_rate !== null && budget.admitted_rate < budget.rate.limit;
}

/** The admitted rate: `4 per 1s, slowed from 10 by a destination`, `10 per 1s (the limit)`, or no rate limit. */
export function admittedText(budget: Pick<Budget, 'rate' | 'admitted_rate'>): string {
  const { rate, admitted_rate: admitted } = budget;
  if (rate === null || admitted === null) return 'no rate limit';
  if (isSlowed(budget)) return `${numberText(admitted)} per ${rate.period}, slowed from ${numberText(rate.limit)} by a destination`;
  return `${numberText(admitted)} per ${rate.period} (the limit)`;
}

/** What a budget is, in words: `queue` or `flow key`. */
export function kindText(kind: WaitingFor['kind']): string {
  return kind === 'flow_key' ? 'flow key' : 'queue';
}

/** Why a budget holds a request back: `rate limit`, `concurrency limit` or `paused`. */
export function holdReasonText(reason: WaitingFor['reason']): string {
  if (reason === 'rate') return 'rate limit';
  if (reason === 'concurrency') return 'concurrency limit';
  return 'paused';
}

/** A request's `waiting_for` as one line: `waiting for flow key k: rate limit`. */
export function waitingForText(waitingFor: WaitingFor): string {
  return `waiting for ${kindText(waitingFor.kind)} ${waitingFor.name}: ${holdReasonText(waitingFor.reason)}`;
}
