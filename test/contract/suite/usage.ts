import { describe, expect, it } from 'vitest';
import { PROJECT_A, PROJECT_B, useBackend, type BackendFactory } from './harness.js';

const MARCH = '2030-03';
const APRIL = '2030-04';

/** Conditional reservation of monthly usage: UsageStore. */
export function describeUsageStoreContract(makeBackend: BackendFactory): void {
  describe('UsageStore', () => {
    const backend = useBackend(makeBackend);
    const store = () => backend().usage;

    it('reserves while the limit allows, up to exactly the limit', async () => {
      expect(await store().used(PROJECT_A, MARCH)).toBe(0);
      expect(await store().reserve(PROJECT_A, MARCH, 7, 10)).toBe(true);
      expect(await store().reserve(PROJECT_A, MARCH, 4, 10)).toBe(false);
      expect(await store().used(PROJECT_A, MARCH)).toBe(7);
      expect(await store().reserve(PROJECT_A, MARCH, 3, 10)).toBe(true);
      expect(await store().used(PROJECT_A, MARCH)).toBe(10);
    });

    it('refuses a first reservation larger than the limit', async () => {
      expect(await store().reserve(PROJECT_A, MARCH, 11, 10)).toBe(false);
      expect(await store().used(PROJECT_A, MARCH)).toBe(0);
    });

    it('counts each project and period on its own', async () => {
      await store().reserve(PROJECT_A, MARCH, 5, 5);
      expect(await store().reserve(PROJECT_A, APRIL, 5, 5)).toBe(true);
      expect(await store().reserve(PROJECT_B, MARCH, 5, 5)).toBe(true);
      expect(await store().used(PROJECT_A, MARCH)).toBe(5);
    });

    it('gives reservations back without going below zero', async () => {
      await store().reserve(PROJECT_A, MARCH, 5, 10);
      await store().release(PROJECT_A, MARCH, 2);
      expect(await store().used(PROJECT_A, MARCH)).toBe(3);
      await store().release(PROJECT_A, MARCH, 9);
      expect(await store().used(PROJECT_A, MARCH)).toBe(0);
      await store().release(PROJECT_B, APRIL, 1);
      expect(await store().used(PROJECT_B, APRIL)).toBe(0);
    });

    it('never overspends under concurrent reservations', async () => {
      const ones = await Promise.all(Array.from({ length: 100 }, () => store().reserve(PROJECT_A, MARCH, 1, 50)));
      expect(ones.filter(Boolean)).toHaveLength(50);
      expect(await store().used(PROJECT_A, MARCH)).toBe(50);

      const threes = await Promise.all(Array.from({ length: 30 }, () => store().reserve(PROJECT_B, MARCH, 3, 50)));
      expect(threes.filter(Boolean)).toHaveLength(16);
      expect(await store().used(PROJECT_B, MARCH)).toBe(48);
    });
  });
}
