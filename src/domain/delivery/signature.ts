import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Delivery signatures in the Standard Webhooks scheme, so receivers can verify with any library for it:
 * HMAC-SHA256 over `{id}.{timestamp}.{body}`, base64, sent as `v1,<sig>`. During key rotation one signature per
 * secret is sent, space-separated, so receivers holding either the old or the new secret accept the delivery.
 */

const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;
// The range Standard Webhooks allows, so secrets made by other tools can be imported.
const MIN_SECRET_BYTES = 24;
const MAX_SECRET_BYTES = 64;
const VERSION = 'v1,';
export const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * A '.' in the id would let one (id, timestamp, body) triple be read as another with the same signed content;
 * the id also travels in a header, so it must be printable ASCII.
 */
function isSignableId(id: string): boolean {
  return /^[\x21-\x2d\x2f-\x7e]+$/.test(id);
}

function isSignableTimestamp(t: number): boolean {
  return Number.isSafeInteger(t) && t >= 0;
}

function digest(secret: Uint8Array, id: string, timestampSeconds: number, body: Uint8Array | null): string {
  const hmac = createHmac('sha256', secret);
  hmac.update(`${id}.${timestampSeconds}.`, 'utf8');
  if (body !== null) hmac.update(body);
  return hmac.digest('base64');
}

export function signPayload(secrets: readonly Uint8Array[], id: string, timestampSeconds: number, body: Uint8Array | null): string {
  if (secrets.length === 0) throw new RangeError('At least one signing secret is needed');
  if (!isSignableId(id)) throw new RangeError('The message id must be non-empty printable ASCII without spaces or dots');
  if (!isSignableTimestamp(timestampSeconds)) throw new RangeError(`The timestamp must be whole seconds; got ${timestampSeconds}`);
  return secrets.map((s) => VERSION + digest(s, id, timestampSeconds, body)).join(' ');
}

export function verifySignature(
  header: string,
  secret: Uint8Array,
  id: string,
  timestampSeconds: number,
  body: Uint8Array | null,
  nowSeconds: number,
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
): boolean {
  if (!isSignableId(id) || !isSignableTimestamp(timestampSeconds)) return false;
  // Bounds replays of a captured delivery, in both directions since clocks disagree.
  if (!(Math.abs(nowSeconds - timestampSeconds) <= toleranceSeconds)) return false;
  const expected = Buffer.from(VERSION + digest(secret, id, timestampSeconds, body), 'latin1');
  let matched = false;
  for (const candidate of header.split(' ')) {
    const given = Buffer.from(candidate, 'latin1');
    // timingSafeEqual needs equal lengths; the length of a signature is public anyway.
    if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
  }
  return matched;
}

export function newSigningSecret(): { secret: Uint8Array; encoded: string } {
  const secret = new Uint8Array(randomBytes(SECRET_BYTES));
  return { secret, encoded: encodeSigningSecret(secret) };
}

export function encodeSigningSecret(secret: Uint8Array): string {
  return SECRET_PREFIX + Buffer.from(secret).toString('base64');
}

/** The secret bytes, or null unless `s` is `whsec_` and canonical base64 of 24 to 64 bytes. */
export function decodeSigningSecret(s: string): Uint8Array | null {
  if (!s.startsWith(SECRET_PREFIX)) return null;
  const b64 = s.slice(SECRET_PREFIX.length);
  // Node's base64 decoder skips characters it does not know; only a canonical round trip proves the text is exact.
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length % 4 !== 0) return null;
  const bytes = Buffer.from(b64, 'base64');
  if (bytes.toString('base64') !== b64) return null;
  if (bytes.length < MIN_SECRET_BYTES || bytes.length > MAX_SECRET_BYTES) return null;
  return new Uint8Array(bytes);
}
