import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryTransport, OutboundRequest } from '../../src/ports/delivery-transport.js';
import { replies, startDestination, type Destination } from '../support/destination.js';
import { TRANSPORTS } from '../support/transports.js';

let destination: Destination;
let transport: DeliveryTransport;

afterEach(async () => {
  await transport.close();
});

function attempt(path: string, overrides: Partial<OutboundRequest> = {}): OutboundRequest {
  return { url: `${destination.url}${path}`, method: 'POST', headers: [], body: null, timeoutMs: 5_000, ...overrides };
}

// undici hands a finished connection back to its pool on the next turn of the event loop, not when the body ends;
// consecutive attempts in real use are further apart than that.
function connectionReturnedToPool(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

describe.each(TRANSPORTS)('http transport %s', (_where, create) => {
  // A destination per implementation: each checks what it alone sent.
  beforeAll(async () => {
    destination = await startDestination();
  });

  afterAll(async () => {
    await destination.close();
  });

  function trustingTransport(extra: { userAgent?: string } = {}): DeliveryTransport {
    return create({ allowPrivateDestinations: true, ca: destination.cert, ...extra });
  }

  describe('what goes on the wire', () => {
    it('sends the method, the headers in their order and spelling, and the body bytes unchanged', async () => {
      transport = trustingTransport();
      const body = Uint8Array.from([0x00, 0xff, 0x7b, 0x0a, 0xc3, 0x28, 0x80]);
      const headers: Array<[string, string]> = [
        ['X-Zeta', 'last-alphabetically'],
        ['x-MiXeD-Case', 'Value With Spaces'],
        ['Content-Type', 'application/octet-stream'],
        ['Service-Signature', 'v1,abc='],
        ['x-alpha', 'first-alphabetically'],
      ];

      const { outcome } = await transport.send(attempt('/wire?x=1', { method: 'PATCH', headers, body }));

      expect(outcome).toMatchObject({ kind: 'response', status: 200, retryAfter: null });
      const [received] = destination.requestsTo('/wire');
      expect(received?.method).toBe('PATCH');
      expect(received?.path).toBe('/wire?x=1');
      expect(Buffer.compare(received!.body, Buffer.from(body))).toBe(0);
      const sentNames = received!.rawHeaders.filter((_, i) => i % 2 === 0);
      const given = headers.map(([name]) => name);
      expect(sentNames.filter((name) => given.includes(name))).toEqual(given);
      for (const [name, value] of headers) expect(received!.headers[name.toLowerCase()]).toBe(value);
      expect(received!.headers['content-length']).toBe(String(body.length));
    });

    it('sends no body and no content length for a bodiless GET', async () => {
      transport = trustingTransport();
      const { outcome } = await transport.send(attempt('/get', { method: 'GET' }));
      expect(outcome).toMatchObject({ kind: 'response', status: 200 });
      const [received] = destination.requestsTo('/get');
      expect(received?.method).toBe('GET');
      expect(received?.body.length).toBe(0);
      expect(received?.headers['content-length']).toBeUndefined();
    });

    it('adds the configured User-Agent only when the request carries none', async () => {
      transport = trustingTransport({ userAgent: 'Ferry/test' });
      await transport.send(attempt('/ua-default'));
      await transport.send(attempt('/ua-own', { headers: [['user-agent', 'Caller/1']] }));
      expect(destination.requestsTo('/ua-default')[0]?.headers['user-agent']).toBe('Ferry/test');
      expect(destination.requestsTo('/ua-own')[0]?.headers['user-agent']).toBe('Caller/1');
    });

    it('reports startedAt from the wall clock and a non-negative duration', async () => {
      transport = trustingTransport();
      const before = Date.now();
      const result = await transport.send(attempt('/timed'));
      expect(result.startedAt).toBeGreaterThanOrEqual(before);
      expect(result.startedAt).toBeLessThanOrEqual(Date.now());
      expect(result.durationMs).toBeGreaterThanOrEqual(0);
    });

    it('reuses one keep-alive connection for consecutive attempts to the same origin', async () => {
      const reuse = await startDestination();
      transport = create({ allowPrivateDestinations: true, ca: reuse.cert });
      try {
        for (let i = 0; i < 3; i += 1) {
          const { outcome } = await transport.send({ url: `${reuse.url}/again`, method: 'POST', headers: [], body: Buffer.from('x'), timeoutMs: 5_000 });
          expect(outcome).toMatchObject({ kind: 'response', status: 200 });
          await connectionReturnedToPool();
        }
        expect(reuse.requestsTo('/again')).toHaveLength(3);
        expect(reuse.connections).toHaveLength(1);
      } finally {
        await transport.close();
        await reuse.close();
      }
    });
  });

  describe('responses', () => {
    it.each([200, 201, 204, 400, 404, 410, 429, 500, 503])('passes status %i through', async (status) => {
      transport = trustingTransport();
      destination.on(`/status-${status}`, replies.status(status));
      const { outcome } = await transport.send(attempt(`/status-${status}`));
      expect(outcome).toMatchObject({ kind: 'response', status, retryAfter: null });
    });

    it('passes Retry-After through raw, whatever it says', async () => {
      transport = trustingTransport();
      destination.on('/retry-seconds', replies.status(503, { 'Retry-After': '120' }));
      destination.on('/retry-date', replies.status(429, { 'Retry-After': 'Wed, 21 Oct 2015 07:28:00 GMT' }));
      destination.on('/retry-junk', replies.status(503, { 'Retry-After': 'soon-ish' }));
      expect((await transport.send(attempt('/retry-seconds'))).outcome).toMatchObject({ kind: 'response', status: 503, retryAfter: '120' });
      expect((await transport.send(attempt('/retry-date'))).outcome)
        .toMatchObject({ kind: 'response', status: 429, retryAfter: 'Wed, 21 Oct 2015 07:28:00 GMT' });
      expect((await transport.send(attempt('/retry-junk'))).outcome).toMatchObject({ kind: 'response', status: 503, retryAfter: 'soon-ish' });
    });

    it('reports the final response, not an informational one before it', async () => {
      transport = trustingTransport();
      destination.on('/early-hints', ({ res }) => {
        res.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' });
        res.writeHead(503, { 'Retry-After': '7' }).end();
      });
      const { outcome } = await transport.send(attempt('/early-hints'));
      expect(outcome).toMatchObject({ kind: 'response', status: 503, retryAfter: '7' });
    });

    it.each([301, 302, 303, 307, 308])('reports a %i as a response and does not follow its Location', async (status) => {
      transport = trustingTransport();
      destination.on(`/moved-${status}`, replies.redirect(status, `${destination.url}/target-${status}`));
      const { outcome } = await transport.send(attempt(`/moved-${status}`));
      expect(outcome).toMatchObject({ kind: 'response', status, retryAfter: null });
      expect(destination.requestsTo(`/moved-${status}`)).toHaveLength(1);
      expect(destination.requestsTo(`/target-${status}`)).toHaveLength(0);
    });

    it('keeps a small body within the bound and the connection reusable', async () => {
      const small = await startDestination();
      transport = create({ allowPrivateDestinations: true, ca: small.cert, maxResponseBytes: 1024 });
      small.on('/small', replies.status(200, {}, 'a'.repeat(1024)));
      try {
        expect((await transport.send({ ...attempt('/small'), url: `${small.url}/small` })).outcome).toMatchObject({ status: 200 });
        await connectionReturnedToPool();
        expect((await transport.send({ ...attempt('/small'), url: `${small.url}/small` })).outcome).toMatchObject({ status: 200 });
        expect(small.connections).toHaveLength(1);
      } finally {
        await transport.close();
        await small.close();
      }
    });
  });

  describe('aborting', () => {
    it('reports aborted for every attempt in flight when told to abort them, and runs later ones as usual', async () => {
      transport = trustingTransport();
      destination.on('/hang', replies.hang());
      const pending = [1, 2].map(() => transport.send(attempt('/hang', { timeoutMs: 60_000 })));
      await destination.waitForRequests('/hang', 2);
      transport.abortInFlight();
      for (const p of pending) expect((await p).outcome).toEqual({ kind: 'aborted' });
      expect((await transport.send(attempt('/after-abort'))).outcome).toMatchObject({ kind: 'response', status: 200 });
    });
  });
});
