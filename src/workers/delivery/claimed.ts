import type { StoredRequest } from '../../domain/request.js';

// What the engine asks of a request it holds a claim on.

/**
 * Whether an attempt of `claimed` may still be recorded on `fresh`, the request after a conflicting change. Only a
 * cancel may change a request we hold: one recorded while our claim was stored (our lease stands), or one that
 * ended a request whose claim the store had not stored yet (no attempt was recorded since). Anything else means
 * our claim was taken over.
 */
export function stillOurs(fresh: StoredRequest, claimed: StoredRequest): boolean {
  if (fresh.status === 'delivering') return fresh.dueAt === claimed.dueAt;
  return fresh.status === 'cancelled' && fresh.attemptCount === claimed.attemptCount;
}

/** The claimed request as its record needs it: its state, without the body and headers already sent. */
export function withoutPayload(r: StoredRequest): StoredRequest {
  return { ...r, body: null, headers: [], metadata: {} };
}

/** The destination host (with its port, if any), lower-cased: what the per-host limit counts. */
export function hostOf(url: string): string {
  const start = url.indexOf('//') + 2;
  const end = url.indexOf('/', start);
  return url.slice(start, end === -1 ? undefined : end).toLowerCase();
}
