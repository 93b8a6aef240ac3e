import { describe, expect, it } from 'vitest';
import { decodeNotice, encodeCancelNotice, encodeNotice } from '../../src/adapters/kafka/notice-codec.js';

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

  it('skips messages it cannot read instead of guessing', () => {
    expect(decodeNotice(0, null, Buffer.from('1'))).toBeNull();
    expect(decodeNotice(0, Buffer.from('req_3'), null)).toBeNull();
    expect(decodeNotice(0, Buffer.from('req_3'), Buffer.from(''))).toBeNull();
    expect(decodeNotice(0, Buffer.from('req_3'), Buffer.from('soon'))).toBeNull();
    expect(decodeNotice(0, Buffer.from('req_3'), Buffer.from('1.5'))).toBeNull();
  });
});
