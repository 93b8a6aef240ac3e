import { create } from '@bufbuild/protobuf';
import { timestampFromMs } from '@bufbuild/protobuf/wkt';
import { describe, expect, it } from 'vitest';
import { readJsonMessage } from '../../src/edge/http/json-reader.js';
import { fieldWriter, writeMessage } from '../../src/edge/http/json-writer.js';
import { CancelRequestResponseSchema, CancelStatus, ListAttemptsResponseSchema, SendRequestSchema } from '../../src/gen/ferry/v1/request_service_pb.js';
import { AcceptanceSchema, AttemptSchema, RequestInputSchema, RequestStatus, RetryDecisionSchema } from '../../src/gen/ferry/v1/requests_pb.js';
import { ScheduleSchema } from '../../src/gen/ferry/v1/schedules_pb.js';

describe('JSON writer', () => {
  it('writes every field in declaration order with proto names, null for unset messages and optionals', () => {
    const text = writeMessage(AcceptanceSchema, create(AcceptanceSchema, { id: 'req_1' }));
    expect(text).toBe('{"id":"req_1","project_id":"","replayed_from_request_id":null,"status":null,"scheduled_at":null,"created_at":null}');
  });

  it('writes enums without their prefix, lower-cased, and unknown numbers as null', () => {
    const w = (status: number) => JSON.parse(writeMessage(CancelRequestResponseSchema, create(CancelRequestResponseSchema, { status }))).status;
    expect(w(CancelStatus.CANCELLATION_REQUESTED)).toBe('cancellation_requested');
    expect(w(CancelStatus.CANCELLED)).toBe('cancelled');
    expect(w(CancelStatus.UNSPECIFIED)).toBeNull();
    expect(w(99)).toBeNull();
  });

  it('writes timestamps as RFC 3339 UTC with milliseconds', () => {
    const ms = Date.UTC(1999, 11, 31, 23, 59, 59, 5);
    const text = writeMessage(AcceptanceSchema, create(AcceptanceSchema, { createdAt: timestampFromMs(ms) }));
    expect(JSON.parse(text).created_at).toBe('1999-12-31T23:59:59.005Z');
    const nanos = writeMessage(AcceptanceSchema, create(AcceptanceSchema, { createdAt: { seconds: 0n, nanos: 999_999_999 } }));
    expect(JSON.parse(nanos).created_at).toBe('1970-01-01T00:00:00.999Z');
  });

  it('writes int64 as JSON numbers', () => {
    const text = writeMessage(RetryDecisionSchema, create(RetryDecisionSchema, { retryAfterDelayMs: 9_007_199_254_740_993n, backoffDelayMs: -5n }));
    expect(text).toContain('"retry_after_delay_ms":9007199254740993,"backoff_delay_ms":-5,"selected_delay_ms":0');
  });

  it('escapes strings and map keys', () => {
    const input = create(RequestInputSchema, { url: 'a"b\\c\n\u2028', headers: { 'k"\n': 'v"' } });
    const parsed = JSON.parse(writeMessage(RequestInputSchema, input));
    expect(parsed.url).toBe('a"b\\c\n\u2028');
    expect(parsed.headers).toEqual({ 'k"\n': 'v"' });
  });

  it('writes Values as plain JSON, non-finite numbers as null', () => {
    const input = readJsonMessage(RequestInputSchema, { body: { a: [1, 'x', true, null, { b: {} }], c: -0.5 } });
    expect(JSON.parse(writeMessage(RequestInputSchema, input)).body).toEqual({ a: [1, 'x', true, null, { b: {} }], c: -0.5 });
    const nan = create(RequestInputSchema, { body: { kind: { case: 'numberValue', value: NaN } } });
    expect(JSON.parse(writeMessage(RequestInputSchema, nan)).body).toBeNull();
    const empty = create(RequestInputSchema, { body: {} });
    expect(JSON.parse(writeMessage(RequestInputSchema, empty)).body).toBeNull();
  });

  it('writes bytes as base64', () => {
    const text = writeMessage(SendRequestSchema, create(SendRequestSchema, { body: Uint8Array.from([0xff, 0, 1]) }));
    expect(JSON.parse(text).body).toBe('/wAB');
  });

  it('writes one field by itself, for response_body data', () => {
    const attempts = ListAttemptsResponseSchema.field.attempts!;
    const w = fieldWriter(attempts);
    expect(w([])).toBe('[]');
    const one = create(AttemptSchema, { attemptNumber: 1 });
    expect(JSON.parse(w([one, one]))).toHaveLength(2);
    expect(fieldWriter(ScheduleSchema.field.timing!)(undefined)).toBe('null');
  });

  it('round-trips through the reader', () => {
    const a = create(AcceptanceSchema, { id: 'req_1', projectId: 'prj_1', status: RequestStatus.SCHEDULED, scheduledAt: timestampFromMs(1_900_000_000_123), createdAt: timestampFromMs(1_800_000_000_000) });
    const again = readJsonMessage(AcceptanceSchema, JSON.parse(writeMessage(AcceptanceSchema, a)));
    expect(again).toEqual(a);
  });
});
