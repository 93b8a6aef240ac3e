import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { join, relative, resolve } from 'node:path';
import { Code, ConnectError, createClient, createContextKey, createContextValues, type ConnectRouter } from '@connectrpc/connect';
import { compressionBrotli, compressionGzip, connectNodeAdapter, createGrpcTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hookedRpc, httpStatusOfCode, nameOfCode, unaryFraming, wrappedHandler, type RpcResponse } from '../../src/edge/rpc/connect-hook.js';
import { Health } from '../../src/gen/grpc/health/v1/health_pb.js';

/*
 * The guard of src/edge/rpc/connect-hook.ts: what the edge relies on below connect-es's public API. A failure here
 * means the library changed underneath; the edge's input reading and early observation need another look.
 */

const SRC = resolve(import.meta.dirname, '../../src');
const HOOK = 'edge/rpc/connect-hook.ts';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'gen' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The body as it is, noting each chunk handed on and the end. */
async function* recorded(body: AsyncIterable<Uint8Array>, seen: { chunks: Uint8Array[]; ended: boolean }): AsyncIterable<Uint8Array> {
  for await (const chunk of body) {
    seen.chunks.push(chunk);
    yield chunk;
  }
  seen.ended = true;
}

const TAG = createContextKey<string | undefined>(undefined, { description: 'test: set by the adapter' });

describe('the Connect hook', () => {
  /** What the hooked handler answered, for each call, with the chunks of its body once they were handed on. */
  const answered: Array<RpcResponse & { chunks: Uint8Array[]; ended: boolean }> = [];
  const tags: Array<string | undefined> = [];
  let server: http.Server;
  let h2: http2.Http2Server;
  let url = '';
  let h2url = '';
  const sessions: http2.ServerHttp2Session[] = [];

  beforeAll(async () => {
    const handler = connectNodeAdapter({
      routes: (router: ConnectRouter) => {
        hookedRpc(
          router,
          Health.method.check,
          async (req, ctx) => {
            tags.push(ctx.values.get(TAG));
            if (req.service !== '') throw new ConnectError('unknown', Code.NotFound);
            return { status: 1 };
          },
          (inner) =>
            wrappedHandler(inner, async (req) => {
              const res = await inner(req);
              const seen = { ...res, chunks: [] as Uint8Array[], ended: false };
              answered.push(seen);
              const body = res.body && recorded(res.body, seen);
              return { ...res, body, header: new Headers([...(res.header ?? new Headers()), ['x-hooked', 'yes']]) };
            }),
        );
      },
      contextValues: () => createContextValues().set(TAG, 'from the adapter'),
    });
    server = http.createServer(handler);
    h2 = http2.createServer(handler);
    h2.on('session', (session) => sessions.push(session));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    await new Promise<void>((done) => h2.listen(0, '127.0.0.1', done));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    h2url = `http://127.0.0.1:${(h2.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    for (const session of sessions) session.destroy();
    await new Promise((done) => server.close(done));
    await new Promise((done) => h2.close(done));
  });

  const post = (body: string, headers: Record<string, string>, method = 'POST') =>
    fetch(`${url}/grpc.health.v1.Health/Check`, { method, headers, ...(method === 'POST' ? { body } : {}) });

  it('is the only file of src/ that imports connect-es protocol modules', () => {
    const importers = sourceFiles(SRC).filter((f) => /from '@connectrpc\/connect\/protocol/.test(readFileSync(f, 'utf8')));
    expect(importers.map((f) => relative(SRC, f))).toEqual([HOOK]);
  });

  it('replaces the handler the router serves, which keeps its path and sees the context values the adapter made', async () => {
    answered.length = 0;
    const res = await post('{"service":""}', { 'content-type': 'application/json' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-hooked')).toBe('yes');
    expect(await res.json()).toEqual({ status: 'SERVING' });
    expect(tags.at(-1)).toBe('from the adapter');
    expect(answered).toHaveLength(1);
  });

  it('sees the early answers as Connect gives them: 415 and 405 without a body, other errors with their code in a JSON body', async () => {
    answered.length = 0;
    expect((await post('x', { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await post('', {}, 'GET')).status).toBe(405);
    expect(answered.map((r) => [r.status, r.body])).toEqual([
      [415, undefined],
      [405, undefined],
    ]);
    const res = await post('{"service":"x"}', { 'content-type': 'application/json' });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'not_found' });
  });

  it('sees the gRPC status in the trailers once the body is read, and in the last gRPC-web frame', async () => {
    const grpc = createClient(Health, createGrpcTransport({ baseUrl: h2url }));
    const web = createClient(Health, createGrpcWebTransport({ baseUrl: url, httpVersion: '1.1' }));
    answered.length = 0;
    await expect(grpc.check({ service: 'x' })).rejects.toMatchObject({ code: Code.NotFound });
    await expect(web.check({ service: 'x' })).rejects.toMatchObject({ code: Code.NotFound });
    const [overGrpc, overWeb] = answered;
    expect([overGrpc?.status, overGrpc?.ended, overGrpc?.trailer?.get('grpc-status')]).toEqual([200, true, '5']);
    // gRPC-web has no trailers: they travel in a frame flagged 0x80, the last chunk of the body.
    const last = overWeb!.chunks.at(-1)!;
    expect([overWeb?.status, overWeb?.ended, last[0]! & 0x80]).toEqual([200, true, 0x80]);
    expect(Buffer.from(last.subarray(5)).toString('latin1')).toMatch(/^grpc-status:\s*5/im);
  });

  it('maps error codes to HTTP statuses and names as the Connect protocol does', () => {
    const expected: Array<[Code, number, string]> = [
      [Code.Canceled, 499, 'canceled'],
      [Code.InvalidArgument, 400, 'invalid_argument'],
      [Code.DeadlineExceeded, 504, 'deadline_exceeded'],
      [Code.NotFound, 404, 'not_found'],
      [Code.AlreadyExists, 409, 'already_exists'],
      [Code.ResourceExhausted, 429, 'resource_exhausted'],
      [Code.FailedPrecondition, 400, 'failed_precondition'],
      [Code.Unimplemented, 501, 'unimplemented'],
      [Code.Internal, 500, 'internal'],
      [Code.Unavailable, 503, 'unavailable'],
      [Code.Unauthenticated, 401, 'unauthenticated'],
      [Code.Unknown, 500, 'unknown'],
    ];
    for (const [code, status, name] of expected) expect([httpStatusOfCode(code), nameOfCode(code)]).toEqual([status, name]);
  });

  it('reads the framing of unary content types as Connect does', () => {
    expect(unaryFraming('application/json')).toEqual({ enveloped: false, binary: false, codingHeader: 'content-encoding' });
    expect(unaryFraming('application/json; charset=utf-8')).toMatchObject({ enveloped: false, binary: false });
    expect(unaryFraming('application/proto')).toMatchObject({ enveloped: false, binary: true });
    expect(unaryFraming('application/grpc')).toEqual({ enveloped: true, binary: true, codingHeader: 'grpc-encoding' });
    expect(unaryFraming('application/grpc+json')).toMatchObject({ enveloped: true, binary: false });
    expect(unaryFraming('application/grpc-web+proto')).toMatchObject({ enveloped: true, binary: true });
    for (const other of ['application/connect+json', 'application/grpc-web-text', 'text/plain', null]) expect(unaryFraming(other)).toBeUndefined();
  });

  it('decompresses with connect-node\'s codings, refusing a body over the limit as resource_exhausted', async () => {
    expect([compressionGzip.name, compressionBrotli.name]).toEqual(['gzip', 'br']);
    const big = await compressionGzip.compress(new Uint8Array(10_000));
    expect((await compressionGzip.decompress(big, 20_000)).byteLength).toBe(10_000);
    await expect(compressionGzip.decompress(big, 1_000)).rejects.toMatchObject({ code: Code.ResourceExhausted });
    const garbage = compressionGzip.decompress(new TextEncoder().encode('not gzip'), 1_000);
    await expect(garbage).rejects.toBeInstanceOf(ConnectError);
    await expect(garbage).rejects.not.toMatchObject({ code: Code.ResourceExhausted });
  });
});
