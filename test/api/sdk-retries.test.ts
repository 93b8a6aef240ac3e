import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConflictError, Ferry, FerryAbortError, FerryConnectionError, FerryError, FerryTimeoutError, NotFoundError, RateLimitError,
  ServiceUnavailableError, UnprocessableEntityError,
} from '../../sdk/src/index.js';
import { SDK_VERSION } from '../../sdk/src/version.js';
import { eventually } from '../support/api-client.js';
import { DEST, useFerry } from '../support/fixture.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * What the proxy does with one call: pass it to Ferry; pass it to Ferry and cut the connection instead of answering
 * (Ferry applied it, the client never hears); answer a gateway error or a 429 itself; cut the connection at once;
 * or never answer.
 */
type Step = 'forward' | 'forward-then-drop' | '502' | '503' | '504' | '429' | '503-wait-long' | 'drop' | 'hang';

interface Seen {
  at: number;
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** Set once the proxy has sent its whole answer. */
  answered: boolean;
}

interface Proxy {
  url: string;
  seen: Seen[];
}

/** Headers of one hop that the proxy does not pass on. */
const HOP_BY_HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'upgrade']);

const opened: http.Server[] = [];
afterEach(async () => {
  for (const server of opened.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A real HTTP proxy in front of Ferry (or of nothing) that takes one scripted step per call, the last one repeated. */
async function startProxy(target: string | null, steps: Step[]): Promise<Proxy> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      const record: Seen = { at: Date.now(), method: req.method!, url: req.url!, headers: req.headers, body, answered: false };
      seen.push(record);
      res.on('finish', () => (record.answered = true));
      const step = steps[Math.min(seen.length, steps.length) - 1]!;
      if (step === 'hang') return;
      if (step === 'drop') return void req.socket.destroy();
      if (step === '429') return void res.writeHead(429, { 'Retry-After': '1', 'Content-Type': 'text/plain' }).end('slow down');
      if (step === '503-wait-long') return void res.writeHead(503, { 'Retry-After': '60' }).end();
      if (step !== 'forward' && step !== 'forward-then-drop') {
        return void res.writeHead(Number(step), { 'Content-Type': 'text/html' }).end('<html><body>The gateway is having a day.</body></html>');
      }
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (value !== undefined && !HOP_BY_HOP.has(name)) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
      const answer = await fetch(target + req.url!, { method: req.method, headers, body: body.length > 0 ? body : undefined });
      const answerBody = Buffer.from(await answer.arrayBuffer());
      if (step === 'forward-then-drop') return void req.socket.destroy();
      const passed: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        if (!HOP_BY_HOP.has(name)) passed[name] = value;
      });
      res.writeHead(answer.status, passed).end(answerBody);
    })();
  });
  opened.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

/** The error a promise rejects with, failing the test when it resolves. */
async function rejection(promise: Promise<unknown>): Promise<FerryError> {
  const outcome = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(outcome).toBeInstanceOf(FerryError);
  return outcome as FerryError;
}

const keysOf = (proxy: Proxy) => proxy.seen.map((s) => s.headers['idempotency-key']);

describe('SDK retries, through a misbehaving proxy in front of Ferry', () => {
  const f = useFerry();

  it('retries a 503, a 429 after its Retry-After and a lost answer with one key and the same bytes: Ferry holds one request', async () => {
    const p = await f.newProject();
    const proxy = await startProxy(f.ferry.baseUrl, ['503', '429', 'forward-then-drop', 'forward']);
    const bytes = Uint8Array.from([1, 2, 3, 0xff, 0]);
    const accepted = await new Ferry({ baseUrl: proxy.url, apiKey: p.apiKey, maxRetries: 3 }).requests.send(`${DEST}/retried`, bytes, {
      contentType: 'application/x-retried',
      forwardHeaders: { 'X-Trace': 'r-1' },
    });

    expect(proxy.seen).toHaveLength(4);
    const [key] = keysOf(proxy);
    expect(key).toMatch(UUID);
    expect(keysOf(proxy)).toEqual([key, key, key, key]);
    for (const attempt of proxy.seen) {
      expect(attempt.body.equals(Buffer.from(bytes))).toBe(true);
      expect(attempt.headers).toMatchObject({
        'content-type': 'application/x-retried',
        'x-forward-x-trace': 'r-1',
        'user-agent': `ferry-sdk-typescript/${SDK_VERSION} (node ${process.versions.node})`,
        'ferry-client': `typescript/${SDK_VERSION}`,
        authorization: `Bearer ${p.apiKey}`,
      });
    }
    // The 429 asked for a second: the next attempt cannot have come sooner.
    expect(proxy.seen[2]!.at - proxy.seen[1]!.at).toBeGreaterThanOrEqual(990);

    const direct = new Ferry({ baseUrl: f.ferry.baseUrl, apiKey: p.apiKey });
    expect((await direct.requests.list()).items.map((r) => r.id)).toEqual([accepted.id]);
    expect(await direct.requests.get(accepted.id)).toMatchObject({ content_type: 'application/x-retried', url: `${DEST}/retried` });
  });

  it('keeps a given idempotencyKey on every attempt after a 502 and a 504', async () => {
    const p = await f.newProject();
    const proxy = await startProxy(f.ferry.baseUrl, ['502', '504', 'forward']);
    const input = { url: `${DEST}/kept`, body: { n: 1 } };
    const accepted = await new Ferry({ baseUrl: proxy.url, apiKey: p.apiKey }).requests.create(input, { idempotencyKey: 'sdk-kept-key' });
    expect(keysOf(proxy)).toEqual(['sdk-kept-key', 'sdk-kept-key', 'sdk-kept-key']);
    const direct = new Ferry({ baseUrl: f.ferry.baseUrl, apiKey: p.apiKey });
    expect((await direct.requests.create(input, { idempotencyKey: 'sdk-kept-key' })).id).toBe(accepted.id);
    expect((await direct.requests.list()).items.map((r) => r.id)).toEqual([accepted.id]);
  });

  it('gives up after maxRetries: 0 makes the first 503 final, a proxy page being an UNEXPECTED_RESPONSE', async () => {
    const proxy = await startProxy(f.ferry.baseUrl, ['503']);
    const perCall = await rejection(new Ferry({ baseUrl: proxy.url, apiKey: f.apiKey }).requests.create({ url: DEST }, { maxRetries: 0 }));
    expect(perCall).toBeInstanceOf(ServiceUnavailableError);
    expect(perCall).toMatchObject({ status: 503, code: 'UNEXPECTED_RESPONSE', requestId: null, field: null });
    expect(proxy.seen).toHaveLength(1);
    const perClient = await rejection(new Ferry({ baseUrl: proxy.url, apiKey: f.apiKey, maxRetries: 0 }).schedules.list());
    expect(perClient).toBeInstanceOf(ServiceUnavailableError);
    expect(proxy.seen).toHaveLength(2);
  });

  it('tries 422, 409 and 404 once', async () => {
    const proxy = await startProxy(f.ferry.baseUrl, ['forward']);
    const ferry = new Ferry({ baseUrl: proxy.url, apiKey: f.apiKey });
    expect(await rejection(ferry.requests.create({ url: 'http://example.com/' }))).toBeInstanceOf(UnprocessableEntityError);
    expect(proxy.seen).toHaveLength(1);
    await ferry.requests.create({ url: `${DEST}/a` }, { idempotencyKey: 'sdk-once' });
    expect(await rejection(ferry.requests.create({ url: `${DEST}/b` }, { idempotencyKey: 'sdk-once' }))).toBeInstanceOf(ConflictError);
    expect(proxy.seen).toHaveLength(3);
    expect(await rejection(ferry.requests.get('req_01ARZ3NDEKTSV4RRFFQ69G5FAV'))).toBeInstanceOf(NotFoundError);
    expect(proxy.seen).toHaveLength(4);
  });

  it("does not retry Ferry's own 429: an exhausted allowance lasts until the period ends", async () => {
    const p = await f.newProject({ monthlyAllowance: 1 });
    const proxy = await startProxy(f.ferry.baseUrl, ['forward']);
    const ferry = new Ferry({ baseUrl: proxy.url, apiKey: p.apiKey });
    await ferry.requests.send(DEST);
    const err = await rejection(ferry.requests.send(DEST, undefined, { maxRetries: 1 }));
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err).toMatchObject({ code: 'MONTHLY_ALLOWANCE_EXCEEDED' });
    expect(proxy.seen).toHaveLength(2);
  });
});

describe('SDK failures without an answer', () => {
  it('a closed port is a FerryConnectionError, retried, with the fetch error as cause', async () => {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise((resolve) => server.close(resolve));
    const err = await rejection(new Ferry({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'k', maxRetries: 1 }).requests.list());
    expect(err).toBeInstanceOf(FerryConnectionError);
    expect(err.cause).toBeInstanceOf(Error);
    expect(err.message).toContain(`127.0.0.1:${port}`);
  });

  it('a dropped connection on every attempt is a FerryConnectionError after maxRetries', async () => {
    const proxy = await startProxy(null, ['drop']);
    expect(await rejection(new Ferry({ baseUrl: proxy.url, apiKey: 'k' }).requests.get('req_x'))).toBeInstanceOf(FerryConnectionError);
    expect(proxy.seen).toHaveLength(3);
  });

  it('a server that never answers is a FerryTimeoutError once every attempt has timed out', async () => {
    const proxy = await startProxy(null, ['hang']);
    const ferry = new Ferry({ baseUrl: proxy.url, apiKey: 'k', timeoutMs: 300 });
    expect(await rejection(ferry.requests.get('req_x', { maxRetries: 0 }))).toBeInstanceOf(FerryTimeoutError);
    await eventually(async () => (proxy.seen.length === 1 ? true : undefined));
    expect(await rejection(ferry.requests.get('req_x', { maxRetries: 1, timeoutMs: 200 }))).toBeInstanceOf(FerryTimeoutError);
    await eventually(async () => (proxy.seen.length === 3 ? true : undefined));
  });

  it("the caller's signal ends the call with a FerryAbortError: before it starts, in flight, and while waiting to retry", async () => {
    const hang = await startProxy(null, ['hang']);
    const ferry = new Ferry({ baseUrl: hang.url, apiKey: 'k' });
    expect(await rejection(ferry.requests.list({}, { signal: AbortSignal.abort() }))).toBeInstanceOf(FerryAbortError);
    expect(hang.seen).toHaveLength(0);

    const inFlight = new AbortController();
    const pending = rejection(ferry.requests.get('req_x', { signal: inFlight.signal }));
    await eventually(async () => (hang.seen.length === 1 ? true : undefined));
    inFlight.abort();
    expect(await pending).toBeInstanceOf(FerryAbortError);

    const busy = await startProxy(null, ['503-wait-long']);
    const waiting = new AbortController();
    const retrying = rejection(new Ferry({ baseUrl: busy.url, apiKey: 'k' }).requests.create({ url: DEST }, { signal: waiting.signal }));
    // Once the 503 is on its way the client waits a minute, the longest Retry-After it obeys, unless the signal ends it.
    await eventually(async () => (busy.seen[0]?.answered ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 50));
    waiting.abort();
    expect(await retrying).toBeInstanceOf(FerryAbortError);
    expect(busy.seen).toHaveLength(1);
  });
});
