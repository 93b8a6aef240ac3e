import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { DescService } from '@bufbuild/protobuf';
import type { HandlerContext, ServiceImpl } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/edge/http/gateway.js';
import { RequestService } from '../../src/gen/ferry/v1/request_service_pb.js';

describe('gateway over HTTP/2', () => {
  const seen: { request: { body: Uint8Array; url: string; forwardHeaders: Record<string, string> }; context: HandlerContext }[] = [];
  let server: http2.Http2Server;
  let session: http2.ClientHttp2Session;

  beforeAll(async () => {
    const impl = {
      send: (request: never, context: HandlerContext) => {
        seen.push({ request, context });
        return { acceptance: { id: 'req_1' } };
      },
    };
    server = http2.createServer(createGateway({ services: [{ service: RequestService, impl: impl as unknown as Partial<ServiceImpl<DescService>> }] }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    session = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  afterAll(async () => {
    session.close();
    await new Promise((resolve) => server.close(resolve));
  });

  function post(path: string, headers: http2.OutgoingHttpHeaders, body: Buffer): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const stream = session.request({ ':method': 'POST', ':path': path, ...headers });
      let status = 0;
      const chunks: Buffer[] = [];
      stream.on('response', (h) => (status = Number(h[':status'])));
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('close', () => resolve({ status, body: Buffer.concat(chunks).toString() }));
      stream.on('error', reject);
      stream.end(body);
    });
  }

  it('binds the request and leaves pseudo-headers out of the request headers', async () => {
    const res = await post('/send?url=u', { authorization: 'Bearer k', 'x-forward-x-a': '1' }, Buffer.from([0xff, 1]));
    expect(res.status).toBe(202);
    expect(JSON.parse(res.body).data.id).toBe('req_1');
    const { request, context } = seen.at(-1)!;
    expect([...request.body]).toEqual([0xff, 1]);
    expect(request.forwardHeaders).toEqual({ 'x-a': '1' });
    expect(context.requestHeader.get('authorization')).toBe('Bearer k');
    expect([...context.requestHeader.keys()].some((k) => k.startsWith(':'))).toBe(false);
    expect(new URL(context.url).pathname).toBe('/send');
  });

  it('answers 413 and ends only the stream, leaving the session usable', async () => {
    const res = await post('/send?url=u', {}, Buffer.alloc(300_000));
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).error.code).toBe('PAYLOAD_TOO_LARGE');
    const after = await post('/send?url=u', {}, Buffer.from('ok'));
    expect(after.status).toBe(202);
  });
});
