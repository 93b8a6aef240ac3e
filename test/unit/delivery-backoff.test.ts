import { describe, expect, it } from 'vitest';
import { backoffDelayMs } from '../../src/domain/delivery/backoff.js';

const CFG = { baseMs: 1000, capMs: 3_600_000 };
const ALMOST_ONE = 1 - Number.EPSILON / 2;
const low = () => 0;
const high = () => ALMOST_ONE;

describe('backoffDelayMs', () => {
  it('doubles the ceiling with every failed attempt', () => {
    expect([1, 2, 3, 4, 5].map((n) => backoffDelayMs(n, CFG, high))).toEqual([1000, 2000, 4000, 8000, 16_000]);
  });

  it('guarantees half the ceiling with random = 0', () => {
    expect([1, 2, 3, 4, 5].map((n) => backoffDelayMs(n, CFG, low))).toEqual([500, 1000, 2000, 4000, 8000]);
  });

  it('stays within [ceiling/2, ceiling] and is a whole number of milliseconds', () => {
    for (let n = 1; n <= 30; n++) {
      const ceiling = Math.min(CFG.capMs, CFG.baseMs * 2 ** (n - 1));
      for (const r of [0, 0.1, 0.3333, 0.5, 0.77, ALMOST_ONE]) {
        const d = backoffDelayMs(n, CFG, () => r);
        expect(Number.isInteger(d)).toBe(true);
        expect(d).toBeGreaterThanOrEqual(ceiling / 2);
        expect(d).toBeLessThanOrEqual(ceiling);
      }
    }
  });

  it('applies the jitter linearly', () => {
    expect(backoffDelayMs(1, CFG, () => 0.5)).toBe(750);
    expect(backoffDelayMs(3, CFG, () => 0.25)).toBe(2500);
    expect(backoffDelayMs(1, { baseMs: 3, capMs: 100 }, () => 0.5)).toBe(2);
  });

  it('never exceeds the cap', () => {
    // After 12 failures the ceiling is 1 s × 2^11 = 2048 s; after 13 it would be 4096 s, above one hour.
    expect(backoffDelayMs(12, CFG, high)).toBe(2_048_000);
    expect(backoffDelayMs(13, CFG, high)).toBe(3_600_000);
    expect(backoffDelayMs(13, CFG, low)).toBe(1_800_000);
    expect(backoffDelayMs(2, { baseMs: 5000, capMs: 3000 }, high)).toBe(3000);
  });

  it('is finite and capped for huge attempt numbers', () => {
    for (const n of [64, 1024, 1025, 5000, Number.MAX_SAFE_INTEGER, Infinity]) {
      expect(backoffDelayMs(n, CFG, high)).toBe(3_600_000);
      expect(backoffDelayMs(n, CFG, low)).toBe(1_800_000);
    }
    expect(backoffDelayMs(5000, { baseMs: 0, capMs: 1000 }, high)).toBe(0);
  });

  it('treats attempt numbers below one as the first', () => {
    expect(backoffDelayMs(0, CFG, high)).toBe(1000);
    expect(backoffDelayMs(-3, CFG, high)).toBe(1000);
  });

  it('keeps the result in bounds when the random source misbehaves', () => {
    expect(backoffDelayMs(1, CFG, () => 1)).toBe(1000);
    expect(backoffDelayMs(1, CFG, () => 7)).toBe(1000);
    expect(backoffDelayMs(1, CFG, () => -1)).toBe(500);
    expect(backoffDelayMs(1, CFG, () => Number.NaN)).toBe(500);
  });

  it('rejects a configuration that cannot give a finite delay', () => {
    expect(() => backoffDelayMs(1, { baseMs: -1, capMs: 10 }, low)).toThrow(RangeError);
    expect(() => backoffDelayMs(1, { baseMs: 1, capMs: Infinity }, low)).toThrow(RangeError);
    expect(() => backoffDelayMs(1, { baseMs: Number.NaN, capMs: 10 }, low)).toThrow(RangeError);
    expect(() => backoffDelayMs(Number.NaN, CFG, low)).toThrow(RangeError);
  });
});
