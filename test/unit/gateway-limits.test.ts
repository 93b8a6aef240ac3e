import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { call, useGateway, type GatewayHarness } from './gateway-harness.js';

const SEND_LIMIT = 262_144;

/** A body stream of `size` bytes in 16 KiB chunks, or an endless one. */
function stream(size: number): ReadableStream<Uint8Array> {
  let sent = 0;
  const chunk = new Uint8Array(16_384).fill(97);
  return new ReadableStream({
    pull(c) {
      if (sent >= size) return c.close();
      const part = chunk.subarray(0, Math.min(chunk.length, size - sent));
      sent += part.length;
      c.enqueue(part);
    },
  });
}

/**
 * Writes a raw HTTP/1.1 request and reads until the server closes the connection. A write error is expected
 * once the server stops reading; what matters is what arrived before.
 */
function rawExchange(h: GatewayHarness, head: string, body: Buffer): Promise<string> {
  return new Promise((resolve) => {
    const { hostname, port } = new URL(h.url);
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(head);
      socket.write(body);
    });
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
  });
}

describe('gateway body limits', () => {
  const h = useGateway();

  it('refuses a Content-Length over the limit with 413 before reading, and closes the connection', async () => {
    const res = await call(h, 'POST', '/send?url=u', { body: new Uint8Array(SEND_LIMIT + 1) });
    expect(res.status).toBe(413);
    expect(res.headers.get('connection')).toBe('close');
    expect(res.body.error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', field: null });
    expect(res.headers.get('ferry-request-id')).toBe(res.body.request_id);
    expect(h.calls).toHaveLength(0);
  });

  it('refuses a chunked body once it grows past the limit', async () => {
    const res = await call(h, 'POST', '/send?url=u', { body: stream(SEND_LIMIT + 1) });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(h.calls).toHaveLength(0);
  });

  it('answers 413 without waiting for the end of an endless body', async () => {
    const res = await call(h, 'POST', '/send?url=u', { body: stream(Number.POSITIVE_INFINITY) });
    expect(res.status).toBe(413);
  });

  it('sends the 413 response before closing even when the client keeps writing', async () => {
    const big = Buffer.alloc(4 * 1024 * 1024, 98);
    const response = await rawExchange(h, `POST /send?url=u HTTP/1.1\r\nHost: x\r\nContent-Length: ${big.length}\r\n\r\n`, big);
    expect(response).toMatch(/^HTTP\/1\.1 413 /);
    expect(response).toContain('"PAYLOAD_TOO_LARGE"');
  });

  it('keeps serving after an early 413', async () => {
    await call(h, 'POST', '/send?url=u', { body: stream(SEND_LIMIT * 4) });
    const res = await call(h, 'POST', '/send?url=u', { body: 'ok' });
    expect(res.status).toBe(202);
    expect(Buffer.from(h.only().request.body).toString()).toBe('ok');
  });

  it('applies the declared limit of a JSON route', async () => {
    const json = JSON.stringify({ url: 'https://example.com/', body: 'x'.repeat(524_288) });
    const res = await call(h, 'POST', '/requests', { body: json, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(413);
  });

  it('ignores a small body on a route that takes none, and bounds a large one', async () => {
    const small = await call(h, 'POST', '/requests/req_1/cancel', { json: {} });
    expect(small.status).toBe(202);
    const large = await call(h, 'POST', '/requests/req_1/cancel', { body: new Uint8Array(1024 * 1024) });
    expect(large.status).toBe(413);
  });

  it('bounds the body of a request that matches no route', async () => {
    const res = await call(h, 'POST', '/nowhere', { body: stream(1024 * 1024) });
    expect(res.status).toBe(413);
    const small = await call(h, 'POST', '/nowhere', { body: 'x' });
    expect(small.status).toBe(404);
  });
});
