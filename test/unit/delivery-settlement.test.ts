import { describe, expect, it } from 'vitest';
import type { AttemptDecision } from '../../src/domain/delivery/policy.js';
import type { RetryDecision } from '../../src/domain/request.js';
import { settlement } from '../../src/workers/delivery/settle.js';
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
const success: AttemptDecision = { attemptStatus: 'succeeded', responseStatusCode: 200, errorMessage: null, retry: null, requestStatus: 'succeeded' };
const failure: AttemptDecision = { attemptStatus: 'failed', responseStatusCode: 503, errorMessage: 'status 503', retry, requestStatus: 'queued' };

describe('settlement', () => {
  it('waits for the retry, or ends the request, as the decision says', () => {
    const r = aRequest({ status: 'delivering', startedAt: T });
    expect(settlement(r, 1, failure, timing).patch).toEqual({ attemptCount: 1, updatedAt: T + 50, startedAt: T + 10, status: 'queued', dueAt: T + 1_050 });
    expect(settlement(r, 1, success, timing).patch).toEqual({ attemptCount: 1, updatedAt: T + 50, startedAt: T + 10, status: 'succeeded', completedAt: T + 50, dueAt: null });
    expect(settlement(r, 1, failure, timing).attempt.retry).toBe(retry);
  });

  it("gives the request its first attempt's start, and leaves it alone on later attempts", () => {
    const r = aRequest({ status: 'delivering', startedAt: T, attemptCount: 1 });
    expect(settlement(aRequest({ status: 'delivering', startedAt: T }), 1, success, timing).patch.startedAt).toBe(T + 10);
    expect(settlement(r, 2, success, timing).patch).not.toHaveProperty('startedAt');
    expect(settlement(aRequest({ status: 'cancelled', startedAt: T, attemptCount: 1 }), 2, success, timing).patch.startedAt).toBe(T);
  });

  it('lets a cancel requested during the attempt win over a retry, not over a success', () => {
    const r = aRequest({ status: 'delivering', startedAt: T, cancelRequestedAt: T + 20 });
    const retried = settlement(r, 1, failure, timing);
    expect(retried.patch).toMatchObject({ status: 'cancelled', cancelledAt: T + 50, dueAt: null });
    expect(retried.attempt.retry).toBeNull();
    expect(settlement(r, 1, success, timing).patch.status).toBe('succeeded');
  });

  it('adds the attempt to a request cancelled at once while it was in flight, which stays cancelled', () => {
    const r = aRequest({ status: 'cancelled', cancelledAt: T + 20, dueAt: null, startedAt: null });
    for (const decision of [success, failure]) {
      const { attempt, patch } = settlement(r, 1, decision, timing);
      expect(patch).toEqual({ attemptCount: 1, updatedAt: T + 50, startedAt: T + 10 });
      expect(attempt).toMatchObject({ attemptNumber: 1, status: decision.attemptStatus, retry: null });
    }
  });
});
