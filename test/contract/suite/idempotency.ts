import { describe, expect, it } from 'vitest';
import type { IdempotencyClaim } from '../../../src/ports/idempotency.js';
import { PROJECT_A, PROJECT_B, T0, useBackend, type BackendFactory } from './harness.js';

const DAY = 86_400_000;

function aClaim(key: string, overrides: Partial<IdempotencyClaim> = {}): IdempotencyClaim {
  return { projectId: PROJECT_A, key, fingerprint: 'fp-1', claimedAt: T0, expiresAt: T0 + DAY, plan: null, ...overrides };
}

/** Claims, take-overs, outcomes and expiry of IdempotencyStore. */
export function describeIdempotencyStoreContract(makeBackend: BackendFactory): void {
  describe('IdempotencyStore', () => {
    const backend = useBackend(makeBackend);
    const store = () => backend().idempotency;

    it('claims a free key once and then reports the record holding it', async () => {
      expect(await store().claimAll([aClaim('k1')], T0)).toEqual([{ claimed: true }]);
      const record = { projectId: PROJECT_A, key: 'k1', fingerprint: 'fp-1', outcome: null, claimedAt: T0, expiresAt: T0 + DAY, plan: null };
      expect(await store().get(PROJECT_A, 'k1', T0)).toStrictEqual(record);
      expect(await store().claimAll([aClaim('k1', { fingerprint: 'fp-2', claimedAt: T0 + 5 })], T0 + 5)).toStrictEqual([
        { claimed: false, existing: record },
      ]);
    });

    it('claims all keys or none, reporting which ones are held', async () => {
      await store().claimAll([aClaim('held')], T0);
      const results = await store().claimAll([aClaim('x'), aClaim('held', { fingerprint: 'fp-9' }), aClaim('y')], T0);
      expect(results.map((r) => r.claimed)).toEqual([true, false, true]);
      expect(results[1]).toMatchObject({ claimed: false, existing: { key: 'held', fingerprint: 'fp-1' } });
      expect(await store().get(PROJECT_A, 'x', T0)).toBeNull();
      expect(await store().get(PROJECT_A, 'y', T0)).toBeNull();
    });

    it('scopes keys by project', async () => {
      expect(await store().claimAll([aClaim('shared')], T0)).toEqual([{ claimed: true }]);
      expect(await store().claimAll([aClaim('shared', { projectId: PROJECT_B })], T0)).toEqual([{ claimed: true }]);
      expect(await store().get(PROJECT_B, 'absent', T0)).toBeNull();
    });

    it('refuses the same key twice in one call', async () => {
      await expect(store().claimAll([aClaim('twice'), aClaim('twice')], T0)).rejects.toThrow();
    });

    it('lets exactly one of many concurrent claims of a key win', async () => {
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => store().claimAll([aClaim('race', { fingerprint: `fp-${i}` })], T0)),
      );
      const winners = results.flatMap((r, i) => (r[0]?.claimed ? [i] : []));
      expect(winners).toHaveLength(1);
      const record = await store().get(PROJECT_A, 'race', T0);
      expect(record?.fingerprint).toBe(`fp-${winners[0]}`);
      for (const r of results) if (r[0] && !r[0].claimed) expect(r[0].existing.fingerprint).toBe(record?.fingerprint);
    });

    it('keeps concurrent overlapping multi-key claims all-or-nothing', async () => {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => store().claimAll([aClaim(`own-${i}`), aClaim('common')], T0)),
      );
      const winners = results.flatMap((r, i) => (r.every((x) => x.claimed) ? [i] : []));
      expect(winners).toHaveLength(1);
      for (let i = 0; i < 20; i++) {
        const own = await store().get(PROJECT_A, `own-${i}`, T0);
        expect(own !== null).toBe(i === winners[0]);
      }
    });

    it('treats an expired record as absent and replaces it on claim', async () => {
      await store().claimAll([aClaim('old', { expiresAt: T0 + 1_000 })], T0);
      await store().completeAll(PROJECT_A, [{ key: 'old', outcome: '{"id":"req_1"}' }]);
      expect((await store().get(PROJECT_A, 'old', T0 + 999))?.outcome).toBe('{"id":"req_1"}');
      expect(await store().get(PROJECT_A, 'old', T0 + 1_000)).toBeNull();

      const later = aClaim('old', { fingerprint: 'fp-new', claimedAt: T0 + 2_000, expiresAt: T0 + 2_000 + DAY });
      expect(await store().claimAll([later], T0 + 2_000)).toEqual([{ claimed: true }]);
      expect(await store().get(PROJECT_A, 'old', T0 + 2_000)).toMatchObject({ fingerprint: 'fp-new', outcome: null, claimedAt: T0 + 2_000 });
    });

    it('stores outcomes, keeping the first one', async () => {
      await store().claimAll([aClaim('a'), aClaim('b')], T0);
      await store().completeAll(PROJECT_A, [
        { key: 'a', outcome: '{"n":1}' },
        { key: 'b', outcome: '{"n":2}' },
      ]);
      await store().completeAll(PROJECT_A, [{ key: 'a', outcome: '{"n":3}' }]);
      expect((await store().get(PROJECT_A, 'a', T0))?.outcome).toBe('{"n":1}');
      expect((await store().get(PROJECT_A, 'b', T0))?.outcome).toBe('{"n":2}');
    });

    it('releases only claims without an outcome, so their keys can be claimed again', async () => {
      await store().claimAll([aClaim('done'), aClaim('open')], T0);
      await store().completeAll(PROJECT_A, [{ key: 'done', outcome: '{}' }]);
      await store().releaseAll(PROJECT_A, ['done', 'open', 'never-claimed']);

      expect((await store().get(PROJECT_A, 'done', T0))?.outcome).toBe('{}');
      expect(await store().get(PROJECT_A, 'open', T0)).toBeNull();
      expect(await store().claimAll([aClaim('open', { fingerprint: 'fp-2' })], T0)).toEqual([{ claimed: true }]);
    });

    it('takes over only a stale claim without an outcome', async () => {
      await store().claimAll([aClaim('slow'), aClaim('finished')], T0);
      await store().completeAll(PROJECT_A, [{ key: 'finished', outcome: '{}' }]);
      const retaker = (key: string) => aClaim(key, { claimedAt: T0 + 60_000, expiresAt: T0 + 60_000 + DAY });

      expect(await store().takeOver(retaker('slow'), T0)).toBe(false);
      expect(await store().takeOver(retaker('finished'), T0 + 1)).toBe(false);
      expect(await store().takeOver(retaker('absent'), T0 + 1)).toBe(false);
      expect(await store().takeOver(retaker('slow'), T0 + 1)).toBe(true);
      expect(await store().get(PROJECT_A, 'slow', T0 + 60_000)).toMatchObject({ claimedAt: T0 + 60_000, outcome: null });
      expect(await store().takeOver(retaker('slow'), T0 + 1)).toBe(false);
    });

    it('keeps the plan of a claim, and the plan a take-over brings', async () => {
      await store().claimAll([aClaim('planned', { plan: '{"ids":["req_1"]}' })], T0);
      expect((await store().get(PROJECT_A, 'planned', T0))?.plan).toBe('{"ids":["req_1"]}');
      const retaker = aClaim('planned', { claimedAt: T0 + 60_000, plan: '{"ids":["req_2"]}' });
      expect(await store().takeOver(retaker, T0 + 1)).toBe(true);
      expect(await store().get(PROJECT_A, 'planned', T0 + 60_000)).toMatchObject({ claimedAt: T0 + 60_000, plan: '{"ids":["req_2"]}' });
    });

    it('leaves an abandoned claim and its plan open to take-over at once, and completed records as they are', async () => {
      await store().claimAll([aClaim('dropped', { plan: 'p' }), aClaim('done')], T0);
      await store().completeAll(PROJECT_A, [{ key: 'done', outcome: '{}' }]);
      await store().abandonAll(PROJECT_A, ['dropped', 'done', 'never-claimed']);

      expect(await store().get(PROJECT_A, 'dropped', T0)).toMatchObject({ fingerprint: 'fp-1', outcome: null, claimedAt: 0, plan: 'p' });
      expect(await store().get(PROJECT_A, 'done', T0)).toMatchObject({ outcome: '{}', claimedAt: T0 });
      expect(await store().get(PROJECT_A, 'never-claimed', T0)).toBeNull();
      expect(await store().takeOver(aClaim('dropped', { claimedAt: T0 + 1, plan: 'p' }), T0)).toBe(true);
    });

    it('lets exactly one of many concurrent take-overs win', async () => {
      await store().claimAll([aClaim('stale')], T0);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => store().takeOver(aClaim('stale', { claimedAt: T0 + 60_000 + i }), T0 + 30_000)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
    });
  });
}
