import { describe, expect, it } from 'vitest';
import {
  PROJECT_A,
  PROJECT_B,
  T0,
  aRequest,
  anAttempt,
  awkwardBytes,
  claimOf,
  sameBytes,
  settled,
  useBackend,
  type BackendFactory,
} from './harness.js';

/** Round trips and project scoping of RequestStore. */
export function describeRequestStoreContract(makeBackend: BackendFactory): void {
  describe('RequestStore: storage', () => {
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
      const claim = await claimOf(store(), r.id, T0);
      await store().recordAttempt(claim, settled(anAttempt(r.id, 1), { status: 'queued', dueAt: T0 + 60_000, attemptCount: 1 }));

      expect(await store().get(PROJECT_B, r.id)).toBeNull();
      expect(await store().list({ projectId: PROJECT_B, terminalCutoff: 0, limit: 10 })).toEqual([]);
      expect(await store().list({ projectId: PROJECT_B, id: r.id, terminalCutoff: 0, limit: 10 })).toEqual([]);
      expect(await store().listAttempts(PROJECT_B, r.id)).toEqual([]);
      expect(await store().requestCancel(PROJECT_B, r.id, T0 + 1)).toBe(false);
      expect((await store().get(PROJECT_A, r.id))?.version).toBe(claim.request.version + 1);
      expect(await store().listAttempts(PROJECT_A, r.id)).toHaveLength(1);
    });
  });
}
