/**
 * What Ferry keeps of a destination's answer, and the receiver's signal to stop retrying.
 *
 * Kept headers: `content-type`, `retry-after`, `ratelimit-*`, `x-ratelimit-*`, `x-request-id` (names lower-cased,
 * repeated lines joined with `, `, values escaped and cut like `retry_after_raw`). They say what the answer was
 * and when to come back; other headers (cookies, tokens, server banners) are not Ferry's to keep.
 *
 * Body excerpt: the first `RESPONSE_BODY_EXCERPT_BYTES` bytes, read on the way while the transport reads the body
 * (bounded) anyway, so capture costs no extra read. When the cut falls inside a multi-byte UTF-8 character, the
 * character's leading bytes are dropped (at most 3), so a text body stays text: `body_encoding` is `utf8` when the
 * kept bytes are valid UTF-8, else `base64` of exactly the kept bytes.
 *
 * Stop signal: `Service-No-Retry: true`, or Standard Webhooks' `webhook-delivery: abort-message` (values compared
 * without case or surrounding spaces). It turns a retryable failure into a final one (`receiver_stopped`); a 2xx
 * with it is a success like any other, and a status that is final anyway stays `final_status`.
 */
import { isUtf8 } from 'node:buffer';
import type { CapturedResponse, HeaderEntry } from '../request.js';
import { toPrintable } from './retry-after.js';

/** How much of a response body an attempt keeps: enough for an error message or a problem document. */
export const RESPONSE_BODY_EXCERPT_BYTES = 2048;
/** Kept header values are short by nature (types, counts, IDs); a longer one is cut rather than stored whole. */
export const RESPONSE_HEADER_VALUE_MAX = 256;

const STOP_HEADERS: ReadonlyMap<string, string> = new Map([
  ['service-no-retry', 'true'],
  ['webhook-delivery', 'abort-message'],
]);
const KEPT_NAMES: ReadonlySet<string> = new Set(['content-type', 'retry-after', 'x-request-id']);
const KEPT_PREFIXES = ['ratelimit-', 'x-ratelimit-'] as const;

/** Whether a response header (lower-cased name) is kept on the attempt. */
export function isKeptResponseHeader(name: string): boolean {
  return KEPT_NAMES.has(name) || KEPT_PREFIXES.some((p) => name.startsWith(p));
}

/** Whether the transport must hand a response header (lower-cased name) to the delivery policy. */
export function isWantedResponseHeader(name: string): boolean {
  return isKeptResponseHeader(name) || STOP_HEADERS.has(name);
}

/** Whether the headers carry the receiver's signal to stop retrying. */
export function receiverStopped(headers: readonly HeaderEntry[]): boolean {
  for (const [name, value] of headers) {
    const wanted = STOP_HEADERS.get(name);
    if (wanted !== undefined && value.split(',').some((v) => v.trim().toLowerCase() === wanted)) return true;
  }
  return false;
}

/** The kept headers, in a displayable form. */
export function keptResponseHeaders(headers: readonly HeaderEntry[]): HeaderEntry[] {
  const kept: HeaderEntry[] = [];
  for (const [name, value] of headers) {
    if (isKeptResponseHeader(name)) kept.push([name, toPrintable(value, RESPONSE_HEADER_VALUE_MAX).text]);
  }
  return kept;
}

/**
 * The excerpt of a body as read: `start` is at most `RESPONSE_BODY_EXCERPT_BYTES` bytes, `truncated` says more
 * followed. A text body cut inside a character loses that character's leading bytes.
 */
export function bodyExcerpt(start: Uint8Array, truncated: boolean): Uint8Array {
  const bytes = start.length > RESPONSE_BODY_EXCERPT_BYTES ? start.subarray(0, RESPONSE_BODY_EXCERPT_BYTES) : start;
  if (!truncated || isUtf8(bytes)) return bytes;
  const whole = withoutPartialCharacter(bytes);
  return whole.length < bytes.length && isUtf8(whole) ? whole : bytes;
}

/** The body as the API shows it: text when it is valid UTF-8, else base64. */
export function bodyText(body: Uint8Array): { readonly text: string; readonly encoding: 'utf8' | 'base64' } {
  const buf = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return isUtf8(buf) ? { text: buf.toString('utf8'), encoding: 'utf8' } : { text: buf.toString('base64'), encoding: 'base64' };
}

/** The bytes without a trailing UTF-8 sequence that its length byte says is incomplete. */
function withoutPartialCharacter(bytes: Uint8Array): Uint8Array {
  // A sequence is at most 4 bytes, so its lead byte is within the last 3 when it is incomplete.
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const b = bytes[bytes.length - back]!;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: the lead is further back
    const needed = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return needed > back ? bytes.subarray(0, bytes.length - back) : bytes;
  }
  return bytes;
}

/** What an attempt keeps of a response outcome (`AttemptOutcome` of kind `response`). */
export function capturedResponse(o: { readonly headers?: readonly HeaderEntry[]; readonly bodyStart?: Uint8Array; readonly bodyTruncated?: boolean }): CapturedResponse {
  const headers = keptResponseHeaders(o.headers ?? []);
  if (o.bodyStart === undefined) return { headers, body: null, bodyTruncated: false };
  const truncated = (o.bodyTruncated ?? false) || o.bodyStart.length > RESPONSE_BODY_EXCERPT_BYTES;
  return { headers, body: bodyExcerpt(o.bodyStart, truncated), bodyTruncated: truncated };
}
