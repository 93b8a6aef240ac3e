import { describe, expect, it } from 'vitest';
import type { RequestDefinition } from '../../src/domain/request.js';
import {
  validateBatch,
  validateDefinition,
  validateIdempotencyKey,
  type BatchItemInput,
} from '../../src/domain/validation/request-input.js';
import { expectFerryError } from './expect-ferry-error.js';

const opts = { allowPrivateDestinations: false, now: Date.UTC(2026, 2, 10) };
const item = (over: Partial<BatchItemInput> = {}): BatchItemInput => ({
  url: 'https://example.com/hook',
  headers: {},
  metadata: {},
  ...over,
});

describe('validateIdempotencyKey', () => {
  it('returns null for an absent optional key', () => {
    expect(validateIdempotencyKey(undefined, false)).toBeNull();
  });

  it('requires a key when asked, naming the header', () => {
    const err = expectFerryError(() => validateIdempotencyKey(undefined, true), 'INVALID_IDEMPOTENCY_KEY', 'Idempotency-Key');
    expect(err.message).toMatch(/Idempotency-Key header is required/);
  });

  it('accepts 1 to 255 bytes', () => {
    expect(validateIdempotencyKey('k', true)).toBe('k');
    expect(validateIdempotencyKey('k'.repeat(255), true)).toBe('k'.repeat(255));
    expectFerryError(() => validateIdempotencyKey('', false), 'INVALID_IDEMPOTENCY_KEY', 'Idempotency-Key');
    expectFerryError(() => validateIdempotencyKey('k'.repeat(256), false), 'INVALID_IDEMPOTENCY_KEY');
    expectFerryError(() => validateIdempotencyKey('\u00e9'.repeat(128), false), 'INVALID_IDEMPOTENCY_KEY');
  });
});

describe('validateBatch', () => {
  it('validates every item in order', () => {
    const out = validateBatch([item(), item({ method: 'GET', idempotencyKey: 'a' })], opts);
    expect(out.map((r) => [r.definition.method, r.idempotencyKey])).toEqual([
      ['POST', null],
      ['GET', 'a'],
    ]);
  });

  it('accepts 1 and 100 items and rejects 0 and 101', () => {
    expect(validateBatch([item()], opts)).toHaveLength(1);
    expect(validateBatch(Array.from({ length: 100 }, () => item()), opts)).toHaveLength(100);
    expectFerryError(() => validateBatch([], opts), 'INVALID_BATCH', 'requests');
    expectFerryError(() => validateBatch(Array.from({ length: 101 }, () => item()), opts), 'INVALID_BATCH', 'requests');
    expectFerryError(() => validateBatch('x' as unknown as BatchItemInput[], opts), 'INVALID_BATCH', 'requests');
  });

  it('prefixes item errors with the item index', () => {
    expectFerryError(() => validateBatch([item(), item({ url: 'http://x.example/' })], opts), 'INVALID_URL', 'requests[1].url');
    expectFerryError(() => validateBatch([item({ retry: { maxAttempts: 0 } })], opts), 'INVALID_RETRY', 'requests[0].retry.max_attempts');
    expectFerryError(() => validateBatch([item({ headers: { Host: 'h' } })], opts), 'INVALID_HEADERS', 'requests[0].headers.Host');
    expectFerryError(() => validateBatch([item({ metadata: { 'a b': '' } })], opts), 'INVALID_METADATA', 'requests[0].metadata.a b');
    expectFerryError(() => validateBatch([item({ body: 'x'.repeat(262_143) })], opts), 'PAYLOAD_TOO_LARGE', 'requests[0].body');
  });

  it('checks item idempotency keys', () => {
    expectFerryError(
      () => validateBatch([item(), item({ idempotencyKey: '' })], opts),
      'INVALID_IDEMPOTENCY_KEY',
      'requests[1].idempotency_key',
    );
    expectFerryError(
      () => validateBatch([item({ idempotencyKey: 'k'.repeat(256) })], opts),
      'INVALID_IDEMPOTENCY_KEY',
      'requests[0].idempotency_key',
    );
  });

  it('rejects an item key repeated within the batch', () => {
    const err = expectFerryError(
      () => validateBatch([item({ idempotencyKey: 'a' }), item({ idempotencyKey: 'b' }), item({ idempotencyKey: 'a' })], opts),
      'INVALID_IDEMPOTENCY_KEY',
      'requests[2].idempotency_key',
    );
    expect(err.message).toContain('requests[0]');
  });
});

describe('validateDefinition', () => {
  const stored: RequestDefinition = {
    url: 'https://example.com/hook',
    method: 'POST',
    headers: [['Authorization', 'Bearer x']],
    callbacks: null,
    body: new Uint8Array([1]),
    contentType: 'application/octet-stream',
    maxAttempts: 20,
    timeoutSeconds: 300,
    queue: 'default',
    flowKeys: [],
    metadata: { k: 'v' },
  };

  it('accepts a definition that still passes', () => {
    expect(() => validateDefinition(stored, opts)).not.toThrow();
    expect(() => validateDefinition({ ...stored, body: null, contentType: null, headers: [], metadata: {} }, opts)).not.toThrow();
  });

  it.each<[string, Partial<RequestDefinition>, string]>([
    ['private destination', { url: 'https://10.0.0.1/' }, 'url'],
    ['bad URL', { url: 'http://example.com/' }, 'url'],
    ['bad method', { method: 'HEAD' as never }, 'method'],
    ['reserved header', { headers: [['Host', 'x']] }, 'headers.Host'],
    ['long content type', { contentType: 'x'.repeat(256) }, 'content_type'],
    ['large body', { body: new Uint8Array(262_145) }, 'body'],
    ['attempts', { maxAttempts: 21 }, 'max_attempts'],
    ['no attempts', { maxAttempts: 0 }, 'max_attempts'],
    ['timeout', { timeoutSeconds: 301 }, 'timeout_seconds'],
    ['fractional timeout', { timeoutSeconds: 1.5 }, 'timeout_seconds'],
    ['queue', { queue: '' }, 'queue'],
    ['metadata', { metadata: { 'a b': 'v' } }, 'metadata.a b'],
  ])('reports a %s as INVALID_STORED_DEFINITION', (_, change, field) => {
    expectFerryError(() => validateDefinition({ ...stored, ...change }, opts), 'INVALID_STORED_DEFINITION', field);
  });

  it('lets private destinations through when allowed', () => {
    expect(() => validateDefinition({ ...stored, url: 'https://localhost/' }, { allowPrivateDestinations: true })).not.toThrow();
  });
});
