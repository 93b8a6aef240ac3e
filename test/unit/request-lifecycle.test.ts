import { describe, expect, it } from 'vitest';
import type { AttemptDecision } from '../../src/domain/delivery/policy.js';
import type { RequestDefinition, RetryDecision } from '../../src/domain/request.js';
import {
  ACTIVE_STATUSES,
  CLAIMED_FROM,
  TERMINAL_STATUSES,
  accepted,
  applied,
  cancelAsRead,
  cancelMadeFinal,
  claimed,
  decideCancel,
  followedBy,
  handedBack,
  isActive,
  isWaiting,
  leaseReleased,
  settleAttempt,
  statusAsRead,
  stillClaimed,
} from '../../src/domain/request-lifecycle/index.js';
import { FakeClock } from '../support/fake-clock.js';
import { aRequest } from '../contract/suite/harness.js';

const T = Date.UTC(2030, 0, 1);
const timing = { startedAt: T + 10, durationMs: 40, completedAt: T + 50 };
const retry: RetryDecision = {
  reason: 'status 503',
  retryAfterRaw: '',
  retryAfterTruncated: false,
  retryAfterEscaped: false,
  retryAfterStatus: 'absent',
  retryAfterDelayMs: 0,
  backoffDelayMs: 1_000,
  selectedDelayMs: 1_000,
  delaySource: 'backoff',
  nextAttemptAt: T + 1_050,
};
const success: AttemptDecision = { attemptStatus: 'succeeded', responseStatusCode: 200, errorMessage: null, retry: null, requestStatus: 'succeeded', finalReason: null, response: null };
const failure: AttemptDecision = { attemptStatus: 'failed', responseStatusCode: 503, errorMessage: 'status 503', retry, requestStatus: 'queued', finalReason: null, response: null };
const definition: RequestDefinition = {
  callbacks: null,
  url: 'https://example.com/hook',
  method: 'POST',
  headers: [],
  body: null,
  contentType: null,
  maxAttempts: 3,
  timeoutSeconds: 30,
  queue: 'default',
  flowKeys: [],
  metadata: {},
};
const who = { id: 'req_1', projectId: 'prj_1', source: 'api', replayedFromRequestId: null, scheduleId: null } as const;

describe('the request lifecycle', () => {
  it('keeps active and terminal statuses apart, and claims only active ones', () => {
    expect(ACTIVE_STATUSES.filter((s) => TERMINAL_STATUSES.has(s))).toEqual([]);
    expect(ACTIVE_STATUSES.length + TERMINAL_STATUSES.size).toBe(6);
    expect(CLAIMED_FROM).toEqual(ACTIVE_STATUSES);
    expect(ACTIVE_STATUSES.filter(isWaiting)).toEqual(['queued', 'scheduled']);
    expect([...TERMINAL_STATUSES].filter(isActive)).toEqual([]);
  });

  it('accepts a request queued at once, or scheduled when its delivery time is later', () => {
    const clock = new FakeClock(T);
    expect(accepted(who, definition, null, clock.now())).toMatchObject({ status: 'queued', scheduledAt: null, dueAt: T, createdAt: T, updatedAt: T, version: 1 });
    expect(accepted(who, definition, T, clock.now())).toMatchObject({ status: 'queued', dueAt: T });
    expect(accepted(who, definition, T + 60_000, clock.now())).toMatchObject({ status: 'scheduled', scheduledAt: T + 60_000, dueAt: T + 60_000 });
  });

  it('claims a request for its lease, starting it on its first claim only, one version later', () => {
    const clock = new FakeClock(T);
    const r = accepted(who, definition, null, clock.now());
    clock.advance(5);
    const first = applied(r, claimed(clock.now(), clock.now() + 60_000));
    expect(first).toStrictEqual({ ...r, status: 'delivering', dueAt: T + 60_005, updatedAt: T + 5, startedAt: T + 5, version: 2 });
    clock.advance(100_000);
    const again = applied(first, claimed(clock.now(), clock.now() + 60_000));
    expect(again).toMatchObject({ status: 'delivering', dueAt: T + 160_005, updatedAt: T + 100_005, startedAt: T + 5, version: 3 });
  });

  it('hands a claimed request back, and releases a lease, due at the given time', () => {
    const clock = new FakeClock(T);
    const leased = aRequest({ status: 'delivering', dueAt: T + 60_000, version: 4 });
    expect(applied(leased, handedBack(leased, clock.now(), clock.now() + 1_000))).toMatchObject({ status: 'queued', dueAt: T + 1_000, updatedAt: T, version: 5 });
    expect(applied(leased, leaseReleased(clock.now()))).toMatchObject({ status: 'delivering', dueAt: T, updatedAt: leased.updatedAt, version: 5 });
  });

  it('stores a claim with the change after it as one: the claim first, then the change', () => {
    const stored = aRequest({ status: 'queued', dueAt: T, startedAt: null, version: 3 });
    const claim = claimed(T + 1, T + 60_000);
    const { change } = settleAttempt(applied(stored, claim), 1, success, timing);
    expect(applied(stored, followedBy(claim, change), 5)).toStrictEqual({ ...applied(applied(stored, claim), change), version: 5 });
    // Never attempted, it has not started: the claim's stamp goes with the hand-back. One attempted keeps its start.
    const back = handedBack(stored, T + 2, T + 1_002);
    expect(applied(stored, followedBy(claim, back))).toMatchObject({ status: 'queued', dueAt: T + 1_002, startedAt: null, updatedAt: T + 2 });
    const retried = aRequest({ status: 'queued', dueAt: T, startedAt: T - 5_000, attemptCount: 1, version: 3 });
    expect(applied(retried, followedBy(claim, handedBack(retried, T + 2, T + 1_002)))).toMatchObject({ startedAt: T - 5_000 });
  });

  it('settles an attempt: waits for the retry, or ends the request, as the decision says', () => {
    const r = aRequest({ status: 'delivering', startedAt: T });
    expect(settleAttempt(r, 1, failure, timing).change.set).toEqual({
      attemptCount: 1, updatedAt: T + 50, startedAt: T + 10, lastStatusCode: failure.responseStatusCode, status: 'queued', dueAt: T + 1_050,
    });
    expect(settleAttempt(r, 1, success, timing).change.set).toEqual({
      attemptCount: 1, updatedAt: T + 50, startedAt: T + 10, lastStatusCode: 200, status: 'succeeded', completedAt: T + 50, dueAt: null,
    });
    expect(settleAttempt(r, 1, failure, timing).attempt.retry).toBe(retry);
  });

  it("keeps the last attempt's status code on the request, and none once an attempt got no response", () => {
    const answered = aRequest({ status: 'delivering', startedAt: T, attemptCount: 1, lastStatusCode: 503 });
    const unanswered: AttemptDecision = { ...failure, attemptStatus: 'timed_out', responseStatusCode: null, errorMessage: 'timed out' };
    expect(settleAttempt(answered, 2, success, timing).change.set.lastStatusCode).toBe(200);
    expect(settleAttempt(answered, 2, unanswered, timing).change.set.lastStatusCode).toBeNull();
    expect(applied(answered, settleAttempt(answered, 2, unanswered, timing).change).lastStatusCode).toBeNull();
  });

  it("gives the request its first attempt's start, and leaves it alone on later attempts", () => {
    const r = aRequest({ status: 'delivering', startedAt: T, attemptCount: 1 });
    expect(settleAttempt(aRequest({ status: 'delivering', startedAt: T }), 1, success, timing).change.set.startedAt).toBe(T + 10);
    expect(settleAttempt(r, 2, success, timing).change.set).not.toHaveProperty('startedAt');
    expect(settleAttempt(aRequest({ status: 'cancelled', startedAt: T, attemptCount: 1 }), 2, success, timing).change.set.startedAt).toBe(T);
  });

  it('lets a cancel requested during the attempt win over a retry, not over a success', () => {
    const r = aRequest({ status: 'delivering', startedAt: T, cancelRequestedAt: T + 20 });
    const retried = settleAttempt(r, 1, failure, timing);
    expect(retried.change.set).toMatchObject({ status: 'cancelled', cancelledAt: T + 50, dueAt: null });
    expect(retried.attempt.retry).toBeNull();
    expect(settleAttempt(r, 1, success, timing).change.set.status).toBe('succeeded');
  });

  it('adds the attempt to a request cancelled at once while it was in flight, which stays cancelled', () => {
    const r = aRequest({ status: 'cancelled', cancelledAt: T + 20, dueAt: null, startedAt: null });
    for (const decision of [success, failure]) {
      const { attempt, change } = settleAttempt(r, 1, decision, timing);
      expect(change.set).toEqual({ attemptCount: 1, updatedAt: T + 50, startedAt: T + 10, lastStatusCode: decision.responseStatusCode });
      expect(attempt).toMatchObject({ attemptNumber: 1, status: decision.attemptStatus, retry: null });
    }
  });

  it('keeps a claim through a cancel only', () => {
    const claimedAt = aRequest({ status: 'delivering', dueAt: T + 60_000, attemptCount: 1 });
    expect(stillClaimed({ ...claimedAt, cancelRequestedAt: T + 1, version: 9 }, claimedAt)).toBe(true);
    expect(stillClaimed({ ...claimedAt, status: 'cancelled', dueAt: null }, claimedAt)).toBe(true);
    expect(stillClaimed({ ...claimedAt, dueAt: T + 120_000 }, claimedAt)).toBe(false);
    expect(stillClaimed({ ...claimedAt, status: 'cancelled', attemptCount: 2 }, claimedAt)).toBe(false);
    expect(stillClaimed({ ...claimedAt, status: 'succeeded', dueAt: null }, claimedAt)).toBe(false);
  });

  it('asks a cancel: at once without an attempt in flight, after it otherwise, and once', () => {
    const clock = new FakeClock(T);
    const now = clock.now();
    for (const status of ['queued', 'scheduled'] as const) {
      expect(decideCancel(aRequest({ status }), now)).toEqual({ kind: 'cancel_now', change: { set: { status: 'cancelled', cancelledAt: T, dueAt: null, updatedAt: T } } });
    }
    expect(decideCancel(aRequest({ status: 'delivering' }), now)).toEqual({ kind: 'cancel_after_attempt', change: { set: { cancelRequestedAt: T, updatedAt: T } } });
    expect(decideCancel(aRequest({ status: 'delivering', cancelRequestedAt: T - 1 }), now)).toEqual({ kind: 'cancel_after_attempt', change: null });
    expect(decideCancel(aRequest({ status: 'cancelled' }), now)).toEqual({ kind: 'already_cancelled' });
    for (const status of ['succeeded', 'failed'] as const) expect(decideCancel(aRequest({ status }), now)).toEqual({ kind: 'completed' });
  });

  it('makes a cancel asked before the claim final as of when it was asked', () => {
    const clock = new FakeClock(T + 500);
    const r = aRequest({ status: 'delivering', cancelRequestedAt: T + 100 });
    expect(applied(r, cancelMadeFinal(r, clock.now()))).toMatchObject({ status: 'cancelled', cancelledAt: T + 100, dueAt: null, updatedAt: T + 500 });
    expect(cancelMadeFinal(aRequest({ status: 'delivering' }), clock.now()).set.cancelledAt).toBe(T + 500);
  });

  it('applies a cancel on read: a waiting or failed request reads cancelled, a delivering one keeps its attempt', () => {
    const askedAt = T + 100;
    for (const status of ['queued', 'scheduled', 'failed'] as const) {
      const r = aRequest({ status, updatedAt: T, completedAt: status === 'failed' ? T + 50 : null });
      expect(cancelAsRead(r, askedAt)).toMatchObject({ status: 'cancelled', cancelledAt: askedAt, completedAt: null, dueAt: null, updatedAt: askedAt });
      expect(statusAsRead(status, askedAt)).toBe('cancelled');
    }
    const delivering = aRequest({ status: 'delivering' });
    expect(cancelAsRead(delivering, askedAt)).toStrictEqual({ ...delivering, cancelRequestedAt: askedAt });
    for (const status of ['succeeded', 'cancelled', 'delivering'] as const) expect(statusAsRead(status, askedAt)).toBe(status);
    for (const status of ['succeeded', 'cancelled'] as const) expect(cancelAsRead(aRequest({ status }), askedAt).status).toBe(status);
    const untouched = aRequest();
    expect(cancelAsRead(untouched, null)).toBe(untouched);
  });
});
