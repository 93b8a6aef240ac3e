import http2 from 'node:http2';
import { gzipSync } from 'node:zlib';
import { fromBinary } from '@bufbuild/protobuf';
import { base64Decode } from '@bufbuild/protobuf/wire';
import { Metadata, status as GrpcStatus } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CancelRequestRequestSchema,
  CancelRequestResponseSchema,
  CancelStatus,
  CreateRequestRequestSchema,
  CreateRequestResponseSchema,
  GetRequestRequestSchema,
  GetRequestResponseSchema,
  ListRequestsRequestSchema,
  ListRequestsResponseSchema,
  RequestService,
  SendRequestSchema,
  SendResponseSchema,
} from '../../src/gen/ferry/v1/request_service_pb.js';
import { RequestStatus } from '../../src/gen/ferry/v1/requests_pb.js';
import { ErrorDetailSchema } from '../../src/gen/ferry/v1/errors_pb.js';
import { TEST_BACKEND } from '../support/deployment.js';
import { DEST, useFerry } from '../support/fixture.js';
import { GrpcTestClient, grpcErrorDetail } from '../support/grpc-client.js';
import { sampleOf } from '../support/metrics.js';

/** Ferry's `ErrorDetail` of a Connect error body. */
function connectDetail(error: { details?: Array<{ type: string; value: string }> }): { code: string; field: string } | undefined {
  const detail = error.details?.find((d) => d.type === 'ferry.v1.ErrorDetail');
  if (detail === undefined) return undefined;
  const { code, field } = fromBinary(ErrorDetailSchema, base64Decode(detail.value));
  return { code, field };
}

/** One unary gRPC call with `message` sent as the bytes of its frame, as a client with a broken encoder would. */
function rawGrpcCall(address: string, path: string, message: Uint8Array, apiKey: string | null): Promise<{ status: number; message: string; detail: { code: string; field: string } | undefined; requestId: string | undefined }> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`http://${address}`);
    session.on('error', reject);
    const headers: http2.OutgoingHttpHeaders = { ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers' };
    if (apiKey !== null) headers.authorization = `Bearer ${apiKey}`;
    const stream = session.request(headers);
    let trailers: http2.IncomingHttpHeaders = {};
    stream.on('trailers', (t) => (trailers = t));
    stream.on('data', () => undefined);
    stream.on('error', reject);
    stream.on('end', () => {
      session.close();
      const bin = trailers['grpc-status-details-bin'];
      const metadata = new Metadata();
      if (typeof bin === 'string') metadata.set('grpc-status-details-bin', Buffer.from(bin, 'base64'));
      resolve({
        status: Number(trailers['grpc-status']),
        message: decodeURIComponent(String(trailers['grpc-message'] ?? '')),
        detail: grpcErrorDetail({ metadata } as never),
        requestId: trailers['ferry-request-id'] as string | undefined,
      });
    });
    const frame = Buffer.alloc(5 + message.byteLength);
    frame.writeUInt32BE(message.byteLength, 1);
    frame.set(message, 5);
    stream.end(frame);
  });
}

/** Bytes that are no Protobuf message: a field tag that does not exist. */
const NOT_PROTOBUF = Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0x0f]);

describe('gRPC and Connect protocols', () => {
  const f = useFerry({ env: { FERRY_CORS_ORIGINS: 'https://app.example.com' } });
  let grpc: GrpcTestClient;
  beforeAll(() => {
    grpc = new GrpcTestClient(RequestService, f.ferry.grpcAddress, f.apiKey);
  });
  afterAll(() => grpc.close());

  it('serves a plain @grpc/grpc-js client: send, get, list, cancel', async () => {
    const sent = await grpc.call('Send', SendRequestSchema, SendResponseSchema, {
      url: DEST,
      body: new Uint8Array([1, 2, 3]),
      forwardHeaders: { 'X-Trace': 't' },
      delay: '1h',
    });
    if (!sent.ok) throw sent.error;
    const acceptance = sent.value.acceptance!;
    expect(acceptance.id).toMatch(/^req_/);
    expect(acceptance.status).toBe(RequestStatus.SCHEDULED);

    const got = await grpc.call('GetRequest', GetRequestRequestSchema, GetRequestResponseSchema, { requestId: acceptance.id });
    if (!got.ok) throw got.error;
    expect(got.value.request?.headers).toEqual({ 'X-Trace': '[REDACTED]' });

    const http = await f.api.call<Record<string, unknown>>('GET', `/requests/${acceptance.id}`);
    expect(http.body.data.id).toBe(acceptance.id);

    const list = await grpc.call('ListRequests', ListRequestsRequestSchema, ListRequestsResponseSchema, { limit: 1 });
    if (!list.ok) throw list.error;
    expect(list.value.items[0]?.id).toBe(acceptance.id);

    const cancelled = await grpc.call('CancelRequest', CancelRequestRequestSchema, CancelRequestResponseSchema, { requestId: acceptance.id });
    if (!cancelled.ok) throw cancelled.error;
    expect(cancelled.value.status).toBe(CancelStatus.CANCELLATION_REQUESTED);
  });

  it('gives the same answers as the JSON API for the same bad input', async () => {
    const cases: Array<{ input: Record<string, unknown>; query: Record<string, string>; code: string; field: string }> = [
      { input: { url: 'https://127.0.0.1/' }, query: { url: 'https://127.0.0.1/' }, code: 'DESTINATION_NOT_ALLOWED', field: 'url' },
      { input: { url: DEST, delay: '99d' }, query: { url: DEST, delay: '99d' }, code: 'INVALID_DELAY', field: 'delay' },
      { input: { url: DEST, retry: 25 }, query: { url: DEST, retry: '25' }, code: 'INVALID_RETRY', field: 'retry' },
    ];
    for (const c of cases) {
      const viaGrpc = await grpc.call('Send', SendRequestSchema, SendResponseSchema, c.input);
      expect(viaGrpc.ok).toBe(false);
      if (viaGrpc.ok) continue;
      expect(viaGrpc.error.code).toBe(GrpcStatus.INVALID_ARGUMENT);
      expect(grpcErrorDetail(viaGrpc.error)).toEqual({ code: c.code, field: c.field });
      const viaHttp = await f.api.send(c.query);
      expect(viaHttp.status).toBe(422);
      expect(viaHttp.body.error).toMatchObject({ code: c.code, field: c.field });
      expect(viaHttp.body.error?.message).toBe(viaGrpc.error.details);
    }
  });

  it('takes the schedule filter of the list over gRPC, and refuses a malformed schedule ID as the JSON API does', async () => {
    const unknown = await grpc.call('ListRequests', ListRequestsRequestSchema, ListRequestsResponseSchema, { scheduleId: 'sch_01JQ3ZV5D2Y8K1N4M6P7R9S0TW' });
    if (!unknown.ok) throw unknown.error;
    expect(unknown.value.items).toEqual([]);

    const bad = await grpc.call('ListRequests', ListRequestsRequestSchema, ListRequestsResponseSchema, { scheduleId: 'sch_1' });
    expect(!bad.ok && bad.error.code).toBe(GrpcStatus.INVALID_ARGUMENT);
    if (bad.ok) return;
    expect(grpcErrorDetail(bad.error)).toEqual({ code: 'INVALID_FILTER', field: 'schedule_id' });
    const viaHttp = await f.api.call('GET', '/requests?schedule_id=sch_1');
    expect(viaHttp.status).toBe(422);
    expect(viaHttp.body.error).toMatchObject({ code: 'INVALID_FILTER', field: 'schedule_id', message: bad.error.details });
  });

  it('takes the queue and flow key filters of the list over gRPC and Connect, and refuses bad ones as the JSON API does', async () => {
    const queue = `protocols-${Date.now()}`;
    const sent = await grpc.call('Send', SendRequestSchema, SendResponseSchema, { url: DEST, queue, flowKeys: 'vendor:grpc, tenant:9' });
    if (!sent.ok) throw sent.error;
    const id = sent.value.acceptance!.id;
    await f.api.send({ url: DEST, queue: `${queue}-other` }, 'hello', { 'flow-keys': 'vendor:grpc' });
    const viaGrpc = await grpc.call('ListRequests', ListRequestsRequestSchema, ListRequestsResponseSchema, { queue, flowKey: 'tenant:9' });
    if (!viaGrpc.ok) throw viaGrpc.error;
    expect(viaGrpc.value.items.map((i) => i.id)).toEqual([id]);
    const connect = (body: object) =>
      fetch(`${f.ferry.baseUrl}/ferry.v1.RequestService/ListRequests`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${f.apiKey}` },
        body: JSON.stringify(body),
      });
    const viaConnect = await connect({ queue, flowKey: 'vendor:grpc' });
    expect(viaConnect.status).toBe(200);
    expect(((await viaConnect.json()) as { items: Array<{ id: string }> }).items.map((i) => i.id)).toEqual([id]);

    for (const [input, query, code, field] of [
      [{ queue: 'a b' }, 'queue=a%20b', 'INVALID_QUEUE', 'queue'],
      [{ flowKey: 'a,b' }, 'flow_key=a%2Cb', 'INVALID_FLOW_KEY', 'flow_key'],
      [{ responseStatusCode: 99 }, 'response_status_code=99', 'INVALID_FILTER', 'response_status_code'],
    ] as const) {
      const bad = await grpc.call('ListRequests', ListRequestsRequestSchema, ListRequestsResponseSchema, input);
      expect(!bad.ok && bad.error.code).toBe(GrpcStatus.INVALID_ARGUMENT);
      if (bad.ok) continue;
      expect(grpcErrorDetail(bad.error)).toEqual({ code, field });
      const badConnect = await connect(input);
      expect(badConnect.status).toBe(400);
      expect(connectDetail((await badConnect.json()) as { details?: Array<{ type: string; value: string }> })).toEqual({ code, field });
      const viaHttp = await f.api.call('GET', `/requests?${query}`);
      expect(viaHttp.status).toBe(422);
      // Connect sends grpc-message through encodeURIComponent and grpc-js reads it with decodeURI, which leaves a
      // comma encoded: the text is the same once fully decoded.
      expect(viaHttp.body.error).toMatchObject({ code, field, message: decodeURIComponent(bad.error.details) });
    }
  });

  it('maps 401 and 404 to UNAUTHENTICATED and NOT_FOUND', async () => {
    const noKey = await grpc.call('GetRequest', GetRequestRequestSchema, GetRequestResponseSchema, { requestId: 'x' }, { apiKey: null });
    expect(!noKey.ok && noKey.error.code).toBe(GrpcStatus.UNAUTHENTICATED);
    const missing = await grpc.call('GetRequest', GetRequestRequestSchema, GetRequestResponseSchema, { requestId: 'req_x' });
    expect(!missing.ok && missing.error.code).toBe(GrpcStatus.NOT_FOUND);
  });

  it('serves the Connect protocol with JSON on the HTTP/1.1 port', async () => {
    const res = await fetch(`${f.ferry.baseUrl}/ferry.v1.RequestService/CreateRequest`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${f.apiKey}` },
      body: JSON.stringify({ input: { url: DEST, body: { a: 1 }, retry: { maxAttempts: 2 } } }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { acceptance: { id: string; status: string } };
    expect(body.acceptance.status).toBe('REQUEST_STATUS_QUEUED');
    const detail = await f.api.call<Record<string, unknown>>('GET', `/requests/${body.acceptance.id}`);
    expect(detail.body.data.max_attempts).toBe(2);

    const bad = await fetch(`${f.ferry.baseUrl}/ferry.v1.RequestService/CreateRequest`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${f.apiKey}` },
      body: JSON.stringify({ input: { url: 'ftp://example.com/' } }),
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { code: string }).code).toBe('invalid_argument');
  });

  it.runIf(TEST_BACKEND === 'embedded')('refuses a body that is no Protobuf message with invalid_argument and its ErrorDetail, after the key, and counts it', async () => {
    const send = `${f.ferry.baseUrl}/ferry.v1.RequestService/Send`;
    const counted = async (protocol: string, status: string): Promise<number> =>
      sampleOf(await (await fetch(`${f.ferry.baseUrl}/metrics`)).text(), 'ferry_api_request_duration_seconds_count', { route: 'ferry.v1.RequestService/Send', protocol, code: status });
    const before = { connect: await counted('connect', '4xx'), grpc: await counted('grpc', '4xx') };

    const noKey = await fetch(send, { method: 'POST', headers: { 'content-type': 'application/proto' }, body: NOT_PROTOBUF });
    const noKeyError = (await noKey.json()) as { code: string; details?: Array<{ type: string; value: string }> };
    expect([noKey.status, noKeyError.code, connectDetail(noKeyError)?.code]).toEqual([401, 'unauthenticated', 'UNAUTHENTICATED']);
    const bad = await fetch(send, { method: 'POST', headers: { 'content-type': 'application/proto', authorization: `Bearer ${f.apiKey}` }, body: NOT_PROTOBUF });
    const badError = (await bad.json()) as { code: string; message: string; details?: Array<{ type: string; value: string }> };
    expect([bad.status, badError.code, connectDetail(badError)]).toEqual([400, 'invalid_argument', { code: 'INVALID_PROTOBUF', field: '' }]);
    expect(badError.message).toContain('ferry.v1.SendRequest');
    expect(bad.headers.get('ferry-request-id')).toMatch(/^[0-9a-f-]{36}$/);

    const grpcNoKey = await rawGrpcCall(f.ferry.grpcAddress, '/ferry.v1.RequestService/Send', NOT_PROTOBUF, null);
    expect([grpcNoKey.status, grpcNoKey.detail?.code]).toEqual([GrpcStatus.UNAUTHENTICATED, 'UNAUTHENTICATED']);
    const grpcBad = await rawGrpcCall(f.ferry.grpcAddress, '/ferry.v1.RequestService/Send', NOT_PROTOBUF, f.apiKey);
    expect([grpcBad.status, grpcBad.detail, grpcBad.message]).toEqual([GrpcStatus.INVALID_ARGUMENT, { code: 'INVALID_PROTOBUF', field: '' }, badError.message]);

    expect(await counted('connect', '4xx')).toBe(before.connect + 2);
    expect(await counted('grpc', '4xx')).toBe(before.grpc + 2);
    expect((await f.api.call<{ items: unknown[] }>('GET', '/requests?search=nothing-sent')).body.data.items).toEqual([]);
  });

  it.runIf(TEST_BACKEND === 'embedded')('reads a gzip-compressed Connect body, and refuses one that does not decompress as invalid input', async () => {
    const list = `${f.ferry.baseUrl}/ferry.v1.RequestService/ListRequests`;
    const headers = { 'content-type': 'application/json', 'content-encoding': 'gzip', authorization: `Bearer ${f.apiKey}` };
    const compressed = await fetch(list, { method: 'POST', headers, body: gzipSync('{"limit": 1}') });
    expect(compressed.status).toBe(200);
    const broken = await fetch(list, { method: 'POST', headers, body: Uint8Array.from([0x1f, 0x8b, 0x08, 0x00, 0x01]) });
    const error = (await broken.json()) as { code: string; details?: Array<{ type: string; value: string }> };
    expect([broken.status, error.code, connectDetail(error)?.code]).toEqual([400, 'invalid_argument', 'INVALID_JSON']);
  });

  it.runIf(TEST_BACKEND === 'embedded')('counts the calls Connect refuses before reading them: an unknown JSON field and a content type it does not read', async () => {
    const send = `${f.ferry.baseUrl}/ferry.v1.RequestService/Send`;
    const counted = async (status: string): Promise<number> =>
      sampleOf(await (await fetch(`${f.ferry.baseUrl}/metrics`)).text(), 'ferry_api_request_duration_seconds_count', { route: 'ferry.v1.RequestService/Send', protocol: 'connect', code: status });
    const before = await counted('4xx');
    const unknown = await fetch(send, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${f.apiKey}` }, body: JSON.stringify({ url: DEST, foo: 1 }) });
    expect(connectDetail((await unknown.json()) as never)).toEqual({ code: 'UNKNOWN_FIELD', field: 'foo' });
    const xml = await fetch(send, { method: 'POST', headers: { 'content-type': 'text/xml', authorization: `Bearer ${f.apiKey}` }, body: '<send/>' });
    expect(xml.status).toBe(415);
    expect(((await xml.json()) as { error: { code: string } }).error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(await counted('4xx')).toBe(before + 2);
  });

  it.runIf(TEST_BACKEND === 'embedded')('answers the preflight of an allowed origin, and lets its pages read the answers, on the JSON and Connect paths', async () => {
    const origin = 'https://app.example.com';
    for (const [path, method] of [['/requests', 'POST'], ['/schedules/sch_1', 'PATCH'], ['/ferry.v1.RequestService/Send', 'POST']] as const) {
      const preflight = await fetch(`${f.ferry.baseUrl}${path}`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization, content-type, idempotency-key, x-forward-x-trace' },
      });
      expect(preflight.status, path).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
      expect(preflight.headers.get('access-control-allow-methods')?.split(', ')).toContain(method);
      expect(preflight.headers.get('access-control-allow-headers')).toBe('authorization, content-type, idempotency-key, x-forward-x-trace');
      expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
      expect(preflight.headers.get('vary')).toContain('Origin');
    }
    const listed = await fetch(`${f.ferry.baseUrl}/requests`, { headers: { origin, authorization: `Bearer ${f.apiKey}` } });
    expect(listed.headers.get('access-control-allow-origin')).toBe(origin);
    expect(listed.headers.get('access-control-expose-headers')?.split(', ')).toEqual(expect.arrayContaining(['Ferry-Request-Id', 'Retry-After']));
    expect(listed.headers.get('vary')).toBe('Origin');
    const viaConnect = await fetch(`${f.ferry.baseUrl}/ferry.v1.RequestService/ListRequests`, {
      method: 'POST',
      headers: { origin, authorization: `Bearer ${f.apiKey}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect([viaConnect.status, viaConnect.headers.get('access-control-allow-origin')]).toEqual([200, origin]);

    const other = await fetch(`${f.ferry.baseUrl}/requests`, { method: 'OPTIONS', headers: { origin: 'https://elsewhere.example.com', 'access-control-request-method': 'POST' } });
    expect(other.status).toBe(405);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const otherGet = await fetch(`${f.ferry.baseUrl}/requests`, { headers: { origin: 'https://elsewhere.example.com', authorization: `Bearer ${f.apiKey}` } });
    expect(otherGet.headers.get('access-control-allow-origin')).toBeNull();
    expect(otherGet.headers.get('vary')).toBe('Origin');
  });

  it('serves gRPC create with a JSON body value', async () => {
    const res = await grpc.call('CreateRequest', CreateRequestRequestSchema, CreateRequestResponseSchema, {
      input: { url: DEST, method: 'PUT', metadata: { k: 'v' } },
      idempotencyKey: 'grpc-1',
    });
    if (!res.ok) throw res.error;
    const again = await grpc.call('CreateRequest', CreateRequestRequestSchema, CreateRequestResponseSchema, {
      input: { url: DEST, method: 'PUT', metadata: { k: 'v' } },
      idempotencyKey: 'grpc-1',
    });
    if (!again.ok) throw again.error;
    expect(again.value.acceptance?.id).toBe(res.value.acceptance?.id);
    // The JSON API with the same key and the same definition is the same request.
    const http = await f.api.create({ url: DEST, method: 'PUT', metadata: { k: 'v' } }, { 'idempotency-key': 'grpc-1' });
    expect((http.body.data as { id: string }).id).toBe(res.value.acceptance?.id);
  });
});
