import type { AttemptDecision } from '../delivery/policy.js';
import type { AttemptRecord, RequestPatch, StoredRequest } from '../request.js';
import { callbackFor } from './callbacks.js';
import { isLeased } from './statuses.js';
import type { Transition } from './transitions.js';

/** When an attempt ran. */
export interface AttemptTiming {
  readonly startedAt: number;
  readonly durationMs: number;
  readonly completedAt: number;
}

/** An attempt settled: the record of the attempt, what it does to its request, and the callback its ending makes. */
export interface Settlement {
  readonly attempt: AttemptRecord;
  readonly change: Transition;
  /**
   * The callback reporting the ending (`callbacks.ts`), written in the same write as the change; null when the
   * attempt does not end the request, ends it `cancelled`, or the request names no URL for that ending.
   */
  readonly callback: StoredRequest | null;
}

/**
 * Attempt settled by a decision (`decideAttempt`): what attempt `attemptNumber` of `r` does to it. A cancel
 * recorded while the attempt was in flight wins over a retry (no further attempt starts) but not over a success:
 * the destination did get the request. A request the cancel already ended (its claim was not stored yet, so it
 * looked queued) stays cancelled and gains the attempt.
 */
export function settleAttempt(r: StoredRequest, attemptNumber: number, decision: AttemptDecision, timing: AttemptTiming, shardCount = 1): Settlement {
  const { completedAt } = timing;
  const alreadyCancelled = r.status === 'cancelled';
  const cancelled = alreadyCancelled || (r.cancelRequestedAt !== null && decision.requestStatus !== 'succeeded');
  // The claim stamped the request when it was taken; its first attempt's own start, a moment later, is the one the
  // API promises (`started_at` equals the first attempt's `started_at`).
  const base = {
    attemptCount: attemptNumber,
    updatedAt: completedAt,
    // What the last attempt's destination answered, in the same write as the attempt: the list filters on it.
    lastStatusCode: decision.responseStatusCode,
    ...(attemptNumber === 1 ? { startedAt: timing.startedAt } : {}),
    // Once an attempt ran, no budget holds the request back any more.
    ...(r.waitingFor !== null ? { waitingFor: null } : {}),
  };
  let set: RequestPatch;
  if (alreadyCancelled) {
    // Cancelled at once while the attempt was in flight: it stays cancelled, and the attempt joins its history.
    set = { ...base, startedAt: attemptNumber === 1 ? timing.startedAt : (r.startedAt ?? timing.startedAt) };
  } else if (cancelled) {
    set = { ...base, status: 'cancelled', cancelledAt: completedAt, dueAt: null };
  } else if (decision.requestStatus === 'queued') {
    set = { ...base, status: 'queued', dueAt: decision.retry!.nextAttemptAt };
  } else {
    set = { ...base, status: decision.requestStatus, completedAt, dueAt: null };
  }
  const attempt: AttemptRecord = {
    requestId: r.id,
    attemptNumber,
    status: decision.attemptStatus,
    responseStatusCode: decision.responseStatusCode,
    errorMessage: decision.errorMessage,
    durationMs: timing.durationMs,
    startedAt: timing.startedAt,
    completedAt,
    retry: cancelled ? null : decision.retry,
    // A cancel, not the attempt, ended a cancelled request.
    finalReason: cancelled ? null : decision.finalReason,
    response: decision.response,
  };
  const ended = set.status === 'succeeded' || set.status === 'failed' ? set.status : null;
  const callback = ended === null ? null : callbackFor(r, ended, attempt, completedAt, shardCount);
  if (callback !== null) set = { ...set, callbackRequestIds: [callback.id] };
  return { attempt, change: { set }, callback };
}

/**
 * Whether an attempt of `claimed` may still be settled on `fresh`, the request after a change that was not its
 * deliverer's. Only a cancel may change a claimed request: one recorded while the claim was stored (its lease
 * stands), or one that ended a request whose claim was not stored yet (no attempt was recorded since). Anything
 * else means the claim was taken over.
 */
export function stillClaimed(fresh: StoredRequest, claimed: StoredRequest): boolean {
  if (isLeased(fresh.status)) return fresh.dueAt === claimed.dueAt;
  return fresh.status === 'cancelled' && fresh.attemptCount === claimed.attemptCount;
}
