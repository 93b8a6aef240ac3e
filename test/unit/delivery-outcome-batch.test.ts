import { MessageChannel } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import type { TimedOutcome } from '../../src/domain/delivery/outcome.js';
import { packExcerpts } from '../../src/adapters/http/outcome-batch.js';
import type { FromTransportThread } from '../../src/adapters/http/transport-thread-protocol.js';

const at = { startedAt: 1_700_000_000_000, durationMs: 12 };

function answered(status: number, body?: string): TimedOutcome {
  // A view into a larger chunk, as undici hands a body over.
  const chunk = body === undefined ? undefined : Buffer.from(`${body}…and the rest of the chunk`);
  return {
    ...at,
    outcome: {
      kind: 'response',
      status,
      retryAfter: null,
      headers: [['content-type', 'text/plain']],
      ...(chunk === undefined ? {} : { bodyStart: chunk.subarray(0, Buffer.byteLength(body!)), bodyTruncated: true }),
    },
  };
}

describe("a delivery thread's batch of outcomes", () => {
  it('carries every excerpt as a view of one new buffer, which is all it transfers', () => {
    const batch: Array<FromTransportThread[number]> = [
      [1, answered(500, 'first')],
      [2, { ...at, outcome: { kind: 'timeout', phase: 'headers' } }],
      [3, answered(200)],
      [4, null, 'Error: a fault of the transport'],
      [5, answered(503, 'second, longer')],
      [6, answered(204, '')],
    ];
    const before = batch.slice();
    const transfer = packExcerpts(batch);

    expect(transfer).toHaveLength(1);
    const buffer = transfer[0]!;
    expect(buffer.byteLength).toBe('first'.length + 'second, longer'.length);
    const text = (i: number): string => {
      const o = batch[i]![1]!.outcome;
      if (o.kind !== 'response' || o.bodyStart === undefined) throw new Error(`entry ${i} has no excerpt`);
      expect(o.bodyStart.buffer).toBe(buffer);
      return Buffer.from(o.bodyStart).toString();
    };
    expect(text(0)).toBe('first');
    expect(text(4)).toBe('second, longer');
    expect(text(5)).toBe('');
    // Everything else of the outcomes is as it was; entries without an excerpt are the same objects.
    expect(batch[0]![1]).toMatchObject({ ...at, outcome: { kind: 'response', status: 500, headers: [['content-type', 'text/plain']], bodyTruncated: true } });
    for (const i of [1, 2, 3]) expect(batch[i]).toBe(before[i]);
  });

  it('transfers nothing when no outcome has an excerpt', () => {
    const batch: Array<FromTransportThread[number]> = [[1, answered(200)], [2, { ...at, outcome: { kind: 'aborted' } }]];
    expect(packExcerpts(batch)).toEqual([]);
  });

  it('survives the trip to another thread with the views intact', async () => {
    const batch: Array<FromTransportThread[number]> = [[1, answered(500, 'one')], [2, answered(500, 'two')]];
    const transfer = packExcerpts(batch);
    const { port1, port2 } = new MessageChannel();
    const received = new Promise<FromTransportThread>((resolve) => port2.once('message', (data) => resolve(data as FromTransportThread)));
    port1.postMessage(batch, transfer);
    const arrived = await received;
    port1.close();
    port2.close();
    // Moved, not copied: the sender's buffer is detached.
    expect(transfer[0]!.byteLength).toBe(0);
    const bodies = arrived.map(([, t]) => (t?.outcome.kind === 'response' ? Buffer.from(t.outcome.bodyStart!).toString() : null));
    expect(bodies).toEqual(['one', 'two']);
  });
});
