import { describe, expect, it } from 'vitest';
import {
  BACKOFF_BASE_MS, BACKOFF_CAP_MS, backoffMs, isRetriedAnswer, RETRY_AFTER_CAP_MS, retryAfterMs, retryDelayMs,
} from '../../sdk/src/client/retry-policy.js';

const NOW = Date.parse('2030-01-01T00:00:00Z');

describe('SDK backoff', () => {
  it('draws below a ceiling of 500 ms doubling per retry up to 8 s (full jitter)', () => {
    const ceilings = [500, 1000, 2000, 4000, 8000, 8000, 8000];
    ceilings.forEach((ceiling, retry) => {
      expect(backoffMs(retry, () => 0)).toBe(0);
      expect(backoffMs(retry, () => 0.5)).toBe(ceiling / 2);
      expect(backoffMs(retry, () => 0.999999)).toBe(ceiling - 1);
    });
    expect(BACKOFF_BASE_MS).toBe(500);
    expect(BACKOFF_CAP_MS).toBe(8000);
    expect(backoffMs(60, () => 0.999999)).toBe(BACKOFF_CAP_MS - 1);
  });

  it('stays within its bounds with the real random source', () => {
    for (let i = 0; i < 1000; i++) {
      const wait = backoffMs(i % 6);
      expect(wait).toBeGreaterThanOrEqual(0);
      expect(wait).toBeLessThan(Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (i % 6)));
    }
  });
});

describe('SDK Retry-After', () => {
  it('reads delay-seconds', () => {
    expect(retryAfterMs('0', NOW)).toBe(0);
    expect(retryAfterMs('86400', NOW)).toBe(RETRY_AFTER_CAP_MS);
    expect(retryAfterMs('86400', NOW, Number.POSITIVE_INFINITY)).toBe(86_400_000);
    expect(retryAfterMs('1', NOW)).toBe(1000);
    expect(retryAfterMs(' 30 ', NOW)).toBe(30_000);
  });

  it('reads the three HTTP date forms as the time left, a past date as no wait', () => {
    expect(retryAfterMs('Tue, 01 Jan 2030 00:00:05 GMT', NOW)).toBe(5000);
    expect(retryAfterMs('Tuesday, 01-Jan-30 00:00:07 GMT', NOW)).toBe(7000);
    expect(retryAfterMs('Tue Jan  1 00:00:09 2030', NOW)).toBe(9000);
    expect(retryAfterMs('Mon, 31 Dec 2029 23:59:00 GMT', NOW)).toBe(0);
  });

  it('caps a long wait at 60 s', () => {
    expect(RETRY_AFTER_CAP_MS).toBe(60_000);
    expect(retryAfterMs('61', NOW)).toBe(60_000);
    expect(retryAfterMs('99999999999999999999', NOW)).toBe(60_000);
    expect(retryAfterMs('Wed, 02 Jan 2030 00:00:00 GMT', NOW)).toBe(60_000);
  });

  it('ignores an absent or unreadable value', () => {
    for (const value of [null, '', 'soon', '-1', '1.5', '5 May', '2030-01-01T00:00:05Z', 'Tue, 01 Jan 2030 00:00:05 GMT extra', '0x10']) {
      expect(retryAfterMs(value, NOW)).toBeNull();
    }
  });

  it('decides the wait: Retry-After when readable, else the backoff', () => {
    expect(retryDelayMs(0, '3', NOW, () => 0.5)).toBe(3000);
    expect(retryDelayMs(1, 'later', NOW, () => 0.5)).toBe(500);
    expect(retryDelayMs(2, null, NOW, () => 0.5)).toBe(1000);
  });
});

describe('SDK retried statuses', () => {
  it('retries 429, 502, 503 and 504 and nothing else', () => {
    const retried = [];
    for (let status = 100; status < 600; status++) if (isRetriedAnswer(status, null)) retried.push(status);
    expect(retried).toEqual([429, 502, 503, 504]);
  });

  it('takes an exhausted allowance as final and a key still in use as worth waiting for', () => {
    expect(isRetriedAnswer(429, 'MONTHLY_ALLOWANCE_EXCEEDED')).toBe(false);
    expect(isRetriedAnswer(429, 'SCHEDULE_ALLOWANCE_EXCEEDED')).toBe(false);
    expect(isRetriedAnswer(409, 'IDEMPOTENCY_KEY_IN_USE')).toBe(true);
    expect(isRetriedAnswer(409, 'IDEMPOTENCY_KEY_REUSED')).toBe(false);
    expect(isRetriedAnswer(503, 'STORAGE_UNAVAILABLE')).toBe(true);
  });
});
