import {
  FutureTimestampError,
  InvalidHeaderError,
  MissingHeaderError,
  NoMatchingSignatureError,
  StaleTimestampError,
} from './errors.js';
import { headerValue, type DeliveryHeaders } from './headers.js';
import { decodeBase64, importSecrets } from './secrets.js';

/** What {@link verifyDelivery} checks: the request as received, and the project's signing secret(s). */
export interface VerifyDeliveryOptions {
  /** The project's signing secret, `whsec_…`, as `ferry project create` printed it. */
  secret?: string;
  /**
   * Several secrets, any of which may match: during a rotation keep the old and the new one here until the
   * overlap is over. Combined with `secret` when both are given.
   */
  secrets?: readonly string[];
  /** The request headers: a Fetch `Headers`, Node's `req.headers`, or a plain record. */
  headers: DeliveryHeaders;
  /** The raw body exactly as received, before any JSON parsing; a Node `Buffer` is a `Uint8Array`. */
  body: string | Uint8Array | ArrayBuffer;
  /** How far the signing time may be from now, either way; 300 s (5 minutes) unless given. */
  toleranceSeconds?: number;
  /** The current time (a `Date` or epoch milliseconds); the clock of the runtime unless given. */
  now?: Date | number;
}

/** A delivery that passed verification: who it is, so the receiver can deduplicate on `requestId`. */
export interface VerifiedDelivery {
  /** The `req_…` id, the same on every attempt of one request. */
  requestId: string;
  /** Which attempt this is, from 1; an attempt can arrive twice after a crash, so deduplicate on `requestId`. */
  attempt: number;
  /** When Ferry signed this attempt. */
  timestamp: Date;
  /** The schedule whose occurrence made the request, or null. */
  scheduleId: string | null;
}

const DEFAULT_TOLERANCE_SECONDS = 300;

const HEADER = {
  requestId: 'Service-Request-Id',
  attempt: 'Service-Attempt',
  scheduleId: 'Service-Schedule-Id',
  timestamp: 'Service-Timestamp',
  signature: 'Service-Signature',
} as const;
const SIGNATURE_VERSION = 'v1,';
// 32 bytes of HMAC-SHA256 are 44 characters of base64.
const SIGNATURE_BYTES = 32;

/**
 * Checks that a request came from Ferry for this project and was not altered or replayed late: Ferry signs
 * `{Service-Request-Id}.{Service-Timestamp}.{raw body}` with HMAC-SHA256 under each active secret and sends
 * `v1,<base64>` per secret in `Service-Signature`. Every given secret is tried against every signature, each
 * comparison in constant time (Web Crypto `verify`). Resolves with the delivery's identity; rejects with a
 * {@link WebhookVerificationError} subclass saying which check failed.
 */
export async function verifyDelivery(options: VerifyDeliveryOptions): Promise<VerifiedDelivery> {
  const secrets = [...(options.secret === undefined ? [] : [options.secret]), ...(options.secrets ?? [])];
  if (secrets.length === 0) throw new TypeError('verifyDelivery needs the signing secret: pass `secret` or `secrets`.');
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!(tolerance >= 0 && Number.isFinite(tolerance))) throw new TypeError('verifyDelivery: toleranceSeconds must be a number of seconds, 0 or more.');
  const keys = await importSecrets(secrets);

  const requestId = required(options.headers, HEADER.requestId);
  const attemptText = required(options.headers, HEADER.attempt);
  const timestampText = required(options.headers, HEADER.timestamp);
  const signatureText = required(options.headers, HEADER.signature);
  const scheduleId = headerValue(options.headers, HEADER.scheduleId) ?? null;

  // A '.' in the id would make two different (id, timestamp, body) triples sign the same text; Ferry never sends one.
  if (!/^[\x21-\x2d\x2f-\x7e]+$/.test(requestId)) throw new InvalidHeaderError(HEADER.requestId, `${HEADER.requestId} is not a Ferry request id.`);
  if (!/^[1-9][0-9]{0,8}$/.test(attemptText)) throw new InvalidHeaderError(HEADER.attempt, `${HEADER.attempt} is not a positive whole number.`);
  if (!/^[0-9]{1,15}$/.test(timestampText)) throw new InvalidHeaderError(HEADER.timestamp, `${HEADER.timestamp} is not whole Unix seconds.`);
  const signatures = signatureText
    .split(' ')
    .filter((s) => s.startsWith(SIGNATURE_VERSION))
    .map((s) => decodeBase64(s.slice(SIGNATURE_VERSION.length)))
    .filter((s): s is Uint8Array<ArrayBuffer> => s !== null && s.length === SIGNATURE_BYTES);
  if (signatures.length === 0) throw new InvalidHeaderError(HEADER.signature, `${HEADER.signature} holds no v1 HMAC-SHA256 signature.`);

  const signedAt = Number(timestampText);
  const nowMs = options.now === undefined ? Date.now() : Number(options.now);
  const timestamp = new Date(signedAt * 1000);
  const ageSeconds = nowMs / 1000 - signedAt;
  if (ageSeconds > tolerance) throw new StaleTimestampError(timestamp, tolerance);
  if (-ageSeconds > tolerance) throw new FutureTimestampError(timestamp, tolerance);

  const signed = signedContent(requestId, timestampText, options.body);
  // Every pair is checked, so how long this takes does not depend on which secret or signature matched.
  const checks = await Promise.all(keys.flatMap((key) => signatures.map((sig) => globalThis.crypto.subtle.verify('HMAC', key, sig, signed))));
  if (!checks.includes(true)) throw new NoMatchingSignatureError();
  return { requestId, attempt: Number(attemptText), timestamp, scheduleId };
}

function required(headers: DeliveryHeaders, name: string): string {
  const value = headerValue(headers, name);
  if (value === undefined || value === '') throw new MissingHeaderError(name);
  return value;
}

/** `{id}.{timestamp}.` followed by the body bytes, in a fresh buffer Web Crypto accepts on every runtime. */
function signedContent(requestId: string, timestamp: string, body: string | Uint8Array | ArrayBuffer): Uint8Array<ArrayBuffer> {
  const encoder = new TextEncoder();
  const prefix = encoder.encode(`${requestId}.${timestamp}.`);
  const bytes = typeof body === 'string' ? encoder.encode(body) : ArrayBuffer.isView(body) ? body : new Uint8Array(body);
  const content = new Uint8Array(prefix.length + bytes.length);
  content.set(prefix, 0);
  content.set(bytes, prefix.length);
  return content;
}
