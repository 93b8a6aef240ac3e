import { latestRunAtOrBefore, nextRunAfter } from './next-run.js';
import type { Timing } from './timing.js';

/**
 * How long after its instant a missed occurrence still fires. When Ferry was down (or paused by an outage) over
 * one or more occurrences, only the most recent of them fires on recovery, and only if it is at most this old;
 * older ones are not replayed, so a long outage never ends in a burst.
 *
 * It also bounds how late any occurrence can be fired a second time, which is what keeps occurrences exactly
 * once: an occurrence's request is deduplicated by an idempotency record kept 24 hours from the first firing,
 * and no second firing of the same instant can come later than this.
 */
export const MISSED_RUN_GRACE_MS = 12 * 3600_000;

export interface FiringPlan {
  /** The occurrence to fire now, or null when the latest one is past the grace period. */
  readonly fireAt: number | null;
  /** The occurrence after it: the schedule's next timer. Null only if the timing never fires again. */
  readonly nextRunAt: number | null;
}

/**
 * What a due schedule does at `now`. An occurrence still ahead (enqueued early, see the scheduler's lead) fires as
 * it is. Otherwise the most recent occurrence at or before `now` (normally the one its timer was set for) fires
 * unless it is older than `graceMs`. Either way the timer moves to the first occurrence after the one fired.
 */
export function planFiring(timing: Timing, dueAt: number, now: number, graceMs = MISSED_RUN_GRACE_MS): FiringPlan {
  if (dueAt > now) return { fireAt: dueAt, nextRunAt: nextRunAfter(timing, dueAt) };
  const latest = Math.max(dueAt, latestRunAtOrBefore(timing, now) ?? dueAt);
  return {
    fireAt: now - latest <= graceMs ? latest : null,
    nextRunAt: nextRunAfter(timing, Math.max(latest, now)),
  };
}
