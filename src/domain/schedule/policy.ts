import type { Timing } from './timing.js';

/** How a schedule's occurrences behave at firing: overlap, a run limit, jitter and pausing after failures. */
export interface SchedulePolicy {
  readonly overlap: 'allow_all' | 'skip' | 'buffer_one';
  readonly maxRuns: number | null;
  readonly jitterSeconds: number;
  readonly pauseAfterFailures: number | null;
}

/** What an occurrence due now does, given whether the previous one's request is still active and one already waits. */
export function overlapDecision(policy: SchedulePolicy, previousActive: boolean, bufferedWaiting: boolean): 'fire' | 'skip' | 'buffer' {
  if (!previousActive || policy.overlap === 'allow_all') return 'fire';
  if (policy.overlap === 'buffer_one' && !bufferedWaiting) return 'buffer';
  return 'skip';
}

export function shouldPauseAfterFailure(policy: SchedulePolicy, consecutiveFailures: number): boolean {
  return policy.pauseAfterFailures !== null && consecutiveFailures >= policy.pauseAfterFailures;
}

export function isPastEnd(_timing: Timing, policy: SchedulePolicy, timingRunsSoFar: number, nextInstant: number | null): boolean {
  return nextInstant === null || (policy.maxRuns !== null && timingRunsSoFar >= policy.maxRuns);
}
