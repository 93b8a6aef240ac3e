import { describe, expect, it } from 'vitest';
import { formatDuration, MAX_BURST, parsePeriod, validateBudgetLimits, validateBudgetName } from '../../src/domain/validation/index.js';
import { expectFerryError } from './expect-ferry-error.js';

describe('validateBudgetLimits', () => {
  it('reads absent and null as no limit, and adaptive as on unless turned off', () => {
    expect(validateBudgetLimits({})).toEqual({ rate: null, concurrency: null, adaptive: true });
    expect(validateBudgetLimits({ rate: null, concurrency: null, adaptive: null })).toEqual({ rate: null, concurrency: null, adaptive: true });
    expect(validateBudgetLimits({ adaptive: false })).toEqual({ rate: null, concurrency: null, adaptive: false });
  });

  it('takes a rate with its burst, the limit when absent', () => {
    expect(validateBudgetLimits({ rate: { limit: 10, period: '1s' } }).rate).toEqual({ limit: 10, periodMs: 1_000, burst: 10 });
    expect(validateBudgetLimits({ rate: { limit: 1_000, period: '1h', burst: 1 } }).rate).toEqual({ limit: 1_000, periodMs: 3_600_000, burst: 1 });
    expect(validateBudgetLimits({ rate: { limit: 1, period: '90s', burst: MAX_BURST } }).rate).toEqual({ limit: 1, periodMs: 90_000, burst: MAX_BURST });
  });

  it('takes concurrency from 1 to 10,000', () => {
    expect(validateBudgetLimits({ concurrency: 1 }).concurrency).toBe(1);
    expect(validateBudgetLimits({ concurrency: 10_000 }).concurrency).toBe(10_000);
  });

  it.each([
    ['rate.limit 0', { rate: { limit: 0, period: '1s' } }, 'INVALID_BUDGET', 'rate.limit'],
    ['a negative rate.limit', { rate: { limit: -1, period: '1s' } }, 'INVALID_BUDGET', 'rate.limit'],
    ['a fractional rate.limit', { rate: { limit: 2.5, period: '1s' } }, 'INVALID_BUDGET', 'rate.limit'],
    ['rate.limit past a million', { rate: { limit: 1_000_001, period: '1s' } }, 'INVALID_BUDGET', 'rate.limit'],
    ['no rate.limit', { rate: { period: '1s' } }, 'MISSING_FIELD', 'rate.limit'],
    ['no rate.period', { rate: { limit: 1 } }, 'MISSING_FIELD', 'rate.period'],
    ['period 2h', { rate: { limit: 1, period: '2h' } }, 'INVALID_BUDGET', 'rate.period'],
    ['period 61m', { rate: { limit: 1, period: '61m' } }, 'INVALID_BUDGET', 'rate.period'],
    ['period 1d', { rate: { limit: 1, period: '1d' } }, 'INVALID_BUDGET', 'rate.period'],
    ['period 500ms', { rate: { limit: 1, period: '500ms' } }, 'INVALID_BUDGET', 'rate.period'],
    ['period 0s', { rate: { limit: 1, period: '0s' } }, 'INVALID_BUDGET', 'rate.period'],
    ['period 1.5s', { rate: { limit: 1, period: '1.5s' } }, 'INVALID_BUDGET', 'rate.period'],
    ['period 01s', { rate: { limit: 1, period: '01s' } }, 'INVALID_BUDGET', 'rate.period'],
    ['burst 0', { rate: { limit: 1, period: '1s', burst: 0 } }, 'INVALID_BUDGET', 'rate.burst'],
    ['burst past the limit of limits', { rate: { limit: 1, period: '1s', burst: MAX_BURST + 1 } }, 'INVALID_BUDGET', 'rate.burst'],
    ['concurrency 0', { concurrency: 0 }, 'INVALID_BUDGET', 'concurrency'],
    ['concurrency 10,001', { concurrency: 10_001 }, 'INVALID_BUDGET', 'concurrency'],
    ['a fractional concurrency', { concurrency: 1.5 }, 'INVALID_BUDGET', 'concurrency'],
  ] as const)('refuses %s, naming the field', (_what, input, code, field) => {
    expectFerryError(() => validateBudgetLimits(input as never), code, field);
  });

  it('takes periods from 1s to 1h in any unit', () => {
    expect(parsePeriod('1s')).toBe(1_000);
    expect(parsePeriod('3600s')).toBe(3_600_000);
    expect(parsePeriod('60m')).toBe(3_600_000);
    expect(parsePeriod('1h')).toBe(3_600_000);
  });
});

describe('formatDuration', () => {
  it.each([
    [1_000, '1s'],
    [90_000, '90s'],
    [60_000, '1m'],
    [120_000, '2m'],
    [3_600_000, '1h'],
    [5_400_000, '90m'],
    [86_400_000, '1d'],
  ])('writes %i ms as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe('validateBudgetName', () => {
  it('checks a queue by the queue rule and a key by the key rule', () => {
    expect(validateBudgetName('queue', 'billing.eu-1')).toBe('billing.eu-1');
    expect(validateBudgetName('flow_key', 'customer:42')).toBe('customer:42');
    expectFerryError(() => validateBudgetName('queue', 'customer:42'), 'INVALID_QUEUE', 'name');
    expectFerryError(() => validateBudgetName('queue', 'q'.repeat(65)), 'INVALID_QUEUE', 'name');
    expectFerryError(() => validateBudgetName('flow_key', 'a b'), 'INVALID_FLOW_KEY', 'key');
    expectFerryError(() => validateBudgetName('flow_key', ''), 'INVALID_FLOW_KEY', 'key');
  });
});
