import type { RunOutcome } from '../../domain/schedule/schedule.js';
import type { ServiceMetrics } from '../../ports/telemetry.js';

/** What the scheduler did, for logs, metrics and tests. */
export type SchedulerEvent =
  | { readonly type: 'occurrence_fired'; readonly scheduleId: string; readonly at: number; readonly outcome: RunOutcome; readonly firedAt: number }
  | { readonly type: 'occurrence_missed'; readonly scheduleId: string; readonly at: number }
  /** `scheduleId` is set when the failure was firing that schedule's occurrence (it stays due and is tried again). */
  | { readonly type: 'scheduler_error'; readonly error: string; readonly scheduleId?: string };

/** Records what a scheduler event says in the service metrics. */
export function recordSchedulerEvent(metrics: ServiceMetrics, event: SchedulerEvent): void {
  switch (event.type) {
    case 'occurrence_fired':
      metrics.occurrence(event.outcome);
      if (event.outcome === 'enqueued') {
        // Created as of its instant, even when enqueued ahead of it: then it is queued, as any request due at once.
        metrics.accepted('schedule', 'queued', 1);
      } else if (event.outcome === 'skipped_usage_limit') {
        metrics.allowanceRejected('monthly');
      }
      return;
    case 'occurrence_missed':
      metrics.occurrence('missed');
      return;
    case 'scheduler_error':
      if (event.scheduleId !== undefined) metrics.occurrence('failed');
      return;
  }
}
