import { describe, expect, it } from 'vitest';
import type { AttemptDecision } from '../../../src/domain/delivery/policy.js';
import type { RetryDecision } from '../../../src/domain/request.js';
import { settleAttempt } from '../../../src/domain/request-lifecycle/index.js';
import { usagePeriod } from '../../../src/domain/usage-period.js';
import { VersionConflict } from '../../../src/ports/requests.js';
import {
  CONTRACT_SHARDS,
  PROJECT_A,
  T0,
  aRequest,
  anAttempt,
  claimOf,
  claimsStored,
  countFulfilled,
  rejectionsOf,
  settled,
  succeededAt,
  useBackend,
  type BackendFactory,
} from './harness.js';

/**
 * The deliverer's changes of a request, each made through the claim it came with: RequestStore.recordAttempt,
 * handBack and cancelClaimed (cancels have a suite of their own). Holds for a backend that stores its claims at
 * once and for one that holds them in the claiming process a while.
 */
export function describeRequestChangeContract(makeBackend: BackendFactory): void {
  describe('RequestStore: changes through claims', () => {
    const backend = useBackend(makeBackend);
    const store = () => backend().requests;

    it('hands a claimed request back: queued, due again, one version on, not started, other fields alone', async () => {
      const r = aRequest({ status: 'scheduled', scheduledAt: T0 + 60_000, dueAt: T0 + 60_000 });
      await store().insertMany([r]);
      const claim = await claimOf(store(), r.id, T0 + 60_000);

      await store().handBack(claim, T0 + 60_010, T0 + 61_000);
      // Never attempted: the claim's start stamp goes with it, so `started_at` is the first attempt's, when it goes.
      const expected = { ...r, status: 'queued', dueAt: T0 + 61_000, updatedAt: T0 + 60_010, startedAt: null, version: claim.request.version + 1 };
      expect(await store().get(PROJECT_A, r.id)).toStrictEqual(expected);
      expect(await store().claimDue(T0 + 60_999, 10, T0 + 120_000)).toEqual([]);
      expect((await claimOf(store(), r.id, T0 + 61_000)).request).toMatchObject({ status: 'delivering', startedAt: T0 + 61_000 });
    });

    it('records an ending with the callback it makes in the same write, counted in usage; a repeat makes no second callback', async () => {
      const r = aRequest({ callbacks: { onSuccess: 'https://example.com/ok', onFailure: 'https://example.com/failed' }, metadata: { order: '7' } });
      await store().insertMany([r]);
      const claim = (await claimOf(store(), r.id, T0)).sent();
      const decision: AttemptDecision = {
        attemptStatus: 'failed',
        responseStatusCode: 404,
        errorMessage: 'HTTP 404',
        retry: null,
        requestStatus: 'failed',
        finalReason: 'final_status',
        response: { headers: [['content-type', 'text/plain']], body: new TextEncoder().encode('gone'), bodyTruncated: false },
      };
      const ending = settleAttempt(claim.request, 1, decision, { startedAt: T0 + 10, durationMs: 5, completedAt: T0 + 15 }, CONTRACT_SHARDS);
      const callback = ending.callback!;
      expect(callback).toMatchObject({ url: 'https://example.com/failed', source: 'callback', callbackForRequestId: r.id, callbacks: null, maxAttempts: 3 });

      await store().recordAttempt(claim, ending);
      expect(await store().get(PROJECT_A, r.id)).toMatchObject({ status: 'failed', callbackRequestIds: [callback.id] });
      expect(await store().get(PROJECT_A, callback.id)).toStrictEqual(callback);
      await expect(store().recordAttempt(claim, ending)).rejects.toBeInstanceOf(VersionConflict);
      const listed = await store().list({ projectId: PROJECT_A, source: 'callback', terminalCutoff: 0, limit: 10 });
      expect(listed.map((c) => c.id)).toEqual([callback.id]);
      await expect.poll(() => backend().usage.used(PROJECT_A, usagePeriod(T0 + 15)), { timeout: 10_000 }).toBe(1);
      // Due at once, like any new request; and its own ending makes no callback.
      const delivered = (await claimOf(store(), callback.id, T0 + 15)).sent();
      const success: AttemptDecision = { ...decision, attemptStatus: 'succeeded', responseStatusCode: 200, errorMessage: null, requestStatus: 'succeeded', finalReason: null };
      const itsEnding = settleAttempt(delivered.request, 1, success, { startedAt: T0 + 20, durationMs: 5, completedAt: T0 + 25 }, CONTRACT_SHARDS);
      expect(itsEnding.callback).toBeNull();
      await store().recordAttempt(delivered, itsEnding);
      expect(await store().get(PROJECT_A, callback.id)).toMatchObject({ status: 'succeeded', callbackRequestIds: [] });
    });

    it('refuses a second change through a spent claim with VersionConflict', async () => {
      const r = aRequest();
      await store().insertMany([r]);
      const claim = await claimOf(store(), r.id, T0);
      await store().handBack(claim, T0 + 1, T0 + 1_000);

      await expect(store().handBack(claim, T0 + 2, T0 + 2_000)).rejects.toBeInstanceOf(VersionConflict);
      await expect(store().cancelClaimed(claim, T0 + 2)).rejects.toBeInstanceOf(VersionConflict);
      await expect(store().recordAttempt(claim, settled(anAttempt(r.id, 1), succeededAt(T0 + 2)))).rejects.toBeInstanceOf(VersionConflict);
      expect(await store().get(PROJECT_A, r.id)).toMatchObject({ status: 'queued', dueAt: T0 + 1_000, version: claim.request.version + 1 });
      expect(await store().listAttempts(PROJECT_A, r.id)).toEqual([]);
    });

    it('lets exactly one of many concurrent changes through one claim win', async () => {
      const r = aRequest();
      await store().insertMany([r]);
      const claim = await claimOf(store(), r.id, T0);
      const results = await Promise.allSettled(Array.from({ length: 25 }, (_, i) => store().handBack(claim, T0 + 1, T0 + 1_000 + i)));
      expect(countFulfilled(results)).toBe(1);
      for (const err of rejectionsOf(results)) expect(err).toBeInstanceOf(VersionConflict);
      expect((await store().get(PROJECT_A, r.id))?.version).toBe(claim.request.version + 1);
    });

    it('records an attempt together with its request change, and lists attempts in order', async () => {
      const r = aRequest();
      await store().insertMany([r]);
      const retry: RetryDecision = {
        reason: 'http_429',
        retryAfterRaw: '120, "odd"',
        retryAfterTruncated: true,
        retryAfterEscaped: true,
        retryAfterStatus: 'valid',
        retryAfterDelayMs: 120_000,
        backoffDelayMs: 2_000,
        selectedDelayMs: 120_000,
        delaySource: 'retry_after',
        nextAttemptAt: T0 + 180_000,
      };
      const first = anAttempt(r.id, 1, { status: 'failed', responseStatusCode: 429, retry });
      const claimed = await claimOf(store(), r.id, T0);
      const afterFirst = await store().recordAttempt(claimed, settled(first, { status: 'queued', attemptCount: 1, dueAt: retry.nextAttemptAt }));
      expect(afterFirst).toStrictEqual({ status: 'queued', dueAt: retry.nextAttemptAt, version: claimed.request.version + 1 });
      expect(await store().get(PROJECT_A, r.id)).toMatchObject({ status: 'queued', attemptCount: 1, dueAt: retry.nextAttemptAt, version: afterFirst.version });

      const second = anAttempt(r.id, 2, { status: 'timed_out', responseStatusCode: null, errorMessage: 'timed out after 50s' });
      const third = anAttempt(r.id, 3, { status: 'succeeded', responseStatusCode: 204 });
      await store().recordAttempt(await claimOf(store(), r.id, retry.nextAttemptAt), settled(second, { status: 'queued', attemptCount: 2, dueAt: T0 + 240_000 }));
      const last = await claimOf(store(), r.id, T0 + 240_000);
      await store().recordAttempt(last, settled(third, { status: 'succeeded', attemptCount: 3, dueAt: null, completedAt: third.completedAt }));

      expect(await store().listAttempts(PROJECT_A, r.id)).toStrictEqual([first, second, third]);
      expect(await store().get(PROJECT_A, r.id)).toMatchObject({ status: 'succeeded', attemptCount: 3, version: last.request.version + 1 });
    });

    it('stores neither the attempt nor the change when the claim was fenced off', async () => {
      const r = aRequest();
      await store().insertMany([r]);
      const claim = await claimOf(store(), r.id, T0);
      // Only a stored lease is there to release (see the claim contract).
      await claimsStored(store(), [claim]);
      expect(await store().releaseLeases(T0 + 1)).toBe(1);

      await expect(store().recordAttempt(claim, settled(anAttempt(r.id, 1), { status: 'failed', attemptCount: 1 }))).rejects.toBeInstanceOf(VersionConflict);
      expect(await store().listAttempts(PROJECT_A, r.id)).toEqual([]);
      expect(await store().get(PROJECT_A, r.id)).toMatchObject({ status: 'delivering', attemptCount: 0, dueAt: T0 + 1, version: claim.request.version + 1 });
    });
  });
}
