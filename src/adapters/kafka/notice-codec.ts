import type { CancelNotice, WorkNotice } from '../../ports/work-shards.js';

/** The value of a cancel notice; a work notice's value is its due time, digits only. */
const CANCEL = 'cancel';

/**
 * A notice on the wire: the partition is the shard, the key the request ID, the value its due time (work) or
 * `cancel`. Both kinds share the partition, so the owner reads them in the order they were sent.
 */
export function encodeNotice(n: WorkNotice): { partition: number; key: string; value: string } {
  return { partition: n.shard, key: n.requestId, value: String(n.dueAt) };
}

export function encodeCancelNotice(n: CancelNotice): { partition: number; key: string; value: string } {
  return { partition: n.shard, key: n.requestId, value: CANCEL };
}

export type DecodedNotice = ({ kind: 'work' } & WorkNotice) | ({ kind: 'cancel' } & CancelNotice);

/** Null for a message that is neither (written by a newer version, say): it is skipped. */
export function decodeNotice(partition: number, key: Buffer | null, value: Buffer | null): DecodedNotice | null {
  if (key === null || value === null) return null;
  const text = value.toString('utf8');
  const requestId = key.toString('utf8');
  if (text === CANCEL) return { kind: 'cancel', requestId, shard: partition };
  const dueAt = Number(text);
  if (text === '' || !Number.isSafeInteger(dueAt)) return null;
  return { kind: 'work', requestId, shard: partition, dueAt };
}
