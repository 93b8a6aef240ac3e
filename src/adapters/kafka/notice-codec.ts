import type { StoredRequest } from '../../domain/request.js';
import type { CancelNotice, WorkNotice } from '../../ports/work-shards.js';

/** The value of a cancel notice; a work notice's value is its due time, digits only. */
const CANCEL = 'cancel';

/** A carried request's body above this goes without the request: the owner reads it instead. */
export const MAX_CARRIED_BODY_BYTES = 64 * 1024;

/**
 * A notice on the wire: the partition is the shard, the key the request ID, the value its due time (work), the
 * request as JSON (work, carried: body in base64) or `cancel`. All share the partition, so the owner reads them in
 * the order they arrived.
 */
export function encodeNotice(n: WorkNotice): { partition: number; key: string; value: string } {
  const carried = n.request !== undefined && (n.request.body?.byteLength ?? 0) <= MAX_CARRIED_BODY_BYTES;
  return { partition: n.shard, key: n.requestId, value: carried ? JSON.stringify(n.request, bodyAsBase64) : String(n.dueAt) };
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
  if (text.startsWith('{')) return carriedNotice(partition, requestId, text);
  const dueAt = Number(text);
  if (text === '' || !Number.isSafeInteger(dueAt)) return null;
  return { kind: 'work', requestId, shard: partition, dueAt };
}

function bodyAsBase64(key: string, value: unknown): unknown {
  return key === 'body' && value instanceof Uint8Array ? Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') : value;
}

/** A carried request, checked as far as the owner relies on it; a wake-up alone if anything is off. */
function carriedNotice(shard: number, requestId: string, text: string): DecodedNotice | null {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
  const { dueAt, body, id, version, createdAt } = parsed;
  if (typeof dueAt !== 'number' || !Number.isSafeInteger(dueAt)) return null;
  const wellFormed =
    id === requestId && typeof version === 'number' && typeof createdAt === 'number' && (body === null || typeof body === 'string');
  if (!wellFormed) return { kind: 'work', requestId, shard, dueAt };
  // A notice from a process of an earlier version carries a request without flow control's or callbacks' fields or
  // the last status code.
  const request = {
    ...parsed,
    body: body === null ? null : new Uint8Array(Buffer.from(body, 'base64')),
    flowKeys: parsed['flowKeys'] ?? [],
    waitingFor: parsed['waitingFor'] ?? null,
    lastStatusCode: parsed['lastStatusCode'] ?? null,
    callbacks: parsed['callbacks'] ?? null,
    callbackForRequestId: parsed['callbackForRequestId'] ?? null,
    callbackRequestIds: parsed['callbackRequestIds'] ?? [],
  } as unknown as StoredRequest;
  return { kind: 'work', requestId, shard, dueAt, request };
}
