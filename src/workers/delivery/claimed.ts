import type { StoredRequest } from '../../domain/request.js';

// What the engine asks of a request it holds a claim on.

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
