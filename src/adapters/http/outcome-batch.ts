import type { TimedOutcome } from '../../domain/delivery/outcome.js';
import type { FromTransportThread } from './transport-thread-protocol.js';

type Finished = FromTransportThread[number];

/**
 * A delivery thread's batch of outcomes made ready to leave: the response excerpts, views of undici's chunks until
 * now, are copied side by side into one new buffer, and each outcome's excerpt becomes a view of it. That buffer is
 * the batch's transfer list: it moves to the main thread without a copy, and the main thread's writes of the same
 * batch clone it once (a structured clone copies a buffer once however many views of it a message holds).
 *
 * Why: each excerpt in a buffer of its own costs an allocation of off-heap memory and its bookkeeping on every
 * thread it reaches; measured (`test/bench/excerpt-trip.ts`), one buffer per batch saves about a third of the trip.
 */
export function packExcerpts(batch: Finished[]): ArrayBuffer[] {
  let bytes = 0;
  for (const [, timed] of batch) {
    const start = excerptOf(timed);
    if (start !== undefined) bytes += start.byteLength;
  }
  if (bytes === 0) return [];
  const buffer = new ArrayBuffer(bytes);
  let at = 0;
  for (let i = 0; i < batch.length; i++) {
    const [id, timed] = batch[i]!;
    const start = excerptOf(timed);
    if (timed === null || start === undefined) continue;
    const view = new Uint8Array(buffer, at, start.byteLength);
    view.set(start);
    at += start.byteLength;
    batch[i] = [id, { ...timed, outcome: { ...(timed.outcome as ResponseOutcome), bodyStart: view } }];
  }
  return [buffer];
}

type ResponseOutcome = Extract<TimedOutcome['outcome'], { kind: 'response' }>;

function excerptOf(timed: TimedOutcome | null): Uint8Array | undefined {
  return timed !== null && timed.outcome.kind === 'response' ? timed.outcome.bodyStart : undefined;
}
