import { describe, expect, it } from 'vitest';
import type { AttemptOutcome } from '../../src/domain/delivery/outcome.js';
import { type AttemptInput, DEFAULT_RETRY_CONFIG, decideAttempt } from '../../src/domain/delivery/policy.js';

const T = Date.UTC(2026, 0, 15, 12, 0, 0);
const ALMOST_ONE = 1 - Number.EPSILON / 2;

function decide(outcome: AttemptOutcome, over: Partial<AttemptInput> = {}) {
  return decideAttempt({ outcome, attemptNumber: 1, maxAttempts: 3, completedAt: T, config: DEFAULT_RETRY_CONFIG, random: () => 0, ...over });
}

const response = (status: number, retryAfter: string | null = null): AttemptOutcome => ({ kind: 'response', status, retryAfter });

describe('responses', () => {
  it.each([200, 201, 204, 299])('%i succeeds the request', (status) => {
    expect(decide(response(status))).toEqual({ attemptStatus: 'succeeded', responseStatusCode: status, errorMessage: null, retry: null, requestStatus: 'succeeded', finalReason: null, response: { headers: [], body: null, bodyTruncated: false } });
  });

  it('succeeds even on the last attempt and ignores Retry-After', () => {
    expect(decide(response(200, '120'), { attemptNumber: 3, maxAttempts: 3 })).toMatchObject({ requestStatus: 'succeeded', retry: null });
  });

  it.each([408, 425, 429, 500, 501, 502, 503, 504, 511, 599])('%i is retried', (status) => {
    const d = decide(response(status));
    expect(d).toMatchObject({ attemptStatus: 'failed', responseStatusCode: status, errorMessage: `HTTP ${status}`, requestStatus: 'queued' });
    expect(d.retry?.reason).toBe(`http_${status}`);
  });

  it.each([400, 401, 403, 404, 405, 409, 410, 413, 415, 422, 426, 431, 451, 499])('%i fails the request at once', (status) => {
    expect(decide(response(status))).toEqual({ attemptStatus: 'failed', responseStatusCode: status, errorMessage: `HTTP ${status}`, retry: null, requestStatus: 'failed', finalReason: 'final_status', response: { headers: [], body: null, bodyTruncated: false } });
  });

  it.each([300, 301, 302, 303, 304, 307, 308, 399])('%i fails the request at once, since redirects are not followed', (status) => {
    expect(decide(response(status))).toEqual({
      attemptStatus: 'failed',
      responseStatusCode: status,
      errorMessage: `HTTP ${status} (redirects are not followed)`,
      retry: null,
      requestStatus: 'failed',
      finalReason: 'final_status',
      response: { headers: [], body: null, bodyTruncated: false },
    });
  });

  it.each([100, 101, 103, 199])('%i as a final response fails the request', (status) => {
    const d = decide(response(status));
    expect(d).toMatchObject({ attemptStatus: 'failed', responseStatusCode: status, retry: null, requestStatus: 'failed' });
    expect(d.errorMessage).toBe(`HTTP ${status} (unexpected informational status as final response)`);
  });

  it('fails at once on statuses beyond 5xx', () => {
    expect(decide(response(600))).toMatchObject({ attemptStatus: 'failed', retry: null, requestStatus: 'failed', errorMessage: 'HTTP 600' });
  });

  it('rejects something that is not a status code', () => {
    for (const status of [99, 1000, 200.5, Number.NaN]) expect(() => decide(response(status))).toThrow(RangeError);
  });
});

describe('transport outcomes', () => {
  it.each([
    ['connect', 'timed out connecting to the destination'],
    ['headers', 'timed out waiting for response headers'],
    ['body', 'timed out reading the response body'],
    ['total', 'timed out: the attempt exceeded its time limit'],
  ] as const)('a %s timeout is retried', (phase, message) => {
    const d = decide({ kind: 'timeout', phase });
    expect(d).toMatchObject({ attemptStatus: 'timed_out', responseStatusCode: null, errorMessage: message, requestStatus: 'queued' });
    expect(d.retry).toMatchObject({ reason: `timeout_${phase}`, retryAfterStatus: 'absent', delaySource: 'backoff' });
  });

  it('quotes the time limit in timeout messages when known', () => {
    expect(decide({ kind: 'timeout', phase: 'headers' }, { timeoutSeconds: 50 }).errorMessage).toBe('timed out waiting for response headers after 50 s');
    expect(decide({ kind: 'timeout', phase: 'total' }, { timeoutSeconds: 300 }).errorMessage).toBe('timed out: the attempt exceeded its time limit after 300 s');
  });

  it.each([
    ['connection_error', 'connection failed (ECONNREFUSED): connect ECONNREFUSED 203.0.113.7:443'],
    ['dns_error', 'DNS lookup failed (ENOTFOUND): getaddrinfo ENOTFOUND 203.0.113.7:443'.replace('203.0.113.7:443', 'example.invalid')],
    ['tls_error', 'TLS handshake failed (CERT_HAS_EXPIRED): certificate has expired'],
  ] as const)('a %s is retried', (kind, message) => {
    const [code, detail] = message.slice(message.indexOf('(') + 1).split('): ') as [string, string];
    const d = decide({ kind, code, message: detail });
    expect(d).toMatchObject({ attemptStatus: 'errored', responseStatusCode: null, errorMessage: message, requestStatus: 'queued' });
    expect(d.retry).toMatchObject({ reason: kind, retryAfterStatus: 'absent', retryAfterRaw: '', delaySource: 'backoff' });
  });

  it('words network errors without an empty code or message', () => {
    expect(decide({ kind: 'connection_error', code: '', message: 'socket hang up' }).errorMessage).toBe('connection failed: socket hang up');
    expect(decide({ kind: 'connection_error', code: 'ECONNRESET', message: '' }).errorMessage).toBe('connection failed (ECONNRESET)');
  });

  it('bounds and escapes transport messages', () => {
    const d = decide({ kind: 'tls_error', code: 'E\nX', message: `${'m'.repeat(500)}\u0000` });
    expect(d.errorMessage).toMatch(/^TLS handshake failed \(E\\x0AX\): m+$/);
    expect(d.errorMessage?.length).toBeLessThanOrEqual(260);
  });

  it('never retries a destination that is not public', () => {
    expect(decide({ kind: 'blocked', message: 'resolved to 10.0.0.8' })).toEqual({
      attemptStatus: 'errored',
      responseStatusCode: null,
      errorMessage: 'destination is not a public address: resolved to 10.0.0.8',
      retry: null,
      requestStatus: 'failed',
      finalReason: 'final_status',
      response: null,
    });
  });

  it('refuses an aborted attempt, which is handed back rather than decided', () => {
    expect(() => decide({ kind: 'aborted' })).toThrow(/aborted/);
  });
});

describe('attempt budget', () => {
  const retryable: AttemptOutcome[] = [
    response(503, '5'),
    response(429),
    { kind: 'timeout', phase: 'connect' },
    { kind: 'dns_error', code: 'EAI_AGAIN', message: 'temporary failure' },
    { kind: 'connection_error', code: 'ECONNRESET', message: 'reset' },
    { kind: 'tls_error', code: 'ERR_SSL', message: 'bad record' },
  ];

  it.each(retryable)('maxAttempts 1 never retries %j', (outcome) => {
    expect(decide(outcome, { attemptNumber: 1, maxAttempts: 1 })).toMatchObject({ retry: null, requestStatus: 'failed' });
  });

  it('retries until the last allowed attempt, which fails the request', () => {
    const outcome = response(500);
    for (let n = 1; n < 20; n++) expect(decide(outcome, { attemptNumber: n, maxAttempts: 20 }).requestStatus).toBe('queued');
    expect(decide(outcome, { attemptNumber: 20, maxAttempts: 20 })).toEqual({
      attemptStatus: 'failed',
      responseStatusCode: 500,
      errorMessage: 'HTTP 500',
      retry: null,
      requestStatus: 'failed',
      finalReason: 'attempts_exhausted',
      response: { headers: [], body: null, bodyTruncated: false },
    });
  });

  it('treats an attempt past the budget as the last one', () => {
    expect(decide(response(500), { attemptNumber: 4, maxAttempts: 3 })).toMatchObject({ retry: null, requestStatus: 'failed' });
  });

  it('keeps the attempt status on the last attempt', () => {
    expect(decide({ kind: 'timeout', phase: 'body' }, { attemptNumber: 3 })).toMatchObject({ attemptStatus: 'timed_out', retry: null, requestStatus: 'failed' });
  });

  it('rejects impossible attempt numbers and budgets', () => {
    expect(() => decide(response(500), { attemptNumber: 0 })).toThrow(RangeError);
    expect(() => decide(response(500), { attemptNumber: 1.5 })).toThrow(RangeError);
    expect(() => decide(response(500), { maxAttempts: 0 })).toThrow(RangeError);
    expect(() => decide(response(500), { completedAt: Number.NaN })).toThrow(RangeError);
    expect(() => decide(response(500), { config: { ...DEFAULT_RETRY_CONFIG, retryAfterCapMs: -1 } })).toThrow(RangeError);
  });
});

describe('retry delay', () => {
  it('fills every field of the retry decision from the backoff', () => {
    expect(decide(response(500), { attemptNumber: 2, random: () => 0.5 }).retry).toEqual({
      reason: 'http_500',
      retryAfterRaw: '',
      retryAfterTruncated: false,
      retryAfterEscaped: false,
      retryAfterStatus: 'absent',
      retryAfterDelayMs: 0,
      backoffDelayMs: 1500,
      selectedDelayMs: 1500,
      delaySource: 'backoff',
      nextAttemptAt: T + 1500,
    });
  });

  it('fills every field of the retry decision from Retry-After', () => {
    expect(decide(response(503, '120'), { attemptNumber: 2, random: () => 0.5 }).retry).toEqual({
      reason: 'http_503',
      retryAfterRaw: '120',
      retryAfterTruncated: false,
      retryAfterEscaped: false,
      retryAfterStatus: 'valid',
      retryAfterDelayMs: 120_000,
      backoffDelayMs: 1500,
      selectedDelayMs: 120_000,
      delaySource: 'retry_after',
      nextAttemptAt: T + 120_000,
    });
  });

  it('counts the failed attempt in the backoff exponent', () => {
    const delays = [1, 2, 3, 4].map((n) => decide(response(500), { attemptNumber: n, maxAttempts: 10, random: () => ALMOST_ONE }).retry?.backoffDelayMs);
    expect(delays).toEqual([1000, 2000, 4000, 8000]);
  });

  it('caps the backoff at an hour by default', () => {
    const r = decide(response(502), { attemptNumber: 19, maxAttempts: 20, random: () => ALMOST_ONE }).retry;
    expect(r).toMatchObject({ backoffDelayMs: 3_600_000, selectedDelayMs: 3_600_000, nextAttemptAt: T + 3_600_000 });
  });

  it('honours Retry-After on 429 and 503, also when shorter than the backoff', () => {
    expect(decide(response(429, '1'), { attemptNumber: 10, maxAttempts: 20 }).retry).toMatchObject({
      retryAfterDelayMs: 1000,
      backoffDelayMs: 256_000,
      selectedDelayMs: 1000,
      delaySource: 'retry_after',
    });
    expect(decide(response(503, '0')).retry).toMatchObject({ selectedDelayMs: 0, delaySource: 'retry_after', nextAttemptAt: T });
  });

  it('honours an HTTP-date Retry-After, and a past date means now', () => {
    expect(decide(response(503, 'Thu, 15 Jan 2026 12:10:00 GMT')).retry).toMatchObject({ selectedDelayMs: 600_000, nextAttemptAt: T + 600_000, delaySource: 'retry_after' });
    expect(decide(response(429, 'Sun, 06 Nov 1994 08:49:37 GMT')).retry).toMatchObject({ retryAfterStatus: 'valid', selectedDelayMs: 0, nextAttemptAt: T });
  });

  it.each([408, 425, 500, 502, 504])('records but does not use Retry-After on %i', (status) => {
    expect(decide(response(status, '120')).retry).toMatchObject({
      retryAfterRaw: '120',
      retryAfterStatus: 'valid',
      retryAfterDelayMs: 120_000,
      backoffDelayMs: 500,
      selectedDelayMs: 500,
      delaySource: 'backoff',
      nextAttemptAt: T + 500,
    });
  });

  it('falls back to the backoff on an invalid Retry-After, recording it escaped and bounded', () => {
    const r = decide(response(429, `soon\u0007${'!'.repeat(200)}`)).retry;
    expect(r).toMatchObject({ retryAfterStatus: 'invalid', retryAfterDelayMs: 0, retryAfterEscaped: true, retryAfterTruncated: true, delaySource: 'backoff', selectedDelayMs: 500 });
    expect(r?.retryAfterRaw).toBe(`soon\\x07${'!'.repeat(120)}`);
  });

  it('caps a used Retry-After at retryAfterCapMs', () => {
    expect(decide(response(503, '86400')).retry).toMatchObject({ retryAfterDelayMs: 86_400_000, selectedDelayMs: 3_600_000, delaySource: 'retry_after' });
    const config = { ...DEFAULT_RETRY_CONFIG, retryAfterCapMs: 60_000 };
    expect(decide(response(429, '61'), { config }).retry).toMatchObject({ selectedDelayMs: 60_000, nextAttemptAt: T + 60_000 });
    expect(decide(response(429, '59'), { config }).retry).toMatchObject({ selectedDelayMs: 59_000 });
  });

  it('uses the configured backoff', () => {
    const config = { baseMs: 200, capMs: 500, retryAfterCapMs: 1000 };
    expect(decide(response(500), { config, attemptNumber: 1, random: () => ALMOST_ONE }).retry?.selectedDelayMs).toBe(200);
    expect(decide(response(500), { config, attemptNumber: 2, maxAttempts: 5, random: () => ALMOST_ONE }).retry?.selectedDelayMs).toBe(400);
    expect(decide(response(500), { config, attemptNumber: 3, maxAttempts: 5, random: () => ALMOST_ONE }).retry?.selectedDelayMs).toBe(500);
  });
});
