import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { call, rawCall, useGateway } from './gateway-harness.js';

const valid = { url: 'https://example.com/' };

describe('gateway request bodies', () => {
  const h = useGateway();

  describe('raw body', () => {
    it('hands over the exact bytes, including ones that are not UTF-8', async () => {
      const bytes = Uint8Array.from([0, 1, 2, 0xff, 0xfe, 0x80, 0xc3, 0x28, 13, 10, 0x7b]);
      await call(h, 'POST', '/send?url=u', { body: bytes, headers: { 'content-type': 'application/json' } });
      const { body, contentType } = h.only().request;
      expect(body).toBeInstanceOf(Uint8Array);
      expect(Buffer.from(body).equals(Buffer.from(bytes))).toBe(true);
      expect(contentType).toBe('application/json');
    });

    it('hands over a body of exactly the limit, sent in chunks', async () => {
      const bytes = randomBytes(262_144);
      const stream = new ReadableStream<Uint8Array>({
        start(c) {
          for (let i = 0; i < bytes.length; i += 10_000) c.enqueue(bytes.subarray(i, i + 10_000));
          c.close();
        },
      });
      const res = await call(h, 'POST', '/send?url=u', { body: stream });
      expect(res.status).toBe(202);
      expect(Buffer.from(h.only().request.body).equals(bytes)).toBe(true);
    });

    it('hands over an empty body as empty bytes', async () => {
      await call(h, 'POST', '/send?url=u');
      expect(h.only().request.body).toEqual(new Uint8Array(0));
    });
  });

  describe('JSON body into a field', () => {
    it('fills the field message from the JSON object, with paths relative to the body', async () => {
      const input = {
        url: 'https://example.com/',
        method: 'PUT',
        headers: { 'X-A': '1' },
        body: { a: [1, 'two', true, null, { b: 2.5 }] },
        delay: '5m',
        retry: { max_attempts: 5, backoff: 'exponential' },
        queue: 'q',
        metadata: { k: 'v' },
      };
      const res = await call(h, 'POST', '/requests', { json: input, headers: { 'idempotency-key': 'idem' } });
      expect(res.status).toBe(202);
      const { request } = h.only();
      expect(request.idempotencyKey).toBe('idem');
      expect(request.input).toMatchObject({
        url: 'https://example.com/', method: 'PUT', headers: { 'X-A': '1' }, delay: '5m',
        retry: { maxAttempts: 5, backoff: 'exponential' }, queue: 'q', metadata: { k: 'v' },
      });
      expect(request.input.body.kind.case).toBe('structValue');
      const list = request.input.body.kind.value.fields.a.kind.value.values;
      expect(list.map((v: { kind: { case: string } }) => v.kind.case)).toEqual(['numberValue', 'stringValue', 'boolValue', 'nullValue', 'structValue']);
    });

    it('treats null as absent for every kind of field', async () => {
      await call(h, 'POST', '/requests', { json: { url: null, method: null, headers: null, body: null, retry: null, metadata: null } });
      const { input } = h.only().request;
      expect(input.url).toBe('');
      expect(input.method).toBeUndefined();
      expect(input.body).toBeUndefined();
      expect(input.retry).toBeUndefined();
      expect(input.headers).toEqual({});
    });

    it.each([
      [{ colour: 'red' }, 'UNKNOWN_FIELD', 'colour'],
      [{ maxAttempts: 3 }, 'UNKNOWN_FIELD', 'maxAttempts'],
      [{ retry: { foo: 1 } }, 'UNKNOWN_FIELD', 'retry.foo'],
      [{ retry: { maxAttempts: 1 } }, 'UNKNOWN_FIELD', 'retry.maxAttempts'],
      [{ url: 5 }, 'INVALID_FIELD', 'url'],
      [{ url: ['https://example.com/'] }, 'INVALID_FIELD', 'url'],
      [{ retry: 3 }, 'INVALID_FIELD', 'retry'],
      [{ retry: [] }, 'INVALID_FIELD', 'retry'],
      [{ retry: { max_attempts: 1.5 } }, 'INVALID_FIELD', 'retry.max_attempts'],
      [{ retry: { max_attempts: '3' } }, 'INVALID_FIELD', 'retry.max_attempts'],
      [{ retry: { max_attempts: 2147483648 } }, 'INVALID_FIELD', 'retry.max_attempts'],
      [{ retry: { max_attempts: true } }, 'INVALID_FIELD', 'retry.max_attempts'],
      [{ metadata: { a: 1 } }, 'INVALID_FIELD', 'metadata.a'],
      [{ metadata: { a: null } }, 'INVALID_FIELD', 'metadata.a'],
      [{ metadata: ['a'] }, 'INVALID_FIELD', 'metadata'],
      [{ headers: 'X-A: 1' }, 'INVALID_FIELD', 'headers'],
    ])('refuses %j with %s at %s', async (input, code, field) => {
      const res = await call(h, 'POST', '/requests', { json: { ...valid, ...input } });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code, field });
      expect(h.calls).toHaveLength(0);
    });
  });

  describe('JSON body into the whole message', () => {
    it('fills the request message and reports nested paths with indexes', async () => {
      const items = [valid, valid, valid, { ...valid, retry: { foo: 1 } }];
      const res = await call(h, 'POST', '/requests/batch', { json: { requests: items } });
      expect(res.body.error).toMatchObject({ code: 'UNKNOWN_FIELD', field: 'requests[3].retry.foo' });
    });

    it('binds the items, each with its own idempotency key', async () => {
      await call(h, 'POST', '/requests/batch', {
        json: { requests: [{ ...valid, idempotency_key: 'a' }, { ...valid, metadata: { x: 'y' } }] },
        headers: { 'idempotency-key': 'batch' },
      });
      const { request } = h.only();
      expect(request.idempotencyKey).toBe('batch');
      expect(request.requests).toMatchObject([{ url: valid.url, idempotencyKey: 'a' }, { url: valid.url, metadata: { x: 'y' } }]);
    });

    it('refuses fields that the path, query or headers bind', async () => {
      const batch = await call(h, 'POST', '/requests/batch', { json: { requests: [], idempotency_key: 'k' } });
      expect(batch.body.error).toMatchObject({ code: 'UNKNOWN_FIELD', field: 'idempotency_key' });
      const patch = await call(h, 'PATCH', '/schedules/sch_1', { json: { schedule_id: 'sch_2' } });
      expect(patch.body.error).toMatchObject({ code: 'UNKNOWN_FIELD', field: 'schedule_id' });
    });

    it('refuses wrong shapes of lists and their items', async () => {
      const notList = await call(h, 'POST', '/requests/batch', { json: { requests: { url: 'x' } } });
      expect(notList.body.error).toMatchObject({ code: 'INVALID_FIELD', field: 'requests' });
      const nullItem = await call(h, 'POST', '/requests/batch', { json: { requests: [valid, null] } });
      expect(nullItem.body.error).toMatchObject({ code: 'INVALID_FIELD', field: 'requests[1]' });
      const scalarItem = await call(h, 'POST', '/requests/batch', { json: { requests: ['https://example.com/'] } });
      expect(scalarItem.body.error).toMatchObject({ code: 'INVALID_FIELD', field: 'requests[0]' });
    });

    it('keeps the path binding beside the JSON fields', async () => {
      await call(h, 'PATCH', '/schedules/sch_1', { json: { name: 'n', timing: { type: 'interval', every_seconds: 120 }, request: { url: 'u', body: 'text', retry: 2 } } });
      expect(h.only().request).toMatchObject({
        scheduleId: 'sch_1', name: 'n', timing: { type: 'interval', everySeconds: 120 }, request: { url: 'u', retry: 2, body: { kind: { case: 'stringValue', value: 'text' } } },
      });
    });
  });

  describe('JSON syntax and content type', () => {
    it.each([
      ['{"url": ', 'malformed'],
      ['[]', 'an array'],
      ['"text"', 'a string'],
      ['null', 'null'],
      ['', 'empty'],
    ])('refuses %j (%s) with INVALID_JSON', async (text) => {
      const res = await call(h, 'POST', '/requests', { body: text, headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'INVALID_JSON', field: null });
    });

    it('refuses a body that is not UTF-8 with INVALID_JSON', async () => {
      const res = await call(h, 'POST', '/requests', { body: Uint8Array.from([0x7b, 0xff, 0x7d]), headers: { 'content-type': 'application/json' } });
      expect(res.body.error.code).toBe('INVALID_JSON');
    });

    it.each(['text/plain', 'application/jsonx', 'application/x-www-form-urlencoded'])('refuses Content-Type %s', async (type) => {
      const res = await call(h, 'POST', '/requests', { json: valid, headers: { 'content-type': type } });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('INVALID_CONTENT_TYPE');
    });

    it.each(['application/json', 'application/json; charset=utf-8', 'Application/JSON ;charset=UTF-8'])('accepts Content-Type %s', async (type) => {
      const res = await call(h, 'POST', '/requests', { json: valid, headers: { 'content-type': type } });
      expect(res.status).toBe(202);
    });

    it('accepts a JSON body without Content-Type', async () => {
      const res = await rawCall(h, 'POST', '/requests', [], JSON.stringify(valid));
      expect(res.status).toBe(202);
      expect(h.only().request.input.url).toBe(valid.url);
    });
  });

  describe('content coding', () => {
    it.each([
      ['POST', '/requests', 'gzip'],
      ['POST', '/send?url=https://example.com/', 'br'],
      ['POST', '/requests/batch', 'identity, gzip'],
    ])('refuses a %s %s body with Content-Encoding %s: 415 in the envelope, naming identity in Accept-Encoding', async (method, path, coding) => {
      const res = await rawCall(h, method, path, ['Content-Type', 'application/json', 'Content-Encoding', coding, 'Idempotency-Key', 'k'], gzipSync(JSON.stringify(valid)));
      expect(res.status).toBe(415);
      expect(res.headers['accept-encoding']).toBe('identity');
      expect(res.body.error).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', field: 'Content-Encoding' });
      expect(res.body.error.message).toContain(coding);
      expect(h.calls).toHaveLength(0);
    });

    it('takes a body whose Content-Encoding is identity', async () => {
      const res = await rawCall(h, 'POST', '/requests', ['Content-Type', 'application/json', 'Content-Encoding', 'Identity'], JSON.stringify(valid));
      expect(res.status).toBe(202);
    });
  });
});
