import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { DEST, useFerry } from '../support/fixture.js';

interface RawAnswer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** A call through node:http with a raw header list, so a header can be sent as two lines (fetch joins them). */
function rawCall(baseUrl: string, method: string, path: string, headers: string[], body?: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${baseUrl}${path}`, { method, headers: ['Host', new URL(baseUrl).host, ...headers] }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode!, body: text === '' ? null : JSON.parse(text) });
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

  it('refuses two Authorization headers on the JSON API as on Connect', async () => {
    const twice = ['Authorization', `Bearer ${f.apiKey}`, 'authorization', `Bearer ${f.apiKey}`];
    const viaJson = await rawCall(f.ferry.baseUrl, 'GET', '/requests', twice);
    expect(viaJson.status).toBe(401);
    expect(viaJson.body.error.code).toBe('UNAUTHENTICATED');
    const viaConnect = await rawCall(f.ferry.baseUrl, 'POST', '/ferry.v1.RequestService/ListRequests', [...twice, ...json], '{}');
    expect(viaConnect.status).toBe(401);
    expect(viaConnect.body.code).toBe('unauthenticated');
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
