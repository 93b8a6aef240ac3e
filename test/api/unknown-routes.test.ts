import http2 from 'node:http2';
import net from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useFerry } from '../support/fixture.js';

/** A path no service has; health and reflection services may come and go, this one never exists. */
const UNKNOWN = '/nope.v1.Nothing/Call';

/** How long an answer may take before the call counts as hanging: far above any answer, far below a timeout. */
const ANSWER_DEADLINE_MS = 15_000;

function withDeadline<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ANSWER_DEADLINE_MS} ms`)), ANSWER_DEADLINE_MS);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

interface H2Answer {
  status: number;
  headers: http2.IncomingHttpHeaders;
  body: string;
  /** The RST_STREAM code the stream ended with. */
  rstCode: number;
}

/**
 * Opens an HTTP/2 stream, sends its headers and part of a body and never ends it, as a streaming client does
 * while it waits for an answer; resolves with the answer once the stream is closed.
 */
function openH2Stream(session: http2.ClientHttp2Session, headers: http2.OutgoingHttpHeaders): Promise<H2Answer> {
  return new Promise((resolve, reject) => {
    const stream = session.request(headers, { endStream: false });
    stream.write(Buffer.from('{"partial": '));
    let status = 0;
    let answerHeaders: http2.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    stream.on('response', (h) => {
      status = Number(h[':status']);
      answerHeaders = h;
    });
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('error', reject);
    stream.on('close', () => resolve({ status, headers: answerHeaders, body: Buffer.concat(chunks).toString('utf8'), rstCode: stream.rstCode ?? -1 }));
  });
}

/** Writes a raw HTTP/1.1 exchange on one socket and collects what comes back. */
class RawConnection {
  private readonly socket: net.Socket;
  private received = '';
  private waiters: Array<() => void> = [];

  constructor(baseUrl: string) {
    const { hostname, port } = new URL(baseUrl);
    this.socket = net.connect(Number(port), hostname);
    this.socket.on('data', (c: Buffer) => {
      this.received += c.toString('latin1');
      for (const w of this.waiters.splice(0)) w();
    });
    this.socket.on('error', () => undefined);
  }

  write(text: string): void {
    this.socket.write(text);
  }

  /** Waits until `count` complete JSON answers arrived; returns every answer so far. */
  async answers(count: number): Promise<string[]> {
    for (;;) {
      const found = this.received.split(/(?=HTTP\/1\.1 )/).filter((a) => /\r\n\r\n\{[\s\S]*\}$/.test(a) || /\r\n\r\n\{[\s\S]*\}(?=HTTP)/.test(a));
      if (found.length >= count) return found;
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

describe('unknown routes are answered at once, whatever the body', () => {
  const f = useFerry();
  let session: http2.ClientHttp2Session;
  beforeAll(() => {
    session = http2.connect(`http://${f.ferry.grpcAddress}`);
    session.on('error', () => undefined);
  });
  afterAll(() => session?.close());

  it('answers an HTTP/2 stream to an unknown path that never ends its body with 404, then resets it with NO_ERROR', async () => {
    const answer = await withDeadline(
      openH2Stream(session, { ':method': 'POST', ':path': UNKNOWN, 'content-type': 'application/json', authorization: `Bearer ${f.apiKey}` }),
      'HTTP/2 unknown path',
    );
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body)).toMatchObject({ success: false, error: { code: 'ROUTE_NOT_FOUND' } });
    expect(answer.rstCode).toBe(http2.constants.NGHTTP2_NO_ERROR);
  });

  it('answers an open HTTP/2 stream on a known path with another method with 405 and Allow', async () => {
    const answer = await withDeadline(
      openH2Stream(session, { ':method': 'PUT', ':path': '/requests', 'content-type': 'application/json', authorization: `Bearer ${f.apiKey}` }),
      'HTTP/2 wrong method',
    );
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('POST, GET');
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'METHOD_NOT_ALLOWED' } });
  });

  it('keeps serving the HTTP/2 connection after such answers', async () => {
    const stream = session.request({ ':method': 'GET', ':path': '/requests?limit=1', authorization: `Bearer ${f.apiKey}` });
    const status = await withDeadline(
      new Promise<number>((resolve, reject) => {
        stream.on('response', (h) => resolve(Number(h[':status'])));
        stream.on('error', reject);
      }),
      'HTTP/2 follow-up',
    );
    stream.resume();
    expect(status).toBe(200);
  });

  it('answers an unknown gRPC service with UNIMPLEMENTED, for a unary call and for a stream the client keeps open', async () => {
    const client = new grpc.Client(f.ferry.grpcAddress, grpc.credentials.createInsecure());
    try {
      const unary = await withDeadline(
        new Promise<grpc.ServiceError | null>((resolve) => {
          client.makeUnaryRequest(UNKNOWN, (b: Buffer) => b, (b: Buffer) => b, Buffer.from([]), (err) => resolve(err));
        }),
        'gRPC unary',
      );
      expect(unary?.code).toBe(grpc.status.UNIMPLEMENTED);

      const open = await withDeadline(
        new Promise<grpc.ServiceError | null>((resolve) => {
          const call = client.makeClientStreamRequest(UNKNOWN, (b: Buffer) => b, (b: Buffer) => b, (err) => resolve(err));
          // One message, and the stream stays open: the client waits for the server.
          call.write(Buffer.from([0x0a, 0x01, 0x78]));
        }),
        'gRPC open stream',
      );
      expect(open?.code).toBe(grpc.status.UNIMPLEMENTED);
    } finally {
      client.close();
    }
  });

  it('answers an HTTP/1.1 request to an unknown path before its body is complete, and the connection serves the next request', async () => {
    const conn = new RawConnection(f.ferry.baseUrl);
    try {
      conn.write(`POST ${UNKNOWN} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"partial": `);
      const [first] = await withDeadline(conn.answers(1), 'HTTP/1.1 unknown path');
      expect(first).toMatch(/^HTTP\/1\.1 404 /);
      expect(first).toContain('"ROUTE_NOT_FOUND"');
      expect(first!.toLowerCase()).not.toContain('connection: close');

      // The rest of the body, then a second request on the same connection.
      conn.write(' '.repeat(1000 - '{"partial": '.length));
      conn.write(`GET /requests?limit=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${f.apiKey}\r\n\r\n`);
      const both = await withDeadline(conn.answers(2), 'HTTP/1.1 follow-up');
      expect(both[1]).toMatch(/^HTTP\/1\.1 200 /);
    } finally {
      conn.close();
    }
  });

  it('answers a chunked HTTP/1.1 request with a wrong method before its body ends, with 405 and Allow', async () => {
    const conn = new RawConnection(f.ferry.baseUrl);
    try {
      conn.write('DELETE /send HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n');
      const [answer] = await withDeadline(conn.answers(1), 'HTTP/1.1 wrong method');
      expect(answer).toMatch(/^HTTP\/1\.1 405 /);
      expect(answer!.toLowerCase()).toContain('allow: post\r\n');
      expect(answer).toContain('"METHOD_NOT_ALLOWED"');
    } finally {
      conn.close();
    }
  });
});
