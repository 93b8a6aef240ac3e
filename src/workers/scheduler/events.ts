import type { RunOutcome } from '../../domain/schedule/schedule.js';

/** What the scheduler did, for logs, metrics and tests. */
export type SchedulerEvent =
  | { readonly type: 'occurrence_fired'; readonly scheduleId: string; readonly at: number; readonly outcome: RunOutcome; readonly firedAt: number }
  | { readonly type: 'occurrence_missed'; readonly scheduleId: string; readonly at: number }
  | { readonly type: 'scheduler_error'; readonly error: string };
