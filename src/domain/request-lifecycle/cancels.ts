import type { RequestStatus, StoredRequest } from '../request.js';
import { isLeased, isTerminal } from './statuses.js';
import type { Transition } from './transitions.js';

/** What a cancel call does to a request in a given state, following the API's state table. */
export type CancelDecision =
  /** Nothing is in flight: the request becomes `cancelled` at once. */
  | { readonly kind: 'cancel_now'; readonly change: Transition }
  /** An attempt is in flight: the cancel is recorded and the attempt's end settles the request. */
  | { readonly kind: 'cancel_after_attempt'; readonly change: Transition | null }
  | { readonly kind: 'already_cancelled' }
  | { readonly kind: 'completed' };

/** Cancel asked at `now`, by anyone but the request's deliverer: what it does to `r`. */
export function decideCancel(r: StoredRequest, now: number): CancelDecision {
  if (r.status === 'cancelled') return { kind: 'already_cancelled' };
  if (isTerminal(r.status)) return { kind: 'completed' };
  if (isLeased(r.status)) {
    return { kind: 'cancel_after_attempt', change: r.cancelRequestedAt === null ? { set: { cancelRequestedAt: now, updatedAt: now } } : null };
  }
  return { kind: 'cancel_now', change: { set: { status: 'cancelled', cancelledAt: now, dueAt: null, updatedAt: now } } };
}

/**
 * Cancel made final by the deliverer at `now`, for a request it claimed with a cancel asked before the claim: no
 * attempt starts, and the request is cancelled as of when the cancel was asked, which is what readers were shown
 * meanwhile.
 */
export function cancelMadeFinal(r: StoredRequest, now: number): Transition {
  return { set: { status: 'cancelled', cancelledAt: r.cancelRequestedAt ?? now, dueAt: null, updatedAt: now } };
}

/**
 * Cancel applied on read: a request with a cancel asked at `askedAt` that its deliverer has not made final yet,
 * as readers see it. One that succeeded or was cancelled stays so; one delivering keeps its attempt in flight,
 * with the cancel as requested; any other (due, waiting for a retry, or failed by an attempt that was in flight
 * when the cancel came) reads `cancelled` as of the cancel.
 */
export function cancelAsRead(r: StoredRequest, askedAt: number | null): StoredRequest {
  if (askedAt === null || r.status === 'succeeded' || r.status === 'cancelled') return r;
  if (isLeased(r.status)) return r.cancelRequestedAt !== null ? r : { ...r, cancelRequestedAt: askedAt };
  return { ...r, status: 'cancelled', cancelledAt: askedAt, completedAt: null, dueAt: null, updatedAt: Math.max(r.updatedAt, askedAt) };
}

/** The status `cancelAsRead` gives a request in `status` with a cancel asked at `askedAt`. */
export function statusAsRead(status: RequestStatus, askedAt: number | null): RequestStatus {
  return askedAt === null || status === 'succeeded' || isLeased(status) ? status : 'cancelled';
}
