/**
 * Flow control: the budgets an attempt must fit before it starts. Every request counts against its queue's budget
 * and against the budget of each of its flow keys (at most four); an attempt starts only when all of them admit it.
 * A budget may limit the rate of attempts started (a token bucket), the attempts in flight, or both, and may be
 * paused. Budgets belong to a project: the same queue or key name in two projects is two budgets.
 */

/** What a budget is named after. */
export type BudgetKind = 'queue' | 'flow_key';

export const BUDGET_KINDS: readonly BudgetKind[] = ['queue', 'flow_key'];

/** Attempts started per period: a token bucket holding at most `burst` tokens, refilled `limit` per `periodMs`. */
export interface RateLimit {
  readonly limit: number;
  readonly periodMs: number;
  readonly burst: number;
}

/** What `PUT /queues/{name}` and `PUT /flow-keys/{key}` set; a null limit is no limit. */
export interface BudgetLimits {
  readonly rate: RateLimit | null;
  readonly concurrency: number | null;
  /** Whether a destination's 429 or 503 lowers the admitted rate for a while (see `adaptive-rate.ts`). */
  readonly adaptive: boolean;
}

export const NO_LIMITS: BudgetLimits = { rate: null, concurrency: null, adaptive: true };

/** One budget as stored: its limits and whether it is paused. */
export interface BudgetConfig extends BudgetLimits {
  readonly projectId: string;
  readonly kind: BudgetKind;
  readonly name: string;
  readonly paused: boolean;
  /** When its limits or its pause last changed (milliseconds since the Unix epoch); null for a queue only used. */
  readonly updatedAt: number | null;
}

/** Why a budget holds a request back. */
export type HoldReason = 'rate' | 'concurrency' | 'paused';

export const HOLD_REASONS: readonly HoldReason[] = ['rate', 'concurrency', 'paused'];

/** The first budget that refused a request's attempt (the queue, then its keys in the order given). */
export interface WaitingFor {
  readonly kind: BudgetKind;
  readonly name: string;
  readonly reason: HoldReason;
  /** When this budget began holding the request back. */
  readonly since: number;
}

/** A budget as it stands now, besides its configuration. */
export interface BudgetState {
  readonly inFlight: number;
  /** Attempts started in the current period; null without a rate. */
  readonly startedInPeriod: number | null;
  /** Requests this budget holds back, by reason. */
  readonly waiting: Readonly<Record<HoldReason, number>>;
  /** Attempts per period admitted now: the limit, lower while a destination has slowed it; null without a rate. */
  readonly admittedRate: number | null;
}

export const IDLE_STATE: BudgetState = { inFlight: 0, startedInPeriod: null, waiting: { rate: 0, concurrency: 0, paused: 0 }, admittedRate: null };

/**
 * A budget over the whole deployment: the sum of what each delivering process holds of it (each enforces a share of
 * the limits, see `shares.ts`). With no process reporting it, it stands idle.
 */
export function sumStates(states: readonly BudgetState[]): BudgetState {
  if (states.length === 1) return states[0]!;
  let inFlight = 0;
  let startedInPeriod: number | null = null;
  let admittedRate: number | null = null;
  const waiting = { rate: 0, concurrency: 0, paused: 0 };
  for (const s of states) {
    inFlight += s.inFlight;
    if (s.startedInPeriod !== null) startedInPeriod = (startedInPeriod ?? 0) + s.startedInPeriod;
    if (s.admittedRate !== null) admittedRate = Math.round(((admittedRate ?? 0) + s.admittedRate) * 100) / 100;
    for (const r of HOLD_REASONS) waiting[r] += s.waiting[r];
  }
  return states.length === 0 ? IDLE_STATE : { inFlight, startedInPeriod, waiting, admittedRate };
}

/**
 * A live state as the budget's stored limits say it must read: without a rate there is no rate to report; with one,
 * a budget no delivering process holds (idle everywhere, or not published yet) admits its full limit.
 */
export function stateUnder(limits: BudgetLimits, s: BudgetState): BudgetState {
  if (limits.rate === null) return s.admittedRate === null && s.startedInPeriod === null ? s : { ...s, admittedRate: null, startedInPeriod: null };
  return s.admittedRate !== null ? s : { ...s, admittedRate: limits.rate.limit, startedInPeriod: s.startedInPeriod ?? 0 };
}

/** A request names at most this many flow keys. */
export const MAX_FLOW_KEYS = 4;
/** A flow key: 1–64 letters, digits, `.`, `-`, `_`, `:`. */
export const FLOW_KEY = /^[A-Za-z0-9._:-]{1,64}$/;
/** Limits a budget may set. */
export const BUDGET_RANGES = {
  rateLimit: { min: 1, max: 1_000_000 },
  periodMs: { min: 1_000, max: 3_600_000 },
  concurrency: { min: 1, max: 10_000 },
} as const;
