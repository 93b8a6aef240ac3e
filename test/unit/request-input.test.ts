import { describe, expect, it } from 'vitest';
import { validateCreate, validateSend, type CreateInput, type SendInput } from '../../src/domain/validation/request-input.js';
import { expectFerryError } from './expect-ferry-error.js';

const NOW = Date.UTC(2026, 2, 10, 12, 0, 0);
const opts = { allowPrivateDestinations: false, now: NOW };
const send = (over: Partial<SendInput> = {}) =>
  validateSend({ url: 'https://example.com/hook', forwardHeaders: [], body: new Uint8Array(), ...over }, opts);
const create = (over: Partial<CreateInput> = {}) =>
  validateCreate({ url: 'https://example.com/hook', headers: {}, metadata: {}, ...over }, opts);

describe('validateSend', () => {
  it('applies the defaults', () => {
    expect(send({ body: new Uint8Array([1, 2]) })).toEqual({
      definition: {
        url: 'https://example.com/hook',
        method: 'POST',
        headers: [],
        body: new Uint8Array([1, 2]),
        contentType: null,
        maxAttempts: 1,
        timeoutSeconds: 50,
        queue: 'default',
        flowKeys: [],
        metadata: {},
        callbacks: null,
      },
      deliverAt: null,
    });
  });

  it('reads every field', () => {
    const r = send({
      url: 'https://Example.com:443/x',
      method: 'PUT',
      retry: 3,
      delay: '90s',
      timeout: '2m',
      queue: 'billing.v2_eu-1',
      contentType: 'text/plain',
      forwardHeaders: [['Authorization', 'Bearer x']],
      body: new Uint8Array([65]),
    });
    expect(r.deliverAt).toBe(NOW + 90_000);
    expect(r.definition).toMatchObject({
      url: 'https://example.com/x',
      method: 'PUT',
      maxAttempts: 4,
      timeoutSeconds: 120,
      queue: 'billing.v2_eu-1',
      contentType: 'text/plain',
      headers: [['Authorization', 'Bearer x']],
    });
  });

  it('stores an empty body as no body', () => {
    expect(send().definition.body).toBeNull();
  });

  it('accepts retry 0 through 19', () => {
    expect(send({ retry: 0 }).definition.maxAttempts).toBe(1);
    expect(send({ retry: 19 }).definition.maxAttempts).toBe(20);
  });

  it.each([-1, 20, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('rejects retry %s', (retry) => {
    expectFerryError(() => send({ retry }), 'INVALID_RETRY', 'retry');
  });

  it.each(['get', 'Post', 'HEAD', 'OPTIONS', 'CONNECT', 'TRACE', '', ' POST'])('rejects the method %j', (method) => {
    expectFerryError(() => send({ method }), 'INVALID_METHOD', 'method');
  });

  it.each(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])('accepts the method %s', (method) => {
    expect(send({ method }).definition.method).toBe(method);
  });

  it('accepts a 64-character queue and rejects 65, empty and other characters', () => {
    expect(send({ queue: 'q'.repeat(64) }).definition.queue).toBe('q'.repeat(64));
    for (const queue of ['q'.repeat(65), '', 'a b', 'a/b', 'é', 'a:b']) {
      expectFerryError(() => send({ queue }), 'INVALID_QUEUE', 'queue');
    }
  });

  it('accepts a body of exactly 256 KiB and rejects one byte more', () => {
    expect(send({ body: new Uint8Array(262_144) }).definition.body?.byteLength).toBe(262_144);
    expectFerryError(() => send({ body: new Uint8Array(262_145) }), 'PAYLOAD_TOO_LARGE', 'body');
  });

  it('checks the URL, delay, deliver_at, timeout and content type', () => {
    expectFerryError(() => send({ url: 'http://example.com/' }), 'INVALID_URL', 'url');
    expectFerryError(() => send({ url: 'https://127.0.0.1/' }), 'DESTINATION_NOT_ALLOWED', 'url');
    expectFerryError(() => send({ url: undefined as unknown as string }), 'MISSING_FIELD', 'url');
    expectFerryError(() => send({ delay: '0s' }), 'INVALID_DELAY', 'delay');
    expectFerryError(() => send({ delay: '1s', deliverAt: '2026-03-11T00:00:00Z' }), 'INVALID_DELIVER_AT', 'deliver_at');
    expectFerryError(() => send({ timeout: '6m' }), 'INVALID_TIMEOUT', 'timeout');
    expectFerryError(() => send({ contentType: 'a'.repeat(256) }), 'INVALID_CONTENT_TYPE', 'Content-Type');
  });

  it('lets private destinations through only when allowed', () => {
    const r = validateSend({ url: 'https://localhost/x', forwardHeaders: [], body: new Uint8Array() }, { ...opts, allowPrivateDestinations: true });
    expect(r.definition.url).toBe('https://localhost/x');
  });

  it('names forwarded header errors after their X-Forward- header', () => {
    expectFerryError(() => send({ forwardHeaders: [['Host', 'x']] }), 'INVALID_HEADERS', 'X-Forward-Host');
    expectFerryError(() => send({ forwardHeaders: [['Content-Type', 'x']] }), 'INVALID_HEADERS', 'X-Forward-Content-Type');
  });

  it('schedules a future deliver_at and starts a past one at once', () => {
    expect(send({ deliverAt: '2026-03-11T12:00:00Z' }).deliverAt).toBe(NOW + 86_400_000);
    expect(send({ deliverAt: '2026-03-01T12:00:00Z' }).deliverAt).toBeNull();
  });
});

describe('validateCreate', () => {
  it('applies the defaults', () => {
    expect(create()).toEqual({
      definition: {
        url: 'https://example.com/hook',
        method: 'POST',
        headers: [],
        body: null,
        contentType: null,
        maxAttempts: 3,
        timeoutSeconds: 50,
        queue: 'default',
        flowKeys: [],
        metadata: {},
        callbacks: null,
      },
      deliverAt: null,
    });
  });

  it('serialises the body as JSON', () => {
    const r = create({ body: { b: [1, 'é'], a: null } });
    expect(new TextDecoder().decode(r.definition.body ?? new Uint8Array())).toBe('{"b":[1,"é"],"a":null}');
    expect(r.definition.contentType).toBe('application/json');
  });

  it.each([null, 0, false, '', [], {}])('delivers the JSON value %j as a body', (body) => {
    const r = create({ body });
    expect(new TextDecoder().decode(r.definition.body ?? new Uint8Array([0]))).toBe(JSON.stringify(body));
  });

  it('moves a Content-Type header out of the headers', () => {
    const r = create({ body: { a: 1 }, headers: { 'content-type': 'application/cloudevents+json', 'X-A': '1' } });
    expect(r.definition.contentType).toBe('application/cloudevents+json');
    expect(r.definition.headers).toEqual([['X-A', '1']]);
  });

  it('checks a Content-Type header as a content type', () => {
    expectFerryError(() => create({ headers: { 'Content-Type': 'x'.repeat(256) } }), 'INVALID_CONTENT_TYPE', 'headers.Content-Type');
    expectFerryError(
      () => create({ headers: { 'Content-Type': 'a/b', 'content-type': 'c/d' } }),
      'INVALID_HEADERS',
      'headers.content-type',
    );
  });

  it('accepts a serialised body of exactly 256 KiB and rejects one byte more', () => {
    const at = 'x'.repeat(262_144 - 2); // two bytes of JSON quotes
    expect(create({ body: at }).definition.body?.byteLength).toBe(262_144);
    expectFerryError(() => create({ body: `${at}x` }), 'PAYLOAD_TOO_LARGE', 'body');
  });

  it('reads retry.max_attempts 1 through 20', () => {
    expect(create({ retry: { maxAttempts: 1 } }).definition.maxAttempts).toBe(1);
    expect(create({ retry: { maxAttempts: 20 } }).definition.maxAttempts).toBe(20);
    expect(create({ retry: {} }).definition.maxAttempts).toBe(3);
    for (const maxAttempts of [0, 21, 2.5, -1, Number.NaN]) {
      expectFerryError(() => create({ retry: { maxAttempts } }), 'INVALID_RETRY', 'retry.max_attempts');
    }
  });

  it('accepts only exponential backoff', () => {
    expect(() => create({ retry: { backoff: 'exponential' } })).not.toThrow();
    for (const backoff of ['linear', 'Exponential', '']) {
      expectFerryError(() => create({ retry: { backoff } }), 'INVALID_RETRY', 'retry.backoff');
    }
  });

  it('checks headers and metadata with their field paths', () => {
    expectFerryError(() => create({ headers: { 'Transfer-Encoding': 'chunked' } }), 'INVALID_HEADERS', 'headers.Transfer-Encoding');
    expectFerryError(() => create({ headers: { 'X-A': 'a\r\nb' } }), 'INVALID_HEADERS', 'headers.X-A');
    expectFerryError(() => create({ metadata: { 'bad key': 'v' } }), 'INVALID_METADATA', 'metadata.bad key');
    expect(create({ metadata: { k: 'v' } }).definition.metadata).toEqual({ k: 'v' });
  });

  it('reads delay, deliver_at, timeout, queue and method', () => {
    const r = create({ delay: '1h', timeout: '1s', queue: 'q', method: 'DELETE' });
    expect(r.deliverAt).toBe(NOW + 3_600_000);
    expect(r.definition).toMatchObject({ timeoutSeconds: 1, queue: 'q', method: 'DELETE' });
    expectFerryError(() => create({ deliverAt: '2026-05-01T00:00:00Z' }), 'INVALID_DELIVER_AT', 'deliver_at');
    expectFerryError(() => create({ method: 'patch' }), 'INVALID_METHOD', 'method');
  });
});
