import { describe, expect, it } from 'vitest';
import { requestHeader } from '../../src/edge/request-headers.js';
import { call, rawCall, useGateway } from './gateway-harness.js';

describe('gateway binding of path, query and headers', () => {
  const h = useGateway();

  it('binds path captures to top-level string fields, percent-decoded', async () => {
    await call(h, 'GET', '/requests/req%20a%2Fb/attempts');
    expect(h.only()).toMatchObject({ method: 'listAttempts', request: { requestId: 'req a/b' } });
  });

  it('answers 404 for a capture that is not valid percent-encoding', async () => {
    const res = await call(h, 'GET', '/requests/req%zz');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('ROUTE_NOT_FOUND');
  });

  it('binds every declared query parameter, decoded, with integers parsed', async () => {
    const q = 'url=https%3A%2F%2Fexample.com%2Fa%3Fb%3D1&method=PUT&retry=3&delay=2h&deliver_at=2030-01-01T00%3A00%3A00Z&timeout=5m&queue=a+b';
    const res = await call(h, 'POST', `/send?${q}`, { body: 'x' });
    expect(res.status).toBe(202);
    expect(h.only().request).toMatchObject({
      url: 'https://example.com/a?b=1',
      method: 'PUT',
      retry: 3,
      delay: '2h',
      deliverAt: '2030-01-01T00:00:00Z',
      timeout: '5m',
      queue: 'a b',
    });
  });

  it('leaves absent optional parameters unset and keeps empty values as empty strings', async () => {
    await call(h, 'GET', '/requests?search=&cursor');
    const { request } = h.only();
    expect(request.search).toBe('');
    expect(request.cursor).toBe('');
    expect(request.status).toBeUndefined();
    expect(request.limit).toBeUndefined();
  });

  it('refuses an unknown query parameter with UNKNOWN_FIELD naming it', async () => {
    const res = await call(h, 'GET', '/requests?limit=5&colour=red');
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'UNKNOWN_FIELD', field: 'colour' });
    expect(h.calls).toHaveLength(0);
  });

  it('refuses a query parameter on a route that declares none', async () => {
    const res = await call(h, 'GET', '/requests/req_1?verbose=1');
    expect(res.body.error).toMatchObject({ code: 'UNKNOWN_FIELD', field: 'verbose' });
  });

  it('refuses a repeated query parameter with INVALID_FIELD', async () => {
    const res = await call(h, 'GET', '/requests?status=queued&status=failed');
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'INVALID_FIELD', field: 'status' });
  });

  it.each(['3.0', '1e3', '+3', ' 3', '0x10', '', 'three', '2147483648', '-2147483649', '99999999999999999999999'])(
    'refuses int32 text %j with INVALID_FIELD',
    async (text) => {
      const res = await call(h, 'GET', `/requests?limit=${encodeURIComponent(text)}`);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'INVALID_FIELD', field: 'limit' });
    },
  );

  it.each([['-1', -1], ['007', 7], ['2147483647', 2147483647], ['-2147483648', -2147483648]])('parses int32 text %j', async (text, n) => {
    await call(h, 'GET', `/requests?limit=${text}`);
    expect(h.only().request.limit).toBe(n);
  });

  it('refuses malformed percent-encoding in the query', async () => {
    const res = await call(h, 'GET', '/requests?search=%E0%A4%A');
    expect(res.body.error).toMatchObject({ code: 'INVALID_FIELD', field: 'search' });
  });

  it('binds headers case-insensitively', async () => {
    await rawCall(h, 'POST', '/requests/req_1/replay', ['IDEMPOTENCY-KEY', 'k1']);
    expect(h.only().request).toMatchObject({ requestId: 'req_1', idempotencyKey: 'k1' });
  });

  it('refuses a repeated Idempotency-Key with 422 naming the header, whatever the spelling of its lines', async () => {
    const res = await rawCall(h, 'POST', '/requests/req_1/replay', ['IDEMPOTENCY-KEY', 'k1', 'idempotency-key', 'k2']);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'INVALID_IDEMPOTENCY_KEY', field: 'Idempotency-Key' });
    expect(res.body.error.message).toContain('Idempotency-Key');
    expect(h.calls).toHaveLength(0);
  });

  it('refuses a repeated Content-Type, which Node itself would cut to the first', async () => {
    const send = await rawCall(h, 'POST', '/send?url=u', ['Content-Type', 'text/plain', 'Content-Type', 'text/html'], 'x');
    expect(send.status).toBe(422);
    expect(send.body.error).toMatchObject({ code: 'INVALID_CONTENT_TYPE', field: 'Content-Type' });
    const json = await rawCall(h, 'POST', '/requests', ['Content-Type', 'application/json', 'content-type', 'application/json'], '{"url":"u"}');
    expect(json.status).toBe(422);
    expect(json.body.error).toMatchObject({ code: 'INVALID_CONTENT_TYPE', field: 'Content-Type' });
    expect(h.calls).toHaveLength(0);
  });

  it('leaves unbound optional headers unset', async () => {
    await rawCall(h, 'POST', '/send?url=u', [], 'x');
    const { request } = h.only();
    expect(request.contentType).toBeUndefined();
    expect(request.idempotencyKey).toBeUndefined();
    expect(request.forwardHeaders).toEqual({});
  });

  it('collects prefixed headers into the map, keyed by the rest of the name as the client spelled it', async () => {
    await rawCall(h, 'POST', '/send?url=u', [
      'X-Forward-Authorization', 'Bearer downstream',
      'x-forward-X-Trace', 'a',
      'X-FORWARD-x-trace', 'b',
      'X-Forwarded-For', 'not-bound',
      'Authorization', 'Bearer key',
    ], 'x');
    const { request, context } = h.only();
    expect(request.forwardHeaders).toEqual({ Authorization: 'Bearer downstream', 'X-Trace': 'a, b' });
    expect(context.requestHeader.get('authorization')).toBe('Bearer key');
  });

  it('keeps a prefixed header named __proto__ as an ordinary key', async () => {
    await rawCall(h, 'POST', '/send?url=u', ['X-Forward-__proto__', 'v'], 'x');
    const map = h.only().request.forwardHeaders;
    expect(Object.keys(map)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(map)).toBe(Object.prototype);
  });

  it('passes every header to the implementation, repeated ones joined', async () => {
    await rawCall(h, 'GET', '/requests', ['Authorization', 'Bearer a', 'X-Multi', '1', 'x-multi', '2']);
    const headers = h.only().context.requestHeader;
    expect(headers.get('authorization')).toBe('Bearer a');
    expect(headers.get('x-multi')).toBe('1, 2');
  });

  it('reads a repeated header joined, as gRPC and Connect calls read it, not as its first line', async () => {
    await rawCall(h, 'GET', '/requests', ['Authorization', 'Bearer a', 'authorization', 'Bearer b']);
    expect(requestHeader(h.only().context, 'authorization')).toBe('Bearer a, Bearer b');
  });
});
