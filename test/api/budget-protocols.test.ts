import { create, fromBinary, toBinary, toJson, type DescMessage, type DescService, type MessageInitShape, type MessageShape } from '@bufbuild/protobuf';
import { base64Decode } from '@bufbuild/protobuf/wire';
import { timestampMs } from '@bufbuild/protobuf/wkt';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BudgetService,
  GetFlowKeyRequestSchema,
  GetFlowKeyResponseSchema,
  GetQueueRequestSchema,
  GetQueueResponseSchema,
  ListFlowKeysRequestSchema,
  ListFlowKeysResponseSchema,
  ListQueuesRequestSchema,
  ListQueuesResponseSchema,
  PauseFlowKeyRequestSchema,
  PauseFlowKeyResponseSchema,
  PauseQueueRequestSchema,
  PauseQueueResponseSchema,
  ResumeQueueRequestSchema,
  ResumeQueueResponseSchema,
  SetFlowKeyLimitsRequestSchema,
  SetFlowKeyLimitsResponseSchema,
  SetQueueLimitsRequestSchema,
  SetQueueLimitsResponseSchema,
} from '../../src/gen/ferry/v1/budget_service_pb.js';
import type { Budget } from '../../src/gen/ferry/v1/budgets_pb.js';
import { ErrorDetailSchema } from '../../src/gen/ferry/v1/errors_pb.js';
import {
  BatchCreateRequestsRequestSchema,
  BatchCreateRequestsResponseSchema,
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
import { CreateScheduleRequestSchema, CreateScheduleResponseSchema, ScheduleService } from '../../src/gen/ferry/v1/schedule_service_pb.js';
import type { Api } from '../support/api-client.js';
import { Budgets, type BudgetObject } from '../support/budget-client.js';
import { DEST, useFerry } from '../support/fixture.js';
import { GrpcTestClient, grpcErrorDetail } from '../support/grpc-client.js';

/** A budget of gRPC or Connect in the JSON API's shape, to compare the protocols' answers field by field. */
function asJson(b: Budget): BudgetObject {
  return {
    name: b.name,
    rate: b.rate === undefined ? null : { limit: b.rate.limit!, period: b.rate.period!, burst: b.rate.burst! },
    concurrency: b.concurrency ?? null,
    adaptive: b.adaptive,
    paused: b.paused,
    in_flight: b.inFlight,
    started_in_period: b.startedInPeriod ?? null,
    waiting: { rate: b.waiting!.rate, concurrency: b.waiting!.concurrency, paused: b.waiting!.paused },
    admitted_rate: b.admittedRate ?? null,
    updated_at: b.updatedAt === undefined ? null : new Date(Number(timestampMs(b.updatedAt))).toISOString(),
  };
}

interface Rpc<I extends DescMessage = DescMessage, O extends DescMessage = DescMessage> {
  readonly service: DescService;
  readonly method: string;
  readonly input: I;
  readonly output: O;
}

const RPC = {
  getQueue: { service: BudgetService, method: 'GetQueue', input: GetQueueRequestSchema, output: GetQueueResponseSchema },
  setQueue: { service: BudgetService, method: 'SetQueueLimits', input: SetQueueLimitsRequestSchema, output: SetQueueLimitsResponseSchema },
  pauseQueue: { service: BudgetService, method: 'PauseQueue', input: PauseQueueRequestSchema, output: PauseQueueResponseSchema },
  resumeQueue: { service: BudgetService, method: 'ResumeQueue', input: ResumeQueueRequestSchema, output: ResumeQueueResponseSchema },
  listQueues: { service: BudgetService, method: 'ListQueues', input: ListQueuesRequestSchema, output: ListQueuesResponseSchema },
  getKey: { service: BudgetService, method: 'GetFlowKey', input: GetFlowKeyRequestSchema, output: GetFlowKeyResponseSchema },
  setKey: { service: BudgetService, method: 'SetFlowKeyLimits', input: SetFlowKeyLimitsRequestSchema, output: SetFlowKeyLimitsResponseSchema },
  pauseKey: { service: BudgetService, method: 'PauseFlowKey', input: PauseFlowKeyRequestSchema, output: PauseFlowKeyResponseSchema },
  listKeys: { service: BudgetService, method: 'ListFlowKeys', input: ListFlowKeysRequestSchema, output: ListFlowKeysResponseSchema },
  send: { service: RequestService, method: 'Send', input: SendRequestSchema, output: SendResponseSchema },
  create: { service: RequestService, method: 'CreateRequest', input: CreateRequestRequestSchema, output: CreateRequestResponseSchema },
  batch: { service: RequestService, method: 'BatchCreateRequests', input: BatchCreateRequestsRequestSchema, output: BatchCreateRequestsResponseSchema },
  getRequest: { service: RequestService, method: 'GetRequest', input: GetRequestRequestSchema, output: GetRequestResponseSchema },
  listRequests: { service: RequestService, method: 'ListRequests', input: ListRequestsRequestSchema, output: ListRequestsResponseSchema },
  schedule: { service: ScheduleService, method: 'CreateSchedule', input: CreateScheduleRequestSchema, output: CreateScheduleResponseSchema },
} as const satisfies Record<string, Rpc>;

/** The same call over the JSON API, Connect (JSON and binary) and gRPC. */
class Protocols {
  private readonly grpc = new Map<DescService, GrpcTestClient>();

  constructor(
    readonly api: Api,
    private readonly grpcAddress: string,
  ) {}

  async viaGrpc<I extends DescMessage, O extends DescMessage>(rpc: Rpc<I, O>, message: MessageInitShape<I>) {
    let client = this.grpc.get(rpc.service);
    if (client === undefined) this.grpc.set(rpc.service, (client = new GrpcTestClient(rpc.service, this.grpcAddress, this.api.apiKey)));
    return client.call(rpc.method, rpc.input, rpc.output, message);
  }

  /** A Connect unary call; the body is the canonical Protobuf JSON of `message`, or its binary form. */
  async viaConnect<I extends DescMessage, O extends DescMessage>(rpc: Rpc<I, O>, message: MessageInitShape<I> | string, binary: boolean): Promise<{ status: number; body: unknown }> {
    const body = typeof message === 'string' ? message
      : binary ? toBinary(rpc.input, create(rpc.input, message)) : JSON.stringify(toJson(rpc.input, create(rpc.input, message)));
    const res = await fetch(`${this.api.baseUrl}/${rpc.service.typeName}/${rpc.method}`, {
      method: 'POST',
      headers: { 'content-type': binary ? 'application/proto' : 'application/json', authorization: `Bearer ${this.api.apiKey}` },
      body,
    });
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (res.ok && binary) return { status: res.status, body: fromBinary(rpc.output, bytes) };
    return { status: res.status, body: JSON.parse(new TextDecoder().decode(bytes)) };
  }

  close(): void {
    for (const client of this.grpc.values()) client.close();
  }
}

describe('BudgetService over gRPC and Connect', () => {
  const f = useFerry();
  let p: Protocols;
  let queues: Budgets;
  let keys: Budgets;
  beforeAll(async () => {
    const project = await f.newProject();
    p = new Protocols(project.api, f.ferry.grpcAddress);
    queues = new Budgets(project.api, 'queues');
    keys = new Budgets(project.api, 'flow-keys');
  });
  afterAll(() => p.close());

  it('sets, reads, pauses, resumes and lists queues with the same answers as the JSON API', async () => {
    const set = await p.viaGrpc(RPC.setQueue, { name: 'billing', rate: { limit: 10, period: '60s' }, concurrency: 5 });
    if (!set.ok) throw set.error;
    const answered = asJson(set.value.queue!);
    expect(answered).toMatchObject({ name: 'billing', rate: { limit: 10, period: '1m', burst: 10 }, concurrency: 5, adaptive: true, paused: false });
    expect(await queues.ok(queues.get('billing'))).toEqual(answered);

    const paused = await p.viaGrpc(RPC.pauseQueue, { name: 'billing' });
    if (!paused.ok) throw paused.error;
    expect(asJson(paused.value.queue!)).toEqual(await queues.ok(queues.get('billing')));
    const resumed = await p.viaConnect(RPC.resumeQueue, { name: 'billing' }, true);
    expect(resumed.status).toBe(200);
    expect(asJson((resumed.body as MessageShape<typeof ResumeQueueResponseSchema>).queue!)).toEqual(await queues.ok(queues.get('billing')));

    const got = await p.viaGrpc(RPC.getQueue, { name: 'never-used' });
    if (!got.ok) throw got.error;
    expect(asJson(got.value.queue!)).toEqual(await queues.ok(queues.get('never-used')));

    await queues.ok(queues.pause('alpha'));
    const listed = await p.viaGrpc(RPC.listQueues, { limit: 1 });
    if (!listed.ok) throw listed.error;
    const page = listed.value;
    const json = await queues.list('limit=1');
    expect({ items: page.items.map(asJson), next_cursor: page.nextCursor ?? null }).toEqual(json.body.data);
    const next = await p.viaGrpc(RPC.listQueues, { limit: 1, cursor: page.nextCursor });
    if (!next.ok) throw next.error;
    expect(next.value.items.map((b) => b.name)).toEqual(['billing']);
  });

  it('does the same for flow keys over Connect JSON, in the canonical Protobuf JSON', async () => {
    const set = await p.viaConnect(RPC.setKey, '{"key": "customer:7", "rate": {"limit": 2, "period": "1s", "burst": 4}, "adaptive": false}', false);
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    // Canonical Protobuf JSON leaves out what holds its default: `adaptive` false, the idle counts. A rate limit
    // with nothing delivered admits its whole rate, none started yet.
    expect(set.body).toEqual({
      flowKey: { name: 'customer:7', rate: { limit: 2, period: '1s', burst: 4 }, waiting: {}, startedInPeriod: 0, admittedRate: 2, updatedAt: expect.any(String) },
    });
    const paused = await p.viaConnect(RPC.pauseKey, { key: 'customer:7' }, false);
    expect(paused.body).toMatchObject({ flowKey: { name: 'customer:7', paused: true } });
    const got = await p.viaGrpc(RPC.getKey, { key: 'customer:7' });
    if (!got.ok) throw got.error;
    expect(asJson(got.value.flowKey!)).toEqual(await keys.ok(keys.get('customer:7')));
    const listed = await p.viaConnect(RPC.listKeys, {}, false);
    expect(listed.body).toMatchObject({ items: [{ name: 'customer:7', paused: true }] });
  });

  it('carries flow_keys on every way in, and answers flow_keys and waiting_for on reads', async () => {
    const sent = await p.viaGrpc(RPC.send, { url: DEST, flowKeys: ' a , b ', body: new Uint8Array([1]) });
    if (!sent.ok) throw sent.error;
    const created = await p.viaConnect(RPC.create, { input: { url: DEST, flowKeys: ['c', 'd:e'] } }, false);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const batch = await p.viaConnect(RPC.batch, { idempotencyKey: 'k-1', requests: [{ url: DEST, flowKeys: ['f'] }] }, true);
    expect(batch.status).toBe(200);
    const ids = [
      sent.value.acceptance!.id,
      (created.body as { acceptance: { id: string } }).acceptance.id,
      (batch.body as { requests: Array<{ id: string }> }).requests[0]!.id,
    ];
    const expected = [['a', 'b'], ['c', 'd:e'], ['f']];
    for (const [i, id] of ids.entries()) {
      const got = await p.viaGrpc(RPC.getRequest, { requestId: id });
      if (!got.ok) throw got.error;
      const request = got.value.request!;
      expect(request.flowKeys).toEqual(expected[i]);
      expect(request.waitingFor).toBeUndefined();
    }
    const listed = await p.viaGrpc(RPC.listRequests, {});
    if (!listed.ok) throw listed.error;
    const { items } = listed.value;
    expect(new Map(items.map((i) => [i.id, i.flowKeys]))).toEqual(new Map(ids.map((id, i) => [id, expected[i]])));
  });
});

interface Case {
  readonly name: string;
  readonly rpc: Rpc;
  /** The JSON API's call: method, path and JSON body (or headers, for a quick send). */
  readonly http: { method: string; path: string; json?: unknown; headers?: Record<string, string> };
  /** The request message of Connect and gRPC. */
  readonly message: Record<string, unknown>;
  readonly code: string;
  readonly field: string;
}

const FIVE = ['a', 'b', 'c', 'd', 'e'];

const CASES: Case[] = [
  ...(['queue', 'key'] as const).flatMap((kind): Case[] => {
    const [set, path, nameField] = kind === 'queue' ? [RPC.setQueue, '/queues/q', 'name'] : [RPC.setKey, '/flow-keys/k', 'key'];
    const named = { [nameField]: kind === 'queue' ? 'q' : 'k' };
    const limits: Array<[string, Record<string, unknown>, string, string]> = [
      ['rate.limit 0', { rate: { limit: 0, period: '1s' } }, 'INVALID_BUDGET', 'rate.limit'],
      ['period 2h', { rate: { limit: 1, period: '2h' } }, 'INVALID_BUDGET', 'rate.period'],
      ['period 500ms', { rate: { limit: 1, period: '500ms' } }, 'INVALID_BUDGET', 'rate.period'],
      ['burst 0', { rate: { limit: 1, period: '1s', burst: 0 } }, 'INVALID_BUDGET', 'rate.burst'],
      ['no rate.limit', { rate: { period: '1s' } }, 'MISSING_FIELD', 'rate.limit'],
      ['concurrency 0', { concurrency: 0 }, 'INVALID_BUDGET', 'concurrency'],
      ['concurrency 10,001', { concurrency: 10_001 }, 'INVALID_BUDGET', 'concurrency'],
    ];
    return [
      ...limits.map(([name, body, code, field]): Case => ({ name: `${kind}: ${name}`, rpc: set, http: { method: 'PUT', path, json: body }, message: { ...named, ...body }, code, field })),
      {
        name: `${kind}: a bad name`,
        rpc: kind === 'queue' ? RPC.getQueue : RPC.getKey,
        http: { method: 'GET', path: kind === 'queue' ? '/queues/has%20space' : '/flow-keys/has%20space' },
        message: { [nameField]: 'has space' },
        code: kind === 'queue' ? 'INVALID_QUEUE' : 'INVALID_FLOW_KEY',
        field: nameField,
      },
    ];
  }),
  { name: 'a key with a space on create', rpc: RPC.create, http: { method: 'POST', path: '/requests', json: { url: DEST, flow_keys: ['a b'] } }, message: { input: { url: DEST, flowKeys: ['a b'] } }, code: 'INVALID_FLOW_KEY', field: 'flow_keys[0]' },
  { name: 'five keys on create', rpc: RPC.create, http: { method: 'POST', path: '/requests', json: { url: DEST, flow_keys: FIVE } }, message: { input: { url: DEST, flowKeys: FIVE } }, code: 'INVALID_FLOW_KEY', field: 'flow_keys' },
  { name: 'a key twice on create', rpc: RPC.create, http: { method: 'POST', path: '/requests', json: { url: DEST, flow_keys: ['a', 'a'] } }, message: { input: { url: DEST, flowKeys: ['a', 'a'] } }, code: 'INVALID_FLOW_KEY', field: 'flow_keys[1]' },
  {
    name: 'a bad key in a batch item',
    rpc: RPC.batch,
    http: { method: 'POST', path: '/requests/batch', json: { requests: [{ url: DEST }, { url: DEST, flow_keys: ['a', 'b c'] }] }, headers: { 'idempotency-key': 'k' } },
    message: { idempotencyKey: 'k', requests: [{ url: DEST }, { url: DEST, flowKeys: ['a', 'b c'] }] },
    code: 'INVALID_FLOW_KEY',
    field: 'requests[1].flow_keys[1]',
  },
  { name: 'five keys on send', rpc: RPC.send, http: { method: 'POST', path: `/send?url=${encodeURIComponent(DEST)}`, headers: { 'flow-keys': FIVE.join(',') } }, message: { url: DEST, flowKeys: FIVE.join(',') }, code: 'INVALID_FLOW_KEY', field: 'Flow-Keys' },
  {
    name: 'a key twice in a schedule request',
    rpc: RPC.schedule,
    http: { method: 'POST', path: '/schedules', json: { name: 'n', timing: { type: 'interval', every_seconds: 3600 }, request: { url: DEST, flow_keys: ['x', 'x'] } }, headers: { 'idempotency-key': 'k' } },
    message: { idempotencyKey: 'k', name: 'n', timing: { type: 'interval', everySeconds: 3600 }, request: { url: DEST, flowKeys: ['x', 'x'] } },
    code: 'INVALID_FLOW_KEY',
    field: 'request.flow_keys[1]',
  },
];

describe('every protocol refuses bad limits and flow keys alike', () => {
  const f = useFerry();
  let p: Protocols;
  beforeAll(async () => {
    p = new Protocols((await f.newProject()).api, f.ferry.grpcAddress);
  });
  afterAll(() => p.close());

  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const expected = { code: c.code, field: c.field };
    const json = await p.api.call(c.http.method, c.http.path, { json: c.http.json, headers: c.http.headers, ...(c.http.json === undefined && c.rpc === RPC.send ? { body: 'x' } : {}) });
    expect(json.status, JSON.stringify(json.body)).toBe(422);
    expect(json.body.error).toMatchObject(expected);
    const { message } = json.body.error!;

    for (const binary of [false, true]) {
      const res = await p.viaConnect(c.rpc, c.message, binary);
      const error = res.body as { code: string; message: string; details?: Array<{ type: string; value: string }> };
      const detail = error.details?.find((d) => d.type === 'ferry.v1.ErrorDetail');
      expect(detail, JSON.stringify(error)).toBeDefined();
      const { code, field } = fromBinary(ErrorDetailSchema, base64Decode(detail!.value));
      expect({ binary, code, field, message: error.message, status: error.code }).toEqual({ binary, ...expected, message, status: 'invalid_argument' });
    }
    const viaGrpc = await p.viaGrpc(c.rpc, c.message);
    expect(viaGrpc.ok).toBe(false);
    if (viaGrpc.ok) return;
    expect(viaGrpc.error.code).toBe(GrpcStatus.INVALID_ARGUMENT);
    expect(grpcErrorDetail(viaGrpc.error)).toEqual(expected);
    expect(decodeURIComponent(viaGrpc.error.details)).toBe(message);
  });

  it('stored nothing for any of them', async () => {
    expect(await new Budgets(p.api, 'queues').names()).toEqual([]);
    expect(await new Budgets(p.api, 'flow-keys').names()).toEqual([]);
    const requests = await p.api.call<{ items: unknown[] }>('GET', '/requests');
    expect(requests.body.data.items).toEqual([]);
  });
});
