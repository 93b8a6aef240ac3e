import type { WaitingFor } from '../flow/budgets.js';
import type { RequestDefinition, RequestPatch, RequestSource, StoredRequest } from '../request.js';
import { ACTIVE_STATUSES, LEASED_STATUS } from './statuses.js';

/**
 * A change of a request's state, as data: the fields it sets, and those it sets only where the request has none
 * yet. Every change a backend makes is one of the transitions below (or `settleAttempt`, `decideCancel`,
 * `cancelMadeFinal`); the embedded backend writes them as SQL assignments, the Cassandra one applies them to the
 * request it holds (`applied`). Each also moves the version on by one, which the backends do themselves.
 */
export interface Transition {
  readonly set: RequestPatch;
  /** Fields set only where the request has no value yet. */
  readonly setIfUnset?: RequestPatch;
}

/** Who a new request is, beside its definition. */
export interface NewRequestIdentity {
  readonly id: string;
  readonly projectId: string;
  readonly source: RequestSource;
  readonly replayedFromRequestId: string | null;
  readonly scheduleId: string | null;
  /** The request a callback reports on; null (the default) for any other request. */
  readonly callbackForRequestId?: string | null;
}

/**
 * Accepted: the request as first stored, created at `now`. Due at once (`queued`), or at `deliverAt` when that is
 * later (`scheduled`).
 */
export function accepted(who: NewRequestIdentity, d: RequestDefinition, deliverAt: number | null, now: number): StoredRequest {
  const delayed = deliverAt !== null && deliverAt > now;
  // Every field written out, not spread: requests made here are read on every hot path, and an object literal
  // of known shape keeps their property reads fast.
  return {
    url: d.url,
    method: d.method,
    headers: d.headers,
    body: d.body,
    contentType: d.contentType,
    maxAttempts: d.maxAttempts,
    timeoutSeconds: d.timeoutSeconds,
    queue: d.queue,
    flowKeys: d.flowKeys,
    metadata: d.metadata,
    callbacks: d.callbacks,
    id: who.id,
    projectId: who.projectId,
    source: who.source,
    replayedFromRequestId: who.replayedFromRequestId,
    scheduleId: who.scheduleId,
    callbackForRequestId: who.callbackForRequestId ?? null,
    callbackRequestIds: [],
    status: delayed ? 'scheduled' : 'queued',
    scheduledAt: delayed ? deliverAt : null,
    dueAt: delayed ? deliverAt : now,
    attemptCount: 0,
    createdAt: now,
    updatedAt: now,
    startedAt: null,
    completedAt: null,
    cancelledAt: null,
    cancelRequestedAt: null,
    waitingFor: null,
    lastStatusCode: null,
    version: 1,
  };
}

/** The statuses a claim takes, once the request's `dueAt` has come: an expired lease is taken over too. */
export const CLAIMED_FROM = ACTIVE_STATUSES;

/**
 * Claimed at `now` for an attempt: `delivering`, leased until `leaseUntil`. The first claim also marks the request
 * started; the first attempt's own start replaces that (see `settleAttempt`).
 */
export function claimed(now: number, leaseUntil: number): Transition {
  return { set: { status: LEASED_STATUS, dueAt: leaseUntil, updatedAt: now }, setIfUnset: { startedAt: now } };
}

/**
 * Handed back unsent by its deliverer at `now` (no free slot, a budget that holds it back, shutting down): due again
 * at `dueAt`. `waitingFor` names the budget that held it back, if one did. A request `r` never attempted loses the
 * start its claim stamped: `started_at` is when its first attempt really went, not when it was first claimed.
 */
export function handedBack(r: Pick<StoredRequest, 'attemptCount'>, now: number, dueAt: number, waitingFor: WaitingFor | null = null): Transition {
  return { set: { status: 'queued', dueAt, updatedAt: now, waitingFor, ...(r.attemptCount === 0 ? { startedAt: null } : {}) } };
}

/** The status a held request waits in, the only one `woken` applies to (with a `waitingFor`, due later). */
export const WOKEN_FROM: readonly StoredRequest['status'][] = ['queued'];

/** Woken at `now`: a request a budget held back is due at once, as the budget now admits it (resumed, say). */
export function woken(now: number): Transition {
  return { set: { dueAt: now, updatedAt: now, waitingFor: null } };
}

/** The statuses whose lease a release ends. */
export const RELEASED_FROM: readonly StoredRequest['status'][] = [LEASED_STATUS];

/**
 * Lease released at `now`: a delivering request whose deliverer is gone (a crash, a shard that moved) is due at once
 * for the next claim, still `delivering`; the version moves on, so the old deliverer can record nothing.
 */
export function leaseReleased(now: number): Transition {
  return { set: { dueAt: now } };
}

/** `r` after `t`, at `version` (one more than `r`'s by default). */
export function applied(r: StoredRequest, t: Transition, version = r.version + 1): StoredRequest {
  const next: Record<string, unknown> = { ...r, version };
  for (const [field, value] of Object.entries(t.set)) if (value !== undefined) next[field] = value;
  for (const [field, value] of Object.entries(t.setIfUnset ?? {})) if (value !== undefined && next[field] === null) next[field] = value;
  return next as unknown as StoredRequest;
}

/**
 * `first`, then `then`, as one transition: what a write that stores a claim with the change after it applies to
 * the request as it was before the claim.
 */
export function followedBy(first: Transition, then: Transition): Transition {
  const set: Record<string, unknown> = { ...first.set };
  for (const [field, value] of Object.entries(then.set)) if (value !== undefined) set[field] = value;
  const setIfUnset: Record<string, unknown> = {};
  for (const [field, value] of [...Object.entries(then.setIfUnset ?? {}), ...Object.entries(first.setIfUnset ?? {})]) {
    if (value !== undefined && !(field in set)) setIfUnset[field] = value;
  }
  return { set: set as RequestPatch, setIfUnset: setIfUnset as RequestPatch };
}
