import { describe, expect, it } from 'vitest';
import type { RetryDecision } from '../../../src/domain/request.js';
import { VersionConflict } from '../../../src/ports/requests.js';
import {
  PROJECT_A,
  PROJECT_B,
  T0,
  aRequest,
  anAttempt,
  awkwardBytes,
  countFulfilled,
  rejectionsOf,
  sameBytes,
  useBackend,
  type BackendFactory,
} from './harness.js';

/** Round trips, project scoping and conditional writes of RequestStore. */
export function describeRequestStoreContract(makeBackend: BackendFactory): void {
  describe('RequestStore: storage and conditional writes', () => {
    const backend = useBackend(makeBackend);
    const store = () => backend().requests;

    it('returns every field exactly as stored', async () => {
      const r = aRequest({
        url: 'https://Example.com/Path?q=A%20b&x=1',
        method: 'PATCH',
        headers: [
          ['X-Trace', 'first'],
          ['x-trace', 'second'],
          ['Authorization', 'Bearer  spaced value '],
          ['content-type', 'text/plain; charset=utf-8'],
        ],
        body: awkwardBytes(),
        contentType: 'application/octet-stream',
        maxAttempts: 20,
        timeoutSeconds: 300,
        queue: 'billing.v2-high_prio',
        metadata: { zeta: 'last', alpha: 'first', 'order.id': 'ünïcödé ✓' },
        source: 'replay',
        replayedFromRequestId: 'req_original',
        scheduleId: 'sch_nightly',
        status: 'delivering',
        scheduledAt: T0 + 5_000,
        dueAt: T0 + 6_000,
        attemptCount: 2,
        updatedAt: T0 + 7_000,
        startedAt: T0 + 5_001,
        completedAt: T0 + 9_000,
        cancelledAt: T0 + 8_000,
        cancelRequestedAt: T0 + 7_500,
        version: 7,
      });
      await store().insertMany([r]);

      const got = await store().get(PROJECT_A, r.id);
      expect(got).toStrictEqual(r);
      expect(got?.body).toBeInstanceOf(Uint8Array);
      expect(Object.keys(got!.metadata)).toEqual(['zeta', 'alpha', 'order.id']);
      const [listed] = await store().list({ projectId: PROJECT_A, terminalCutoff: 0, limit: 10 });
      expect(listed).toStrictEqual(r);
    });

    it('keeps a null body, an empty body and a 256 KiB body apart and exact', async () => {
      const large = new Uint8Array(256 * 1024).map((_, i) => (i * 7919) % 251);
      const nulls = aRequest({ body: null, contentType: null });
      const empty = aRequest({ body: new Uint8Array(0), contentType: 'text/plain' });
      const big = aRequest({ body: large });
      await store().insertMany([nulls, empty, big]);

      expect((await store().get(PROJECT_A, nulls.id))?.body).toBeNull();
      const emptyBody = (await store().get(PROJECT_A, empty.id))?.body;
      expect(emptyBody).toBeInstanceOf(Uint8Array);
      expect(emptyBody?.byteLength).toBe(0);
      expect(sameBytes((await store().get(PROJECT_A, big.id))?.body, large)).toBe(true);
    });

    it('stores a whole batch and answers null for unknown IDs', async () => {
      const batch = Array.from({ length: 100 }, () => aRequest());
      await store().insertMany(batch);
      for (const r of batch) expect((await store().get(PROJECT_A, r.id))?.id).toBe(r.id);
      expect(await store().get(PROJECT_A, 'req_unknown')).toBeNull();
    });

    it('stores every one of many requests inserted one at a time, at once, bodies of every size exact', async () => {
      const large = new Uint8Array(600 * 1024).map((_, i) => (i * 31) % 253);
      const singles = Array.from({ length: 120 }, (_, i) =>
        aRequest({ body: i % 40 === 7 ? large : i % 3 === 0 ? null : new Uint8Array([i, 255 - (i % 256), 0]), contentType: i % 3 === 0 ? null : 'application/octet-stream' }),
      );
      await Promise.all(singles.map((r) => store().insertMany([r])));

      for (const r of singles) expect(await store().get(PROJECT_A, r.id)).toStrictEqual(r);
      const listed = await store().list({ projectId: PROJECT_A, terminalCutoff: 0, limit: 200 });
      expect(new Set(listed.map((r) => r.id))).toEqual(new Set(singles.map((r) => r.id)));
    });

    it('hides a request from every other project', async () => {
      const r = aRequest();
      await store().insertMany([r]);
      await store().recordAttempt(PROJECT_A, r.id, 1, anAttempt(r.id, 1), { attemptCount: 1 });

      expect(await store().get(PROJECT_B, r.id)).toBeNull();
      expect(await store().list({ projectId: PROJECT_B, terminalCutoff: 0, limit: 10 })).toEqual([]);
      expect(await store().list({ projectId: PROJECT_B, id: r.id, terminalCutoff: 0, limit: 10 })).toEqual([]);
      expect(await store().listAttempts(PROJECT_B, r.id)).toEqual([]);
      await expect(store().update(PROJECT_B, r.id, 2, { status: 'cancelled' })).rejects.toBeInstanceOf(VersionConflict);
      await expect(store().recordAttempt(PROJECT_B, r.id, 2, anAttempt(r.id, 2), {})).rejects.toBeInstanceOf(VersionConflict);
      expect((await store().get(PROJECT_A, r.id))?.version).toBe(2);
      expect(await store().listAttempts(PROJECT_A, r.id)).toHaveLength(1);
    });

    it('applies a patch at the expected version, bumps the version and leaves other fields alone', async () => {
      const r = aRequest({ status: 'scheduled', scheduledAt: T0 + 60_000, dueAt: T0 + 60_000 });
      await store().insertMany([r]);

      const patched = await store().update(PROJECT_A, r.id, 1, {
        status: 'cancelled',
        cancelledAt: T0 + 10,
        dueAt: null,
        updatedAt: T0 + 10,
        startedAt: undefined,
      });
      expect(patched).toStrictEqual({ ...r, status: 'cancelled', cancelledAt: T0 + 10, dueAt: null, updatedAt: T0 + 10, version: 2 });
      expect(await store().get(PROJECT_A, r.id)).toStrictEqual(patched);

      const bumped = await store().update(PROJECT_A, r.id, 2, {});
      expect(bumped.version).toBe(3);
    });

    it('refuses a stale version or an unknown request with VersionConflict', async () => {
      const r = aRequest();
      await store().insertMany([r]);
      await store().update(PROJECT_A, r.id, 1, { attemptCount: 1 });

      await expect(store().update(PROJECT_A, r.id, 1, { status: 'failed' })).rejects.toBeInstanceOf(VersionConflict);
      await expect(store().update(PROJECT_A, 'req_unknown', 1, { status: 'failed' })).rejects.toBeInstanceOf(VersionConflict);
      expect((await store().get(PROJECT_A, r.id))?.status).toBe('queued');
    });

    it('lets exactly one of many concurrent updates at the same version win', async () => {
      const r = aRequest();
      await store().insertMany([r]);
      const results = await Promise.allSettled(
        Array.from({ length: 25 }, (_, i) => store().update(PROJECT_A, r.id, 1, { attemptCount: i + 1 })),
      );
      expect(countFulfilled(results)).toBe(1);
      for (const err of rejectionsOf(results)) expect(err).toBeInstanceOf(VersionConflict);
      expect((await store().get(PROJECT_A, r.id))?.version).toBe(2);
    });

    it('records an attempt together with its request change, and lists attempts in order', async () => {
      const r = aRequest({ status: 'delivering' });
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
      const afterFirst = await store().recordAttempt(PROJECT_A, r.id, 1, first, {
        status: 'queued',
        attemptCount: 1,
        dueAt: retry.nextAttemptAt,
      });
      expect(afterFirst).toStrictEqual({ status: 'queued', dueAt: retry.nextAttemptAt, version: 2 });
      expect(await store().get(PROJECT_A, r.id)).toMatchObject({ status: 'queued', attemptCount: 1, dueAt: retry.nextAttemptAt, version: 2 });

      const second = anAttempt(r.id, 2, { status: 'timed_out', responseStatusCode: null, errorMessage: 'timed out after 50s' });
      const third = anAttempt(r.id, 3, { status: 'succeeded', responseStatusCode: 204 });
      await store().recordAttempt(PROJECT_A, r.id, 2, second, { attemptCount: 2 });
      await store().recordAttempt(PROJECT_A, r.id, 3, third, { status: 'succeeded', attemptCount: 3, dueAt: null, completedAt: third.completedAt });

      expect(await store().listAttempts(PROJECT_A, r.id)).toStrictEqual([first, second, third]);
      expect(await store().get(PROJECT_A, r.id)).toMatchObject({ status: 'succeeded', attemptCount: 3, version: 4 });
    });

    it('stores neither the attempt nor the change when the version moved on', async () => {
      const r = aRequest({ status: 'delivering' });
      await store().insertMany([r]);
      await store().update(PROJECT_A, r.id, 1, { cancelRequestedAt: T0 + 1 });

      await expect(
        store().recordAttempt(PROJECT_A, r.id, 1, anAttempt(r.id, 1), { status: 'failed', attemptCount: 1 }),
      ).rejects.toBeInstanceOf(VersionConflict);
      expect(await store().listAttempts(PROJECT_A, r.id)).toEqual([]);
      expect(await store().get(PROJECT_A, r.id)).toMatchObject({ status: 'delivering', attemptCount: 0, version: 2 });
    });
  });
}
