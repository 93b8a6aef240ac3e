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
 * Writes a raw HTTP/1.1 request and reads until a whole JSON answer arrived or the server closed the connection.
 * Reports whether every byte of the body could be written: a server that stops reading makes writes fail.
 */
function rawExchange(h: GatewayHarness, head: string, body: Buffer): Promise<{ response: string; bodyWritten: boolean }> {
  return new Promise((resolve) => {
    const { hostname, port } = new URL(h.url);
    let bodyWritten = false;
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(head);
      socket.write(body, (err) => (bodyWritten = !err));
    });
    const chunks: Buffer[] = [];
    const done = () => resolve({ response: Buffer.concat(chunks).toString('latin1'), bodyWritten });
    socket.on('data', (c) => {
      chunks.push(c);
      if (/\r\n\r\n\{[\s\S]*\}$/.test(Buffer.concat(chunks).toString('latin1'))) {
        // Let the write callback report before answering.
        socket.end(() => setImmediate(done));
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', done);
  });
}

describe('gateway body limits', () => {
  const h = useGateway();

  it('refuses a Content-Length over the limit with 413 before reading, and keeps the connection', async () => {
    const res = await call(h, 'POST', '/send?url=u', { body: new Uint8Array(SEND_LIMIT + 1) });
    expect(res.status).toBe(413);
    expect(res.headers.get('connection')).not.toBe('close');
    // The raw body of /send is a field of its own, named as gRPC and Connect name it when it is too large.
    expect(res.body.error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', field: 'body' });
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

  it('lets a client that keeps writing finish its body and read the 413 instead of a reset', async () => {
    const big = Buffer.alloc(40 * 1024 * 1024, 98);
    const { response, bodyWritten } = await rawExchange(h, `POST /send?url=u HTTP/1.1\r\nHost: x\r\nContent-Length: ${big.length}\r\n\r\n`, big);
    expect(response).toMatch(/^HTTP\/1\.1 413 /);
    expect(response).toContain('"PAYLOAD_TOO_LARGE"');
    expect(bodyWritten).toBe(true);
  });

  it('closes the connection after a 413 when the declared body is too big to discard', async () => {
    const head = `POST /send?url=u HTTP/1.1\r\nHost: x\r\nContent-Length: ${200 * 1024 * 1024}\r\n\r\n`;
    const { response } = await rawExchange(h, head, Buffer.alloc(1024, 98));
    expect(response).toMatch(/^HTTP\/1\.1 413 /);
    expect(response.toLowerCase()).toContain('connection: close');
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
    expect(res.body.error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', field: null });
  });

  it('ignores a small body on a route that takes none, and bounds a large one', async () => {
    const small = await call(h, 'POST', '/requests/req_1/cancel', { json: {} });
    expect(small.status).toBe(202);
    const large = await call(h, 'POST', '/requests/req_1/cancel', { body: new Uint8Array(1024 * 1024) });
    expect(large.status).toBe(413);
  });

  it('answers a request that matches no route without waiting for its body, and keeps serving', async () => {
    const endless = await call(h, 'POST', '/nowhere', { body: stream(Number.POSITIVE_INFINITY) });
    expect(endless.status).toBe(404);
    const large = await call(h, 'POST', '/nowhere', { body: stream(1024 * 1024) });
    expect(large.status).toBe(404);
    const next = await call(h, 'POST', '/send?url=u', { body: 'ok' });
    expect(next.status).toBe(202);
  });
});
