import http from 'node:http';
import net from 'node:net';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { TEST_BACKEND } from '../support/deployment.js';
import { DEST, useFerry } from '../support/fixture.js';

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** Writes `request` as it is on a fresh connection and reads the answer until the server closes it. */
function rawExchange(baseUrl: string, request: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port) }, () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: http.IncomingHttpHeaders = {};
      for (const line of lines) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: body === '' ? null : JSON.parse(body) });
    });
  });
}

/** A call through node:http with a raw header list, so a header can be sent as two lines (fetch joins them). */
function rawCall(baseUrl: string, method: string, path: string, headers: string[], body?: string | Uint8Array): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${baseUrl}${path}`, { method, headers: ['Host', new URL(baseUrl).host, ...headers] }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode!, headers: res.headers, body: text === '' ? null : JSON.parse(text) });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const MIB = 1024 * 1024;

describe('input Ferry refuses rather than rewrites', () => {
  const f = useFerry();
  const auth = () => ['Authorization', `Bearer ${f.apiKey}`];
  const json = ['Content-Type', 'application/json'];

  it.each([
    ['POST', '/send?url=https://example.com/', 'x'],
    ['POST', '/requests', JSON.stringify({ url: DEST })],
    ['POST', '/requests/batch', JSON.stringify({ requests: [{ url: DEST }] })],
    ['POST', '/schedules', JSON.stringify({ name: 'n', timing: { type: 'interval', every_seconds: 3600 }, request: { url: DEST } })],
    ['POST', '/requests/req_0/replay', undefined],
  ])('refuses two Idempotency-Key headers on %s %s with 422 naming the header', async (method, path, body) => {
    const res = await rawCall(f.ferry.baseUrl, method, path, [...auth(), ...json, 'Idempotency-Key', 'a', 'idempotency-key', 'b'], body);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'INVALID_IDEMPOTENCY_KEY', field: 'Idempotency-Key' });
    expect(res.body.error.message).toContain('Idempotency-Key');
    const listed = await f.api.call<{ items: unknown[] }>('GET', '/requests');
    expect(listed.body.data.items).toHaveLength(0);
  });

  it('refuses two Content-Type headers with 422 naming the header', async () => {
    const res = await rawCall(f.ferry.baseUrl, 'POST', '/send?url=https://example.com/', [...auth(), 'Content-Type', 'text/plain', 'Content-Type', 'text/html'], 'x');
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'INVALID_CONTENT_TYPE', field: 'Content-Type' });
  });

  it('refuses two Authorization headers on the JSON API as on Connect, saying so', async () => {
    const twice = ['Authorization', `Bearer ${f.apiKey}`, 'authorization', `Bearer ${f.apiKey}`];
    const viaJson = await rawCall(f.ferry.baseUrl, 'GET', '/requests', twice);
    expect(viaJson.status).toBe(401);
    expect(viaJson.body.error).toEqual({
      code: 'UNAUTHENTICATED',
      message: 'The Authorization header is given more than once; it takes a single value.',
      field: 'Authorization',
    });
    const viaConnect = await rawCall(f.ferry.baseUrl, 'POST', '/ferry.v1.RequestService/ListRequests', [...twice, ...json], '{}');
    expect(viaConnect.status).toBe(401);
    expect(viaConnect.body).toMatchObject({ code: 'unauthenticated', message: viaJson.body.error.message });
  });

  it.each(['not a type', 'text', 'text/plain; charset', 'text/plain, text/html'])(
    'refuses POST /send with Content-Type %j, which is not a media type, and stores nothing',
    async (type) => {
      const res = await rawCall(f.ferry.baseUrl, 'POST', '/send?url=https://example.com/', [...auth(), 'Content-Type', type], 'x');
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'INVALID_CONTENT_TYPE', field: 'Content-Type' });
      expect((await f.api.call<{ items: unknown[] }>('GET', '/requests')).body.data.items).toHaveLength(0);
    },
  );

  it('refuses a body with a content coding with 415 in the envelope, whatever the body', async () => {
    for (const [path, body] of [
      ['/requests', gzipSync(JSON.stringify({ url: DEST }))],
      ['/send?url=https://example.com/', gzipSync('hello')],
    ] as const) {
      const res = await rawCall(f.ferry.baseUrl, 'POST', path, [...auth(), ...json, 'Content-Encoding', 'gzip'], body);
      expect(res.status, path).toBe(415);
      expect(res.body.error).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', field: 'Content-Encoding' });
    }
    expect((await f.api.call<{ items: unknown[] }>('GET', '/requests')).body.data.items).toHaveLength(0);
  });

  // What follows is read before storage is reached: checked once, on the embedded backend.
  it.runIf(TEST_BACKEND === 'embedded')('answers a request Node cannot read with the envelope: 400 for a malformed one, 431 for headers over 64 KiB', async () => {
    const malformed = await rawExchange(f.ferry.baseUrl, 'GET /requests HTTP/1.1\r\nHost: ferry\r\nNo colon here\r\n\r\n');
    expect(malformed.status).toBe(400);
    expect(malformed.headers['content-type']).toBe('application/json');
    expect(malformed.body.error).toMatchObject({ code: 'MALFORMED_REQUEST', field: null });
    expect(malformed.headers['ferry-request-id']).toBe(malformed.body.request_id);

    const huge = await rawExchange(f.ferry.baseUrl, `GET /requests HTTP/1.1\r\nHost: ferry\r\nX-Big: ${'a'.repeat(70 * 1024)}\r\n\r\n`);
    expect(huge.status).toBe(431);
    expect(huge.body.error).toMatchObject({ code: 'HEADERS_TOO_LARGE', message: 'The request headers are over 65536 bytes in all.' });
  });

  it.runIf(TEST_BACKEND === 'embedded')('answers a Connect path with a content type it does not read with 415, and GET with 405, in the envelope', async () => {
    const xml = await rawCall(f.ferry.baseUrl, 'POST', '/ferry.v1.RequestService/Send', [...auth(), 'Content-Type', 'text/xml'], '<send/>');
    expect(xml.status).toBe(415);
    expect(xml.body.error).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', field: 'Content-Type' });
    const get = await rawCall(f.ferry.baseUrl, 'GET', '/ferry.v1.RequestService/ListRequests', auth());
    expect(get.status).toBe(405);
    expect(get.body.error.code).toBe('METHOD_NOT_ALLOWED');
  });

  it.runIf(TEST_BACKEND === 'embedded')('quotes at most 64 characters of a long ID in a 404', async () => {
    for (const path of [`/requests/${'r'.repeat(5_000)}`, `/schedules/${'s'.repeat(5_000)}`, `/requests/${'r'.repeat(5_000)}/attempts`]) {
      const res = await f.api.call('GET', path);
      expect(res.status, path).toBe(404);
      expect(res.body.error?.message).toContain(`"${path[1]}${path[1]!.repeat(63)}"… (5000 characters)`);
      expect(res.body.error!.message.length).toBeLessThan(150);
    }
  });

  it.runIf(TEST_BACKEND === 'embedded')('decides on the API key before it reads the input: a malformed body without a valid key is a 401', async () => {
    for (const auth of [null, 'Bearer fry_unknown']) {
      const viaJson = await f.api.call('POST', '/requests', { body: '{"url": ', headers: { 'content-type': 'application/json' }, auth });
      expect([viaJson.status, viaJson.body.error?.code]).toEqual([401, 'UNAUTHENTICATED']);
      const viaQuery = await f.api.call('GET', '/requests?limit=many&bogus=1', { auth });
      expect([viaQuery.status, viaQuery.body.error?.code]).toEqual([401, 'UNAUTHENTICATED']);
    }
    const withKey = await f.api.call('POST', '/requests', { body: '{"url": ', headers: { 'content-type': 'application/json' } });
    expect([withKey.status, withKey.body.error?.code]).toEqual([422, 'INVALID_JSON']);
  });

  it.runIf(TEST_BACKEND === 'embedded')('answers no cross-origin request unless FERRY_CORS_ORIGINS allows its origin', async () => {
    const preflight = await rawCall(f.ferry.baseUrl, 'OPTIONS', '/requests', ['Origin', 'https://app.example.com', 'Access-Control-Request-Method', 'POST']);
    expect(preflight.status).toBe(405);
    expect(Object.keys(preflight.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    const get = await rawCall(f.ferry.baseUrl, 'GET', '/requests', [...auth(), 'Origin', 'https://app.example.com']);
    expect(get.status).toBe(200);
    expect(Object.keys(get.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });

  it('answers an empty url as a missing one, on create, batch items and schedule requests', async () => {
    const create = await f.api.create({ url: '' });
    expect(create.body.error).toMatchObject({ code: 'MISSING_FIELD', field: 'url' });
    const batch = await f.api.call('POST', '/requests/batch', { json: { requests: [{ url: DEST }, { url: '' }] }, headers: { 'idempotency-key': 'k' } });
    expect(batch.body.error).toMatchObject({ code: 'MISSING_FIELD', field: 'requests[1].url' });
    const schedule = await f.api.call('POST', '/schedules', {
      json: { name: 'n', timing: { type: 'interval', every_seconds: 3600 }, request: { url: '' } },
      headers: { 'idempotency-key': 'k' },
    });
    expect(schedule.body.error).toMatchObject({ code: 'MISSING_FIELD', field: 'request.url' });
  });

  it('refuses callback URLs as it refuses destinations, with 422 naming the field, on every way in', async () => {
    const plain = await f.api.create({ url: DEST, callbacks: { on_success: 'http://example.com/cb' } });
    expect(plain.status).toBe(422);
    expect(plain.body.error).toMatchObject({ code: 'INVALID_URL', field: 'callbacks.on_success' });
    const loopback = await f.api.create({ url: DEST, callbacks: { on_failure: 'https://127.0.0.1/cb' } });
    expect(loopback.body.error).toMatchObject({ code: 'DESTINATION_NOT_ALLOWED', field: 'callbacks.on_failure' });
    const empty = await f.api.create({ url: DEST, callbacks: {} });
    expect(empty.body.error).toMatchObject({ code: 'INVALID_FIELD', field: 'callbacks' });
    const batch = await f.api.call('POST', '/requests/batch', {
      json: { requests: [{ url: DEST }, { url: DEST, callbacks: { on_success: 'https://10.0.0.1/cb' } }] },
      headers: { 'idempotency-key': 'k' },
    });
    expect(batch.body.error).toMatchObject({ code: 'DESTINATION_NOT_ALLOWED', field: 'requests[1].callbacks.on_success' });
    const sent = await f.api.send({ url: DEST }, 'x', { 'Callback-On-Failure': 'https://localhost/cb' });
    expect(sent.status).toBe(422);
    expect(sent.body.error).toMatchObject({ code: 'DESTINATION_NOT_ALLOWED', field: 'Callback-On-Failure' });
    const schedule = await f.api.call('POST', '/schedules', {
      json: { name: 'n', timing: { type: 'interval', every_seconds: 3600 }, request: { url: DEST, callbacks: { on_success: 'http://example.com/' } } },
      headers: { 'idempotency-key': 'k' },
    });
    expect(schedule.body.error).toMatchObject({ code: 'INVALID_URL', field: 'request.callbacks.on_success' });
  });

  describe('a 413 for an over-size batch is read by the client every time', () => {
    const SIZE = 33 * MIB;
    const ROUNDS = 20;
    const batch = (): string => `${f.ferry.baseUrl}/requests/batch`;
    const headers = () => ({ authorization: `Bearer ${f.apiKey}`, 'content-type': 'application/json', 'idempotency-key': 'big' });

    /** Counts the outcomes of `rounds` uploads: the status read, or the error code the client reported. */
    async function outcomes(rounds: number, upload: () => Promise<string>): Promise<Record<string, number>> {
      const seen: Record<string, number> = {};
      for (let i = 0; i < rounds; i++) {
        const outcome = await upload();
        seen[outcome] = (seen[outcome] ?? 0) + 1;
      }
      return seen;
    }

    const failure = (err: unknown): string => {
      const e = err as Error & { code?: string; cause?: { code?: string } };
      return `error ${e.cause?.code ?? e.code ?? e.message}`;
    };

    /** One upload, written as fast as the socket takes it; resolves once the request is over, with what it got. */
    function viaHttp(chunked: boolean, size = SIZE): Promise<string> {
      const chunk = Buffer.alloc(MIB, 0x20);
      let outcome: string | undefined;
      const settle = (value: string): void => void (outcome ??= value);
      return new Promise((resolve) => {
        const h: http.OutgoingHttpHeaders = { ...headers(), ...(chunked ? {} : { 'content-length': size }) };
        const req = http.request(batch(), { method: 'POST', headers: h }, (res) => {
          res.resume();
          res.on('end', () => settle(String(res.statusCode)));
          res.on('error', (err) => settle(failure(err)));
        });
        req.on('error', (err) => settle(failure(err)));
        req.on('close', () => resolve(outcome ?? 'no answer'));
        for (let sent = 0; sent < size; sent += MIB) req.write(chunk);
        req.end();
      });
    }

    async function viaFetch(body: () => RequestInit['body']): Promise<string> {
      try {
        const res = await fetch(batch(), { method: 'POST', headers: headers(), body: body(), duplex: 'half' } as RequestInit);
        await res.text();
        return String(res.status);
      } catch (err) {
        return failure(err);
      }
    }

    /** A body stream with no declared length: fetch sends it chunked. */
    function endlessChunks(): ReadableStream<Uint8Array> {
      const chunk = new Uint8Array(MIB).fill(0x20);
      let sent = 0;
      return new ReadableStream({
        pull(c) {
          if (sent >= SIZE) return c.close();
          sent += MIB;
          c.enqueue(chunk);
        },
      });
    }

    const whole = Buffer.alloc(SIZE, 0x20);

    it('with node:http and a declared length', async () => {
      expect(await outcomes(ROUNDS, () => viaHttp(false))).toEqual({ 413: ROUNDS });
    });

    it('with fetch and a declared length', async () => {
      expect(await outcomes(ROUNDS, () => viaFetch(() => whole))).toEqual({ 413: ROUNDS });
    });

    it('with fetch and a chunked body', async () => {
      expect(await outcomes(ROUNDS, () => viaFetch(endlessChunks))).toEqual({ 413: ROUNDS });
    });

    it('with node:http and a chunked body', async () => {
      expect(await outcomes(ROUNDS / 4, () => viaHttp(true))).toEqual({ 413: ROUNDS / 4 });
    });

    it('with node:http and a declared length over what Ferry reads and drops after refusing', async () => {
      expect(await outcomes(ROUNDS / 2, () => viaHttp(false, 100 * MIB))).toEqual({ 413: ROUNDS / 2 });
    });
  });
});
