import type { HoldReason } from '../../domain/flow/budgets.js';
import type { AttemptRecord, RequestStatus } from '../../domain/request.js';
import type { DeliveryOutcome, Log, ServiceMetrics } from '../../ports/telemetry.js';

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
      readonly queue: string;
    }
  | {
      readonly type: 'attempt_finished';
      readonly requestId: string;
      readonly projectId: string;
      readonly attemptNumber: number;
      readonly requestStatus: RequestStatus;
      /** How the exchange itself ended. */
      readonly attemptStatus: AttemptRecord['status'];
      /** The destination's response status; null when no response came (a timeout, a connection error). */
      readonly responseStatusCode: number | null;
      readonly durationMs: number;
      /** The delay chosen before the next attempt, when a retry was decided (a cancel may still have won). */
      readonly retryDelayMs: number | null;
    }
  | {
      /** A budget held the request back: handed back, due when the budget will admit it. */
      readonly type: 'attempt_held';
      readonly requestId: string;
      readonly projectId: string;
      readonly queue: string;
      readonly reason: HoldReason;
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
      metrics.flowStarted(event.queue);
      return;
    case 'attempt_finished': {
      const outcome = deliveryOutcomeOf(event.requestStatus);
      metrics.attemptFinished(event.attemptStatus, event.durationMs);
      metrics.delivered(outcome, outcome === 'retry_scheduled' ? event.retryDelayMs : null);
      return;
    }
    case 'attempt_held':
      metrics.flowHeld(event.queue, event.reason);
      return;
    case 'claim_lost':
      metrics.delivered('claim_lost', null);
      return;
    case 'engine_error':
      // Logged by the composition root; storage failures behind it are counted where storage is called.
      return;
  }
}

/**
 * What the engine does, as `debug` lines (`trace` for an attempt's start): the request, the attempt, what came of
 * it and how long it took. Never the destination's URL, headers or body: the request ID leads to them for whoever
 * holds the project's key. Errors are `error` lines of the composition root.
 */
export function logDeliveryEvent(log: Log, event: DeliveryEvent): void {
  switch (event.type) {
    case 'attempt_started':
      log('trace', 'delivery attempt started', {
        request_id: event.requestId,
        attempt: event.attemptNumber,
        ...(event.dueAt === null ? {} : { lateness_ms: Math.max(0, event.at - event.dueAt) }),
      });
      return;
    case 'attempt_finished':
      log('debug', 'delivery attempt', {
        request_id: event.requestId,
        attempt: event.attemptNumber,
        outcome: deliveryOutcomeOf(event.requestStatus),
        result: event.attemptStatus,
        status_code: event.responseStatusCode,
        duration_ms: event.durationMs,
        ...(event.retryDelayMs === null ? {} : { retry_in_ms: event.retryDelayMs }),
      });
      return;
    case 'attempt_held':
      log('trace', 'delivery held by flow control', { request_id: event.requestId, reason: event.reason });
      return;
    case 'claim_lost':
      log('debug', 'delivery claim lost', { request_id: event.requestId });
      return;
    case 'engine_error':
      return;
  }
}
