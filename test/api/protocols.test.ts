import { status as GrpcStatus } from '@grpc/grpc-js';
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
import { DEST, useFerry } from '../support/fixture.js';
import { GrpcTestClient, grpcErrorDetail } from '../support/grpc-client.js';

describe('gRPC and Connect protocols', () => {
  const f = useFerry();
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
