import type { RateLimit } from './budgets.js';

/**
 * A token bucket kept as one number, the "theoretical arrival time" of the generic cell rate algorithm (GCRA):
 * with an emission interval I = period / limit and a tolerance of (burst − 1) × I, an attempt may start at `t` when
 * `t ≥ tat − tolerance`, and starting it moves `tat` to max(tat, t) + I. It is the same bucket as `burst` tokens
 * refilled `limit` per period, but it can also be asked *when* the next token comes and can promise that time to a
 * request (a reservation), which is what lets a held request be handed back due exactly when it may start, in the
 * order it was claimed, instead of coming back over and over to find the bucket still empty.
 */
export interface RateSchedule {
  /** The theoretical arrival time; below `now` means a full bucket. */
  readonly tat: number;
}

export const FRESH_SCHEDULE: RateSchedule = { tat: Number.NEGATIVE_INFINITY };

/** Milliseconds between two starts at `rate` scaled by `factor` (≤ 1 while a destination has slowed it). */
export function emissionIntervalMs(rate: RateLimit, factor = 1): number {
  return rate.periodMs / (rate.limit * factor);
}

function toleranceMs(rate: RateLimit, factor: number): number {
  // A slowed budget has a smaller burst too, but never below one start.
  const burst = Math.max(1, Math.floor(rate.burst * factor));
  return (burst - 1) * emissionIntervalMs(rate, factor);
}

/** The earliest time at or after `now` an attempt may start. */
export function earliestStart(s: RateSchedule, rate: RateLimit, now: number, factor = 1): number {
  return Math.max(now, s.tat - toleranceMs(rate, factor));
}

/**
 * The schedule once a start at `at` is promised (`at` ≥ `earliestStart`): starts promised later than others never
 * move them, so several budgets can each be asked for their earliest time and then all given the latest of them.
 */
export function reserved(s: RateSchedule, rate: RateLimit, at: number, factor = 1): RateSchedule {
  return { tat: Math.max(s.tat, at) + emissionIntervalMs(rate, factor) };
}

/** Starts the bucket can still take at `now` without waiting (0 when it is empty or owes reservations). */
export function tokensAt(s: RateSchedule, rate: RateLimit, now: number, factor = 1): number {
  const interval = emissionIntervalMs(rate, factor);
  const burst = Math.max(1, Math.floor(rate.burst * factor));
  if (s.tat <= now) return burst;
  return Math.max(0, Math.floor((now + toleranceMs(rate, factor) - s.tat) / interval) + 1);
}
