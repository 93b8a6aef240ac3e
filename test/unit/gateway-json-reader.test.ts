import { create } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { messageReader, readJsonMessage } from '../../src/edge/http/json-reader.js';
import { MAX_VALUE_DEPTH } from '../../src/edge/http/json-wkt.js';
import { type BatchCreateRequestsRequest, BatchCreateRequestsRequestSchema, type SendRequest, SendRequestSchema } from '../../src/gen/ferry/v1/request_service_pb.js';
import {
  type Acceptance, AcceptanceSchema, RequestStatus, type RequestInput, RequestInputSchema,
} from '../../src/gen/ferry/v1/requests_pb.js';
import { expectFerryError } from './expect-ferry-error.js';

const read = (json: unknown) => readJsonMessage<RequestInput>(RequestInputSchema, json);

describe('JSON reader', () => {
  it('reads scalars, optionals, maps, nested messages and Values by proto field name', () => {
    const m = read({ url: 'u', method: 'GET', headers: { A: 'b' }, retry: { max_attempts: 4 }, metadata: {}, body: [1, { x: false }] });
    expect(m).toMatchObject({ url: 'u', method: 'GET', headers: { A: 'b' }, retry: { maxAttempts: 4 }, metadata: {} });
    expect(m.retry?.backoff).toBeUndefined();
    expect(m.body?.kind).toMatchObject({ case: 'listValue' });
  });

  it('treats null as absent at every level except inside a Value', () => {
    const m = read({ url: null, queue: null, retry: { max_attempts: null }, body: { a: null } });
    expect(m.url).toBe('');
    expect(m.queue).toBeUndefined();
    expect(m.retry?.maxAttempts).toBeUndefined();
    expect(m.body?.kind.case).toBe('structValue');
    expect(read({ body: null }).body).toBeUndefined();
  });

  it('reads any JSON value into a Value', () => {
    for (const json of ['s', 0, -1.5, true, false, [], {}, [[[]]], { a: { b: [null] } }]) {
      expect(read({ body: json }).body).toBeDefined();
    }
    const scalar = read({ body: 'text' }).body!;
    expect(scalar.kind).toEqual({ case: 'stringValue', value: 'text' });
  });

  it('refuses a Value nested deeper than the limit', () => {
    let deep: unknown = 1;
    for (let i = 0; i <= MAX_VALUE_DEPTH + 1; i++) deep = [deep];
    expectFerryError(() => read({ body: deep }), 'INVALID_FIELD');
  });

  it.each([
    [{ URL: 'u' }, 'UNKNOWN_FIELD', 'URL'],
    [{ retry: { backoff: 'exponential', maxAttempts: 2 } }, 'UNKNOWN_FIELD', 'retry.maxAttempts'],
    [{ url: true }, 'INVALID_FIELD', 'url'],
    [{ url: {} }, 'INVALID_FIELD', 'url'],
    [{ retry: 'often' }, 'INVALID_FIELD', 'retry'],
    [{ retry: { max_attempts: -2147483649 } }, 'INVALID_FIELD', 'retry.max_attempts'],
    [{ retry: { max_attempts: 1e-7 } }, 'INVALID_FIELD', 'retry.max_attempts'],
    [{ metadata: { 'a.b': ['x'] } }, 'INVALID_FIELD', 'metadata.a.b'],
    [{ headers: [] }, 'INVALID_FIELD', 'headers'],
  ])('refuses %j with %s at %s', (json, code, field) => {
    expectFerryError(() => read(json), code as 'UNKNOWN_FIELD', field);
  });

  it('refuses a top level that is not an object with INVALID_JSON', () => {
    for (const json of [null, [], 'x', 1]) expectFerryError(() => read(json), 'INVALID_JSON');
  });

  it('builds JSON paths through lists', () => {
    const batch = (requests: unknown) => readJsonMessage(BatchCreateRequestsRequestSchema, { requests });
    expectFerryError(() => batch([{}, {}, { metadata: { k: 1 } }]), 'INVALID_FIELD', 'requests[2].metadata.k');
    expectFerryError(() => batch([{}, { retry: { x: 1 } }]), 'UNKNOWN_FIELD', 'requests[1].retry.x');
    const items = readJsonMessage<BatchCreateRequestsRequest>(BatchCreateRequestsRequestSchema, { requests: [{ url: 'a' }, { url: 'b', idempotency_key: 'k' }] });
    expect(items.requests.map((r) => [r.url, r.idempotencyKey])).toEqual([['a', undefined], ['b', 'k']]);
  });

  it('leaves out excluded fields as unknown ones', () => {
    const reader = messageReader(BatchCreateRequestsRequestSchema, new Set(['idempotency_key']));
    const target = create(BatchCreateRequestsRequestSchema) as unknown as Record<string, unknown>;
    expectFerryError(() => reader({ idempotency_key: 'k' }, target, ''), 'UNKNOWN_FIELD', 'idempotency_key');
    reader({ requests: [] }, target, '');
    expect(target.requests).toEqual([]);
  });

  it('keeps a map key named __proto__ as data', () => {
    const m = read({ metadata: JSON.parse('{"__proto__": "x", "b": "y"}') });
    expect(Object.keys(m.metadata)).toEqual(['__proto__', 'b']);
    expect(Object.getPrototypeOf(m.metadata)).toBe(Object.prototype);
  });

  it('reads enums by their lower-case JSON names, timestamps from RFC 3339, int64 and bytes', () => {
    const a = readJsonMessage<Acceptance>(AcceptanceSchema, { id: 'req_1', status: 'scheduled', created_at: '2030-01-02T03:04:05.678901Z', scheduled_at: '2030-01-02T05:04:05+02:00' });
    expect(a.status).toBe(RequestStatus.SCHEDULED);
    expect(a.createdAt).toMatchObject({ seconds: BigInt(Date.UTC(2030, 0, 2, 3, 4, 5) / 1000), nanos: 678_901_000 });
    expect(a.scheduledAt?.seconds).toBe(BigInt(Date.UTC(2030, 0, 2, 3, 4, 5) / 1000));
    expectFerryError(() => readJsonMessage(AcceptanceSchema, { status: 'QUEUED' }), 'INVALID_FIELD', 'status');
    expectFerryError(() => readJsonMessage(AcceptanceSchema, { status: 'unspecified' }), 'INVALID_FIELD', 'status');
    expectFerryError(() => readJsonMessage(AcceptanceSchema, { status: 2 }), 'INVALID_FIELD', 'status');
    expectFerryError(() => readJsonMessage(AcceptanceSchema, { created_at: '2030-01-02' }), 'INVALID_FIELD', 'created_at');
    expectFerryError(() => readJsonMessage(AcceptanceSchema, { created_at: 1 }), 'INVALID_FIELD', 'created_at');

    const send = readJsonMessage<SendRequest>(SendRequestSchema, { body: Buffer.from([0xff, 0, 1]).toString('base64') });
    expect([...send.body]).toEqual([0xff, 0, 1]);
    expectFerryError(() => readJsonMessage(SendRequestSchema, { body: 'not base64!' }), 'INVALID_FIELD', 'body');
  });
});
