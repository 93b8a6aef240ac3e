import { create, fromBinary, toBinary, type DescMessage, type DescService } from '@bufbuild/protobuf';
import { base64Decode } from '@bufbuild/protobuf/wire';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorDetailSchema } from '../../src/gen/ferry/v1/errors_pb.js';
import {
  BatchCreateRequestsRequestSchema,
  BatchCreateRequestsResponseSchema,
  CreateRequestRequestSchema,
  CreateRequestResponseSchema,
  RequestService,
  SendRequestSchema,
  SendResponseSchema,
} from '../../src/gen/ferry/v1/request_service_pb.js';
import { CreateScheduleRequestSchema, CreateScheduleResponseSchema, ScheduleService } from '../../src/gen/ferry/v1/schedule_service_pb.js';
import { DEST, useFerry } from '../support/fixture.js';
import { GrpcTestClient, grpcErrorDetail } from '../support/grpc-client.js';

type Rpc = 'send' | 'create' | 'batch' | 'schedule';

/** What a protocol answered a refused call: the catalogue code and field, and the message. */
interface Refusal {
  code: string;
  field: string | null;
  message: string;
  /** The HTTP status, the Connect code or the gRPC status, as the protocol reports it. */
  status: number | string;
}

interface Case {
  readonly name: string;
  readonly rpc: Rpc;
  /**
   * The input as the JSON API takes it: the body (for send, `url` goes in the query and `body` is the raw body).
   * Connect JSON sends the same JSON in the request message.
   */
  readonly json: Record<string, unknown>;
  /** The request message for Connect binary and gRPC; absent when Protobuf cannot express the input. */
  readonly message?: Record<string, unknown>;
  readonly code: string;
  readonly field: string | null;
}

const OVER_BODY = 'x'.repeat(300 * 1024);
const OVER_REQUEST = 'x'.repeat(600 * 1024);
const TIMING = { type: 'interval', every_seconds: 3600 };
const TIMING_MESSAGE = { type: 'interval', everySeconds: 3600 };

const CASES: Case[] = [
  { name: 'an unknown field', rpc: 'create', json: { url: DEST, foo: 1 }, code: 'UNKNOWN_FIELD', field: 'foo' },
  { name: 'an unknown field of a batch item', rpc: 'batch', json: { requests: [{ url: DEST }, { url: DEST, foo: 1 }] }, code: 'UNKNOWN_FIELD', field: 'requests[1].foo' },
  { name: 'an unknown field of a schedule request', rpc: 'schedule', json: { name: 'n', timing: TIMING, request: { url: DEST, foo: 1 } }, code: 'UNKNOWN_FIELD', field: 'request.foo' },
  { name: 'a wrong type', rpc: 'create', json: { url: DEST, retry: { max_attempts: 'three' } }, code: 'INVALID_FIELD', field: 'retry.max_attempts' },
  { name: 'a number for a string', rpc: 'create', json: { url: 5 }, code: 'INVALID_FIELD', field: 'url' },
  { name: 'a wrong type in a schedule timing', rpc: 'schedule', json: { name: 'n', timing: { type: 'interval', every_seconds: '60' }, request: { url: DEST } }, code: 'INVALID_FIELD', field: 'timing.every_seconds' },
  {
    name: 'a bad method',
    rpc: 'create',
    json: { url: DEST, method: 'FETCH' },
    message: { input: { url: DEST, method: 'FETCH' } },
    code: 'INVALID_METHOD',
    field: 'method',
  },
  {
    name: 'a bad backoff',
    rpc: 'create',
    json: { url: DEST, retry: { backoff: 'linear' } },
    message: { input: { url: DEST, retry: { backoff: 'linear' } } },
    code: 'INVALID_RETRY',
    field: 'retry.backoff',
  },
  {
    name: 'a bad timing type',
    rpc: 'schedule',
    json: { name: 'n', timing: { type: 'weekly' }, request: { url: DEST } },
    message: { idempotencyKey: 'k', name: 'n', timing: { type: 'weekly' }, request: { url: DEST } },
    code: 'INVALID_TIMING',
    field: 'timing.type',
  },
  { name: 'a missing url', rpc: 'create', json: { method: 'PUT' }, message: { input: { method: 'PUT' } }, code: 'MISSING_FIELD', field: 'url' },
  { name: 'an empty url', rpc: 'create', json: { url: '' }, message: { input: { url: '' } }, code: 'MISSING_FIELD', field: 'url' },
  {
    name: 'a batch item without url',
    rpc: 'batch',
    json: { requests: [{ url: DEST }, { method: 'PUT' }] },
    message: { idempotencyKey: 'k', requests: [{ url: DEST }, { method: 'PUT' }] },
    code: 'MISSING_FIELD',
    field: 'requests[1].url',
  },
  {
    name: 'a schedule request without url',
    rpc: 'schedule',
    json: { name: 'n', timing: TIMING, request: { retry: 1 } },
    message: { idempotencyKey: 'k', name: 'n', timing: TIMING_MESSAGE, request: { retry: 1 } },
    code: 'MISSING_FIELD',
    field: 'request.url',
  },
  { name: 'a send without url', rpc: 'send', json: { body: 'hello' }, message: { body: new TextEncoder().encode('hello') }, code: 'MISSING_FIELD', field: 'url' },
  { name: 'an invalid URL', rpc: 'create', json: { url: 'http://example.com/' }, message: { input: { url: 'http://example.com/' } }, code: 'INVALID_URL', field: 'url' },
  {
    name: 'an invalid URL in a batch item',
    rpc: 'batch',
    json: { requests: [{ url: DEST }, { url: 'https://user:pw@example.com/' }] },
    message: { idempotencyKey: 'k', requests: [{ url: DEST }, { url: 'https://user:pw@example.com/' }] },
    code: 'INVALID_URL',
    field: 'requests[1].url',
  },
  {
    name: 'an over-size destination body',
    rpc: 'create',
    json: { url: DEST, body: OVER_BODY },
    message: { input: { url: DEST, body: { kind: { case: 'stringValue', value: OVER_BODY } } } },
    code: 'PAYLOAD_TOO_LARGE',
    field: 'body',
  },
  {
    name: 'an over-size structured request',
    rpc: 'create',
    json: { url: DEST, body: OVER_REQUEST },
    message: { input: { url: DEST, body: { kind: { case: 'stringValue', value: OVER_REQUEST } } } },
    code: 'PAYLOAD_TOO_LARGE',
    field: null,
  },
  {
    name: 'an over-size raw body',
    rpc: 'send',
    json: { url: DEST, body: OVER_BODY },
    message: { url: DEST, body: new TextEncoder().encode(OVER_BODY) },
    code: 'PAYLOAD_TOO_LARGE',
    field: 'body',
  },
];

const RPCS: Record<Rpc, { service: DescService; method: string; input: DescMessage; output: DescMessage }> = {
  send: { service: RequestService, method: 'Send', input: SendRequestSchema, output: SendResponseSchema },
  create: { service: RequestService, method: 'CreateRequest', input: CreateRequestRequestSchema, output: CreateRequestResponseSchema },
  batch: { service: RequestService, method: 'BatchCreateRequests', input: BatchCreateRequestsRequestSchema, output: BatchCreateRequestsResponseSchema },
  schedule: { service: ScheduleService, method: 'CreateSchedule', input: CreateScheduleRequestSchema, output: CreateScheduleResponseSchema },
};

/** The Connect JSON request message carrying the JSON API's input. */
function connectJson(c: Case): unknown {
  switch (c.rpc) {
    case 'send':
      return { ...c.json, ...(typeof c.json.body === 'string' ? { body: Buffer.from(c.json.body).toString('base64') } : {}) };
    case 'create':
      return { input: c.json };
    case 'batch':
    case 'schedule':
      return { idempotencyKey: 'k', ...c.json };
  }
}

describe('every protocol gives the same input the same answer', () => {
  const f = useFerry();
  const grpc = new Map<DescService, GrpcTestClient>();
  beforeAll(() => {
    for (const service of [RequestService, ScheduleService]) grpc.set(service, new GrpcTestClient(service, f.ferry.grpcAddress, f.apiKey));
  });
  afterAll(() => {
    for (const client of grpc.values()) client.close();
  });

  async function viaJsonApi(c: Case): Promise<Refusal> {
    const headers = { 'idempotency-key': 'k' };
    const res =
      c.rpc === 'send'
        ? await f.api.send(c.json.url === undefined ? {} : { url: c.json.url as string }, c.json.body as string)
        : await f.api.call('POST', { create: '/requests', batch: '/requests/batch', schedule: '/schedules' }[c.rpc], { json: c.json, headers });
    expect(res.body.success, JSON.stringify(res.body)).toBe(false);
    return { code: res.body.error!.code, field: res.body.error!.field, message: res.body.error!.message, status: res.status };
  }

  async function viaConnect(c: Case, binary: boolean): Promise<Refusal> {
    const rpc = RPCS[c.rpc];
    const body = binary ? toBinary(rpc.input, create(rpc.input, c.message as never)) : JSON.stringify(connectJson(c));
    const res = await fetch(`${f.ferry.baseUrl}/${rpc.service.typeName}/${rpc.method}`, {
      method: 'POST',
      headers: { 'content-type': binary ? 'application/proto' : 'application/json', authorization: `Bearer ${f.apiKey}` },
      body,
    });
    const error = (await res.json()) as { code: string; message: string; details?: Array<{ type: string; value: string }> };
    const detail = error.details?.find((d) => d.type === 'ferry.v1.ErrorDetail');
    expect(detail, JSON.stringify(error)).toBeDefined();
    const { code, field } = fromBinary(ErrorDetailSchema, base64Decode(detail!.value));
    return { code, field: field === '' ? null : field, message: error.message, status: error.code };
  }

  async function viaGrpc(c: Case): Promise<Refusal> {
    const rpc = RPCS[c.rpc];
    const res = await grpc.get(rpc.service)!.call(rpc.method, rpc.input, rpc.output, c.message as never);
    expect(res.ok).toBe(false);
    if (res.ok) throw new Error('accepted');
    const detail = grpcErrorDetail(res.error);
    expect(detail).toBeDefined();
    // Connect percent-encodes grpc-message with encodeURIComponent, grpc-js decodes it with decodeURI: commas stay encoded.
    const message = decodeURIComponent(res.error.details);
    return { code: detail!.code, field: detail!.field === '' ? null : detail!.field, message, status: res.error.code };
  }

  it.each(CASES.map((c) => [c.name, c.rpc, c] as const))('%s (%s)', async (_name, _rpc, c) => {
    const expected = { code: c.code, field: c.field };
    const json = await viaJsonApi(c);
    expect(json).toMatchObject(expected);
    expect(json.status).toBe(c.code === 'PAYLOAD_TOO_LARGE' ? 413 : 422);
    const rpcCode = c.code === 'PAYLOAD_TOO_LARGE' ? 'resource_exhausted' : 'invalid_argument';
    const grpcCode = c.code === 'PAYLOAD_TOO_LARGE' ? GrpcStatus.RESOURCE_EXHAUSTED : GrpcStatus.INVALID_ARGUMENT;

    const answers: Array<[string, Refusal, string | number]> = [['Connect JSON', await viaConnect(c, false), rpcCode]];
    if (c.message !== undefined) {
      answers.push(['Connect binary', await viaConnect(c, true), rpcCode]);
      answers.push(['gRPC', await viaGrpc(c), grpcCode]);
    }
    for (const [protocol, answer, status] of answers) {
      expect({ protocol, ...answer }).toEqual({ protocol, ...expected, message: json.message, status });
    }
  });
});
