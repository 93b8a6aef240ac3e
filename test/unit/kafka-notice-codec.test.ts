import { describe, expect, it } from 'vitest';
import { MAX_CARRIED_BODY_BYTES, decodeNotice, encodeCancelNotice, encodeNotice } from '../../src/adapters/kafka/notice-codec.js';
import { aRequest } from '../contract/suite/harness.js';

const wire = (m: { key: string; value: string }) => [Buffer.from(m.key), Buffer.from(m.value)] as const;

describe('work and cancel notices on the wire', () => {
  it('a work notice comes back as written, in the partition of its shard', () => {
    const m = encodeNotice({ requestId: 'req_1', shard: 4, dueAt: 1_790_000_000_123 });
    expect(m.partition).toBe(4);
    expect(decodeNotice(m.partition, ...wire(m))).toEqual({ kind: 'work', requestId: 'req_1', shard: 4, dueAt: 1_790_000_000_123 });
  });

  it('a cancel notice shares the partition and is told apart by its value', () => {
    const m = encodeCancelNotice({ requestId: 'req_2', shard: 7 });
    expect(m.partition).toBe(7);
    expect(decodeNotice(m.partition, ...wire(m))).toEqual({ kind: 'cancel', requestId: 'req_2', shard: 7 });
  });

  it('carries the request, body included, so its owner need not read it', () => {
    const request = aRequest({ status: 'queued', dueAt: 1_790_000_000_500, body: new Uint8Array([0, 1, 254, 255]) });
    const m = encodeNotice({ requestId: request.id, shard: 2, dueAt: request.dueAt!, request });
    const decoded = decodeNotice(m.partition, ...wire(m));
    expect(decoded).toMatchObject({ kind: 'work', requestId: request.id, shard: 2, dueAt: request.dueAt });
    expect(decoded?.kind === 'work' ? decoded.request : undefined).toEqual(request);
    const bodiless = aRequest({ status: 'queued', dueAt: 5, body: null });
    const n = encodeNotice({ requestId: bodiless.id, shard: 0, dueAt: 5, request: bodiless });
    expect(decodeNotice(0, ...wire(n))).toMatchObject({ request: bodiless });
  });

  it('sends a large request as a wake-up alone', () => {
    const request = aRequest({ status: 'queued', dueAt: 9, body: new Uint8Array(MAX_CARRIED_BODY_BYTES + 1) });
    const m = encodeNotice({ requestId: request.id, shard: 1, dueAt: 9, request });
    expect(m.value).toBe('9');
  });

  it('takes a carried request that does not hold together as a wake-up only', () => {
    const key = Buffer.from('req_9');
    expect(decodeNotice(3, key, Buffer.from('{"id":"req_other","dueAt":7,"version":1,"createdAt":1,"body":null}'))).toEqual({ kind: 'work', requestId: 'req_9', shard: 3, dueAt: 7 });
    expect(decodeNotice(3, key, Buffer.from('{"id":"req_9","dueAt":"7"}'))).toBeNull();
    expect(decodeNotice(3, key, Buffer.from('{not json'))).toBeNull();
  });

  it('skips messages it cannot read instead of guessing', () => {
    expect(decodeNotice(0, null, Buffer.from('1'))).toBeNull();
    expect(decodeNotice(0, Buffer.from('req_3'), null)).toBeNull();
    expect(decodeNotice(0, Buffer.from('req_3'), Buffer.from(''))).toBeNull();
    expect(decodeNotice(0, Buffer.from('req_3'), Buffer.from('soon'))).toBeNull();
    expect(decodeNotice(0, Buffer.from('req_3'), Buffer.from('1.5'))).toBeNull();
  });
});
