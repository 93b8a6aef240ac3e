import type { WorkNotice } from '../../ports/work-shards.js';

/** A notice on the wire: the partition is the shard, the key the request ID, the value its due time. */
export function encodeNotice(n: WorkNotice): { partition: number; key: string; value: string } {
  return { partition: n.shard, key: n.requestId, value: String(n.dueAt) };
}

export function decodeNotice(partition: number, key: Buffer | null, value: Buffer | null): WorkNotice | null {
  const dueAt = Number(value?.toString('utf8'));
  if (key === null || !Number.isSafeInteger(dueAt)) return null;
  return { requestId: key.toString('utf8'), shard: partition, dueAt };
}
