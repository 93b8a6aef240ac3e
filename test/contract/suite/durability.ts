import { describe, expect, it } from 'vitest';
import { PROJECT_A, T0, aRequest, anAttempt, awkwardBytes, claimOf, settled, type ReopenableStorage } from './harness.js';

/** What a backend keeps across close and reopen, and how close treats writes in flight. */
export function describeDurabilityContract(makeStorage: () => Promise<ReopenableStorage>): void {
  describe('Backend durability', () => {
    it('keeps every kind of record across close and reopen', async () => {
      const storage = await makeStorage();
      const first = await storage.open();
      const r = aRequest({ body: awkwardBytes(), headers: [['X-A', '1']], metadata: { k: 'v' }, flowKeys: ['customer:1'] });
      const project = { id: PROJECT_A, name: 'p', monthlyAllowance: 10, scheduleAllowance: 1, retentionDays: 7, captureResponseBodies: false, createdAt: T0 };
      // Attempts keep what the destination answered both ways: a body's bytes, none, or no response at all.
      const answered = (n: number, body: Uint8Array | null) =>
        anAttempt(r.id, n, {
          finalReason: n === 3 ? 'receiver_stopped' : null,
          response: { headers: [['content-type', 'text/plain'], ['x-ratelimit-remaining', '0'], ['x-ratelimit-remaining', '1']], body, bodyTruncated: n === 1 },
        });
      const text = new TextEncoder().encode('{"data":[' + '{"id":"ord_1","status":"pending"},'.repeat(60)).subarray(0, 2048);
      const attempts = [
        answered(1, awkwardBytes().subarray(0, 2048)), answered(2, null), answered(3, new Uint8Array()), answered(4, text),
        anAttempt(r.id, 5, { finalReason: 'attempts_exhausted' }),
      ];
      const key = { keyId: 'key_1', projectId: PROJECT_A, secretHash: new Uint8Array([1, 2, 3]), createdAt: T0, revokedAt: null, lastUsedAt: T0 + 5 };
      await first.projects.createProject(project);
      await first.projects.createApiKey(key);
      await first.requests.insertMany([r]);
      for (const [i, a] of attempts.entries()) {
        await first.requests.recordAttempt(await claimOf(first.requests, r.id, T0 + i * 60_000), settled(a, { status: 'queued', dueAt: T0 + (i + 1) * 60_000, attemptCount: i + 1 }));
      }
      const updated = await first.requests.get(PROJECT_A, r.id);
      await first.idempotency.claimAll([{ projectId: PROJECT_A, key: 'k', fingerprint: 'f', claimedAt: T0, expiresAt: T0 + 1, plan: null }], T0);
      await first.idempotency.completeAll(PROJECT_A, [{ key: 'k', outcome: '"done"' }]);
      await first.usage.reserve(PROJECT_A, '2030-01', 3, 10);
      const secret = await first.secrets.getOrCreate('s', new Uint8Array([9, 9]));
      const signing = { projectId: PROJECT_A, secret: new Uint8Array([7, 7, 7]), createdAt: T0, retiresAt: null };
      await first.projects.rotateSigningSecret(signing, T0);
      const budget = await first.budgets.putLimits(PROJECT_A, 'flow_key', 'customer:1', { rate: { limit: 5, periodMs: 1_000, burst: 5 }, concurrency: 2, adaptive: true }, T0);
      await first.close();

      const second = await storage.open();
      try {
        expect(await second.projects.getProject(PROJECT_A)).toStrictEqual(project);
        expect(await second.projects.getApiKey('key_1')).toStrictEqual(key);
        expect(await second.requests.get(PROJECT_A, r.id)).toStrictEqual(updated);
        expect(await second.requests.listAttempts(PROJECT_A, r.id)).toStrictEqual(attempts);
        expect((await second.idempotency.get(PROJECT_A, 'k', T0))?.outcome).toBe('"done"');
        expect(await second.usage.used(PROJECT_A, '2030-01')).toBe(3);
        expect(await second.secrets.getOrCreate('s', new Uint8Array([0]))).toStrictEqual(secret);
        expect(await second.projects.activeSigningSecrets(PROJECT_A, T0)).toStrictEqual([signing]);
        expect(await second.budgets.get(PROJECT_A, 'flow_key', 'customer:1')).toStrictEqual(budget);
      } finally {
        await second.close();
      }
    });

    it('finishes writes issued before close and refuses writes issued after', async () => {
      const storage = await makeStorage();
      const first = await storage.open();
      const requests = Array.from({ length: 50 }, () => aRequest());
      const inFlight = requests.map((r) => first.requests.insertMany([r]));
      await first.close();
      await expect(Promise.all(inFlight)).resolves.toBeDefined();
      await expect(first.requests.insertMany([aRequest()])).rejects.toThrow();

      const second = await storage.open();
      try {
        for (const r of requests) expect((await second.requests.get(PROJECT_A, r.id))?.id).toBe(r.id);
      } finally {
        await second.close();
      }
    });
  });
}
