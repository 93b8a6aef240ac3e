import type { AttemptDecision } from '../../domain/delivery/policy.js';
import type { AttemptRecord, RequestPatch, StoredRequest } from '../../domain/request.js';

/**
 * What an attempt's end does to its request. A cancel recorded while the attempt was in flight wins over a retry
 * (no further attempt starts) but not over a success: the destination did get the request. A request the cancel
 * already ended (its claim was not stored yet, so it looked queued) stays cancelled and gains the attempt.
 */
export function settlement(
  r: StoredRequest,
  attemptNumber: number,
  decision: AttemptDecision,
  timing: { readonly startedAt: number; readonly durationMs: number; readonly completedAt: number },
): { attempt: AttemptRecord; patch: RequestPatch } {
  const { completedAt } = timing;
  const alreadyCancelled = r.status === 'cancelled';
  const cancelled = alreadyCancelled || (r.cancelRequestedAt !== null && decision.requestStatus !== 'succeeded');
  // The claim stamped the request when it was taken; its first attempt's own start, a moment later, is the one the
  // API promises (`started_at` equals the first attempt's `started_at`).
  const base = { attemptCount: attemptNumber, updatedAt: completedAt, ...(attemptNumber === 1 ? { startedAt: timing.startedAt } : {}) };
  let patch: RequestPatch;
  if (alreadyCancelled) {
    // Cancelled at once while the attempt was in flight: it stays cancelled, and the attempt joins its history.
    patch = { ...base, startedAt: attemptNumber === 1 ? timing.startedAt : (r.startedAt ?? timing.startedAt) };
  } else if (cancelled) {
    patch = { ...base, status: 'cancelled', cancelledAt: completedAt, dueAt: null };
  } else if (decision.requestStatus === 'queued') {
    patch = { ...base, status: 'queued', dueAt: decision.retry!.nextAttemptAt };
  } else {
    patch = { ...base, status: decision.requestStatus, completedAt, dueAt: null };
  }
  return {
    attempt: {
      requestId: r.id,
      attemptNumber,
      status: decision.attemptStatus,
      responseStatusCode: decision.responseStatusCode,
      errorMessage: decision.errorMessage,
      durationMs: timing.durationMs,
      startedAt: timing.startedAt,
      completedAt,
      retry: cancelled ? null : decision.retry,
    },
    patch,
  };
}
