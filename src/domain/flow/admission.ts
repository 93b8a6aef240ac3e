import type { Budget } from './budget.js';
import type { BudgetKind, WaitingFor } from './budgets.js';

/** One of the budgets a request counts against, in the order they are asked: its queue, then its keys. */
export interface NamedBudget {
  readonly kind: BudgetKind;
  readonly name: string;
  readonly budget: Budget;
}

/** May this attempt start now, or until when must the request wait, and for which budget? */
export type Admission =
  | { readonly start: true }
  | { readonly start: false; readonly waitingFor: WaitingFor; readonly until: number };

/** A promised start this close to now counts as now: a hand-back costs more than the wait. */
const START_SLACK_MS = 5;
/**
 * A request held by a pause looks again after 30 s, then less often the longer the pause lasts, up to a minute apart:
 * a paused budget costs a store write per held request every 30–60 s. A resume does not wait for that: the process
 * that held them makes them due at once (`wakeHeld`); the recheck only serves requests no process remembers holding
 * (held before a restart or a shard move, or past the budget's memory). Measured: rechecking after 1 s at first,
 * 30,000 requests under paused keys took a quarter of the delivery rate of an unlimited queue beside them.
 */
const PAUSED_RECHECK_MIN_MS = 30_000;
const PAUSED_RECHECK_MAX_MS = 60_000;
/** A request held for concurrency comes back within these bounds, whatever the mean duration of its calls. */
const CONCURRENCY_WAIT_MIN_MS = 50;
const CONCURRENCY_WAIT_MAX_MS = 30_000;

/**
 * Asks every budget of a request whether its attempt may start at `now`. The first budget that refuses (in the
 * order given) is the one the request is said to wait for. A pause is asked first, then concurrency (so no rate
 * is spent on an attempt that could not start anyway), then the rate: the attempt starts when the latest of the
 * budgets' earliest starts has come; otherwise the budget with that latest start promises it to the request,
 * which waits until then. `previous` is what the request last waited for, so a wait that goes on keeps its `since`.
 * Starting is the caller's, through `started` on each budget, once the attempt really starts.
 */
export function admit(budgets: readonly NamedBudget[], requestId: string, now: number, previous: WaitingFor | null): Admission {
  for (const b of budgets) {
    if (b.budget.paused) {
      const since = sinceOf(previous, b, 'paused', now);
      const recheck = clamp((now - since) / 4, PAUSED_RECHECK_MIN_MS, PAUSED_RECHECK_MAX_MS);
      return hold(b, 'paused', since, now + recheck, requestId);
    }
  }
  for (const b of budgets) {
    if (b.budget.concurrencyFull(now)) {
      const wait = clamp(b.budget.concurrencyWaitMs(now), CONCURRENCY_WAIT_MIN_MS, CONCURRENCY_WAIT_MAX_MS);
      return hold(b, 'concurrency', sinceOf(previous, b, 'concurrency', now), now + wait, requestId);
    }
  }
  let at = now;
  let first: NamedBudget | undefined;
  let binding: NamedBudget | undefined;
  for (const b of budgets) {
    const t = b.budget.startAt(requestId, now);
    if (t > now + START_SLACK_MS && first === undefined) first = b;
    if (t > at) {
      at = t;
      binding = b;
    }
  }
  if (first === undefined) return { start: true };
  // Only the budget that binds promises the start: a promise far ahead in a looser budget (a queue shared by many
  // keys) would hold up everything else in it until then. The looser ones are asked again when the request is back.
  binding!.budget.promise(requestId, at, now);
  return hold(first, 'rate', sinceOf(previous, first, 'rate', now), at, requestId);
}

function hold(b: NamedBudget, reason: WaitingFor['reason'], since: number, until: number, requestId: string): Admission {
  b.budget.hold(requestId, reason, until);
  return { start: false, waitingFor: { kind: b.kind, name: b.name, reason, since }, until: Math.ceil(until) };
}

function sinceOf(previous: WaitingFor | null, b: NamedBudget, reason: WaitingFor['reason'], now: number): number {
  return previous !== null && previous.kind === b.kind && previous.name === b.name && previous.reason === reason ? previous.since : now;
}

function clamp(n: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, n));
}
