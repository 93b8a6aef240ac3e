import { create } from '@bufbuild/protobuf';
import { ValueSchema } from '@bufbuild/protobuf/wkt';
import { describe, expect, it } from 'vitest';
import { JsonText } from '../../src/domain/validation/index.js';
import { validateJsonBody } from '../../src/domain/validation/request-input.js';
import { valueToJson } from '../../src/edge/http/json-wkt.js';
import { bodyOf, createInputOf } from '../../src/edge/rpc/from-proto.js';
import { requestInputOf } from '../../src/edge/rpc/schedule-proto.js';
import { call, useGateway } from './gateway-harness.js';

const EXACT = '{"big":12345678901234567890123,"f":1.0,"list":[1e3,-0],"s":"x"}';

const bytesOf = (body: unknown) => Buffer.from(validateJsonBody(body)!).toString('utf8');

describe('JSON bodies reach the destination as the caller wrote their numbers', () => {
  const h = useGateway();

  const post = (path: string, text: string, headers: Record<string, string> = {}) =>
    call(h, 'POST', path, { body: text, headers: { 'content-type': 'application/json', ...headers } });

  it('keeps the text of a create body whose numbers JSON.parse would respell', async () => {
    await post('/requests', `{"url":"https://example.com/", "body": ${EXACT.replaceAll(',', ', ')}}`);
    const input = createInputOf(h.only().request.input);
    expect(input.body).toEqual(new JsonText(EXACT));
    expect(bytesOf(input.body)).toBe(EXACT);
  });

  it('keeps the text of every batch item body, each its own', async () => {
    await post('/requests/batch', `{"requests":[{"url":"a","body":${EXACT}},{"url":"b","body":{"n":2}},{"url":"c","body":1.50}]}`, { 'idempotency-key': 'k' });
    const items = (h.only().request.requests as unknown[]).map((item) => createInputOf(item as never));
    expect(bytesOf(items[0]!.body)).toBe(EXACT);
    expect(items[1]!.body).toEqual({ n: 2 });
    expect(bytesOf(items[2]!.body)).toBe('1.50');
  });

  it('keeps the text of a schedule request body, on create and on update', async () => {
    await post('/schedules', `{"name":"n","request":{"url":"u","body":${EXACT}}}`, { 'idempotency-key': 'k' });
    expect(bytesOf(requestInputOf(h.calls[0]!.request.request)!.body)).toBe(EXACT);
    await call(h, 'PATCH', '/schedules/sch_1', { body: `{"request":{"url":"u","body":${EXACT}}}`, headers: { 'content-type': 'application/json' } });
    expect(bytesOf(requestInputOf(h.calls[1]!.request.request)!.body)).toBe(EXACT);
  });

  it('leaves a body whose numbers read back as written to the plain parse', async () => {
    await post('/requests', '{"url":"u","body":{"amount":19.99,"id":42,"at":"2030-01-01T00:00:00.000Z"}}');
    const input = createInputOf(h.only().request.input);
    expect(input.body).toEqual({ amount: 19.99, id: 42, at: '2030-01-01T00:00:00.000Z' });
  });

  it('writes a kept Value back as its text, and any other as the JSON it stands for', () => {
    const plain = create(ValueSchema, { kind: { case: 'numberValue', value: 1 } });
    expect(valueToJson(plain)).toBe('1');
    expect(bodyOf(plain)).toBe(1);
  });
});
