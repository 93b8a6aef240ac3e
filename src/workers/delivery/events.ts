import type { AttemptRecord, RequestStatus } from '../../domain/request.js';
import type { DeliveryOutcome, ServiceMetrics } from '../../ports/telemetry.js';

/** Typed lifecycle events of the delivery engine, for logs, metrics and tests alike. */
export type DeliveryEvent =
  | {
      readonly type: 'attempt_started';
      readonly requestId: string;
      readonly attemptNumber: number;
      /** When the attempt started. */
      readonly at: number;
      /**
       * When the attempt fell due, when known: the first attempt's (its scheduled time, else its acceptance). A
       * claim replaces a request's due time with its lease, so a later attempt's is not known here.
       */
      readonly dueAt: number | null;
    }
  | {
      readonly type: 'attempt_finished';
      readonly requestId: string;
      readonly attemptNumber: number;
      readonly requestStatus: RequestStatus;
      /** How the exchange itself ended. */
      readonly attemptStatus: AttemptRecord['status'];
      readonly durationMs: number;
      /** The delay chosen before the next attempt, when a retry was decided (a cancel may still have won). */
      readonly retryDelayMs: number | null;
    }
  | { readonly type: 'claim_lost'; readonly requestId: string }
  | { readonly type: 'engine_error'; readonly error: string };

/** The outcome class of a request status an attempt left behind. */
export function deliveryOutcomeOf(status: RequestStatus): DeliveryOutcome {
  switch (status) {
    case 'succeeded':
    case 'failed':
    case 'cancelled':
      return status;
    default:
      // Still active (`queued`): another attempt is due later.
      return 'retry_scheduled';
  }
}

/** Records what a delivery event says in the service metrics. */
export function recordDeliveryEvent(metrics: ServiceMetrics, event: DeliveryEvent): void {
  switch (event.type) {
    case 'attempt_started':
      metrics.attemptStarted(event.dueAt === null ? null : event.at - event.dueAt);
      return;
    case 'attempt_finished': {
      const outcome = deliveryOutcomeOf(event.requestStatus);
      metrics.attemptFinished(event.attemptStatus, event.durationMs);
      metrics.delivered(outcome, outcome === 'retry_scheduled' ? event.retryDelayMs : null);
      return;
    }
    case 'claim_lost':
      metrics.delivered('claim_lost', null);
      return;
    case 'engine_error':
      // Logged by the composition root; storage failures behind it are counted where storage is called.
      return;
  }
}
