/**
 * How much of its configured rate and concurrency a budget admits while destinations push back: a factor between
 * `MIN_FACTOR` and 1. A 429 or 503 halves it (multiplicative decrease); every success adds `STEP` back (additive
 * increase). Two bounds keep one bad answer from stalling a budget for long: answers that arrive within
 * `DECREASE_GAP_MS` of a decrease were mostly sent before it, so they do not halve it again; and whatever the
 * successes, the factor climbs back linearly to 1 within `RECOVERY_MS` of the last decrease, so a budget sending
 * once an hour is not held at half rate for a day.
 */
export interface AdaptiveRate {
  /** The factor right after the last decrease. */
  readonly factor: number;
  /** When the last decrease happened; -Infinity for never. */
  readonly slowedAt: number;
  /** Successes counted since the last decrease. */
  readonly successes: number;
}

export const MIN_FACTOR = 1 / 16;
export const STEP = 0.05;
export const DECREASE_GAP_MS = 1_000;
export const RECOVERY_MS = 60_000;

export const FULL_RATE: AdaptiveRate = { factor: 1, slowedAt: Number.NEGATIVE_INFINITY, successes: 0 };

/** The factor in force at `now`. */
export function factorAt(a: AdaptiveRate, now: number): number {
  if (a.factor >= 1) return 1;
  const byTime = ((now - a.slowedAt) / RECOVERY_MS) * (1 - a.factor);
  return Math.min(1, a.factor + a.successes * STEP + Math.max(0, byTime));
}

/** After a destination answered 429 or 503 at `now`. */
export function pushedBack(a: AdaptiveRate, now: number): AdaptiveRate {
  if (now - a.slowedAt < DECREASE_GAP_MS) return a;
  return { factor: Math.max(MIN_FACTOR, factorAt(a, now) / 2), slowedAt: now, successes: 0 };
}

/** After a call through the budget succeeded at `now`. */
export function succeeded(a: AdaptiveRate, now: number): AdaptiveRate {
  if (a.factor >= 1) return a;
  if (factorAt(a, now) >= 1) return FULL_RATE;
  return { ...a, successes: a.successes + 1 };
}
