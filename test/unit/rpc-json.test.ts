import { create, fromJsonString, type DescMessage } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { messageReader } from '../../src/edge/http/json-reader.js';
import { rpcJsonReader } from '../../src/edge/http/rpc-json.js';
import { RequestService } from '../../src/gen/ferry/v1/request_service_pb.js';
import { AcceptanceSchema, RequestStatus, RetryDecisionSchema } from '../../src/gen/ferry/v1/requests_pb.js';
import { ScheduleService } from '../../src/gen/ferry/v1/schedule_service_pb.js';
import { expectFerryError } from './expect-ferry-error.js';

const method = (service: typeof RequestService | typeof ScheduleService, name: string) => service.methods.find((m) => m.name === name)!;
const createRequest = method(RequestService, 'CreateRequest');
const read = (json: unknown, m = createRequest) => rpcJsonReader(m)(new TextEncoder().encode(typeof json === 'string' ? json : JSON.stringify(json)));

describe('the JSON of gRPC and Connect calls, read as the JSON API reads its bodies', () => {
  it('takes the spelling of Protobuf JSON, field names in lowerCamelCase or as declared, and writes it back canonical', () => {
    const text = read({ idempotencyKey: 'k', input: { url: 'https://example.com/', retry: { maxAttempts: 2 }, deliver_at: '2030-01-01T00:00:00Z' } });
    const message = fromJsonString(createRequest.input, text);
    expect(message).toMatchObject({ idempotencyKey: 'k', input: { url: 'https://example.com/', retry: { maxAttempts: 2 }, deliverAt: '2030-01-01T00:00:00Z' } });
  });

  it('names the fields of the body of a route as the JSON API does, inside the body', () => {
    expectFerryError(() => read({ input: { url: 'u', foo: 1 } }), 'UNKNOWN_FIELD', 'foo');
    expectFerryError(() => read({ input: { retry: { maxAttempts: 'two' } } }), 'INVALID_FIELD', 'retry.max_attempts');
    expectFerryError(() => read({ input: 5 }), 'INVALID_JSON');
    expectFerryError(() => read({ input: {}, extra: true }), 'UNKNOWN_FIELD', 'extra');
  });

  it('names paths from the top of the message when the route takes the whole message', () => {
    const batch = method(RequestService, 'BatchCreateRequests');
    expectFerryError(() => read({ requests: [{ url: 'a' }, { url: 'b', foo: 1 }] }, batch), 'UNKNOWN_FIELD', 'requests[1].foo');
    const schedule = method(ScheduleService, 'CreateSchedule');
    expectFerryError(() => read({ name: 'n', timing: { everySeconds: 'x' } }, schedule), 'INVALID_FIELD', 'timing.every_seconds');
  });

  it('refuses what is not a JSON object with INVALID_JSON', () => {
    for (const text of ['', '{', '[]', '"x"', '\u00ff'.repeat(2)]) expectFerryError(() => read(text), 'INVALID_JSON');
    expectFerryError(() => rpcJsonReader(createRequest)(new Uint8Array([0x7b, 0xff, 0x7d])), 'INVALID_JSON');
  });

  it('applies the size limit of the route to the request as sent', () => {
    const over = { input: { url: 'u', body: 'x'.repeat(524_288) } };
    expectFerryError(() => read(over), 'PAYLOAD_TOO_LARGE');
  });

  it('keeps the JSON API\'s rule for 32-bit integers: given as text, they are refused', () => {
    const list = method(ScheduleService, 'ListSchedules');
    expect(fromJsonString(list.input, read({ limit: 5 }, list))).toMatchObject({ limit: 5 });
    expectFerryError(() => read({ limit: '5' }, list), 'INVALID_FIELD', 'limit');
  });

  it('takes 64-bit integers as text and enum values by name or number, as Protobuf JSON writes them', () => {
    const readProtobuf = (desc: DescMessage, json: unknown) => {
      const target = create(desc) as unknown as Record<string, unknown>;
      messageReader(desc, undefined, 'protobuf')(json, target, '');
      return target;
    };
    expect(readProtobuf(RetryDecisionSchema, { retryAfterDelayMs: '1500', backoff_delay_ms: 20 })).toMatchObject({ retryAfterDelayMs: 1500n, backoffDelayMs: 20n });
    expect(readProtobuf(AcceptanceSchema, { status: 'REQUEST_STATUS_QUEUED' })).toMatchObject({ status: RequestStatus.QUEUED });
    expect(readProtobuf(AcceptanceSchema, { status: 3 })).toMatchObject({ status: RequestStatus.DELIVERING });
    expectFerryError(() => readProtobuf(AcceptanceSchema, { status: 'queued' }), 'INVALID_FIELD', 'status');
    expectFerryError(() => readProtobuf(RetryDecisionSchema, { retryAfterDelayMs: '1.5' }), 'INVALID_FIELD', 'retry_after_delay_ms');
  });
});
