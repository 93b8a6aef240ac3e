import type { Timing } from './timing.js';

/*
 * What a schedule does beyond its timing: whether an occurrence waits for the previous one, how many occurrences it
 * runs, how far each is spread after its instant, and when repeated failures pause it. These are the pure rules;
 * the scheduler applies them when it fires an occurrence.
 */

export const OVERLAP_POLICIES = ['allow_all', 'skip', 'buffer_one'] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

/** The longest jitter any schedule takes; a timing whose occurrences are closer takes at most their gap. */
export const MAX_JITTER_SECONDS = 3600;
export const MIN_PAUSE_AFTER_FAILURES = 1;
export const MAX_PAUSE_AFTER_FAILURES = 100;
/** The largest `max_runs`: an int32, as the API carries it. */
export const MAX_MAX_RUNS = 2_147_483_647;

export interface SchedulePolicy {
  /**
   * What an occurrence does while the previous occurrence's request is still active (not yet succeeded, failed or
   * cancelled): `allow_all` runs it anyway, `skip` drops it, `buffer_one` keeps at most one waiting until the
   * previous ends.
   */
  readonly overlap: OverlapPolicy;
  /** How many occurrences of the timing run before the schedule ends (triggers and backfills not counted); null: no limit. */
  readonly maxRuns: number | null;
  /** Each occurrence fires up to this many seconds after its instant (see `jitter.ts`); 0 for none. */
  readonly jitterSeconds: number;
  /** Consecutive failed occurrences after which the schedule pauses itself; null: never. */
  readonly pauseAfterFailures: number | null;
}

/** What every schedule did before it had a policy. */
export const DEFAULT_SCHEDULE_POLICY: SchedulePolicy = Object.freeze({ overlap: 'allow_all', maxRuns: null, jitterSeconds: 0, pauseAfterFailures: null });

/**
 * What an occurrence does now.
 *
 * @param previousActive whether the previous occurrence's request is still active.
 * @param bufferedWaiting whether an occurrence already waits for it (`buffer_one`).
 * @returns `fire` to create its request now, `buffer` to keep it waiting until the previous one ends, `skip` to drop
 *   it (its outcome is `skipped_overlap`).
 */
export function overlapDecision(policy: SchedulePolicy, previousActive: boolean, bufferedWaiting: boolean): 'fire' | 'skip' | 'buffer' {
  if (!previousActive || policy.overlap === 'allow_all') return 'fire';
  if (policy.overlap === 'skip') return 'skip';
  return bufferedWaiting ? 'skip' : 'buffer';
}

/** Whether `consecutiveFailures` failed occurrences in a row pause the schedule. */
export function shouldPauseAfterFailure(policy: SchedulePolicy, consecutiveFailures: number): boolean {
  return policy.pauseAfterFailures !== null && consecutiveFailures >= policy.pauseAfterFailures;
}

/**
 * Whether a schedule has ended: it ran `max_runs` occurrences of its timing, or its timing has no occurrence left
 * (`nextInstant` null, or at or after the exclusive `ends_at`).
 *
 * @param timingRunsSoFar occurrences of the timing run so far; triggers and backfills do not count.
 * @param nextInstant the next occurrence of the timing (see `nextRunAfter`), or null when there is none.
 */
export function isPastEnd(timing: Timing, policy: SchedulePolicy, timingRunsSoFar: number, nextInstant: number | null): boolean {
  if (policy.maxRuns !== null && timingRunsSoFar >= policy.maxRuns) return true;
  return nextInstant === null || (timing.endsAt !== null && nextInstant >= timing.endsAt);
}
