import type { SchedulePolicy } from './policy.js';

/** The policy of a schedule created without one, and of every schedule stored before policies existed. */
export const DEFAULT_SCHEDULE_POLICY: SchedulePolicy = { overlap: 'allow_all', maxRuns: null, jitterSeconds: 0, pauseAfterFailures: null };
