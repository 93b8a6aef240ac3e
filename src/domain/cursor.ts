import { createHmac, timingSafeEqual } from 'node:crypto';
import { FerryError } from './errors.js';
import { fingerprint } from './fingerprint.js';

/**
 * List cursors are `<payload>.<mac>`, both base64url. The payload is the last position seen and a short tag of the
 * filters; the MAC covers the payload and the full filter hash, so a cursor cannot be forged, altered, or carried over
 * to a different query. The tag exists only to tell the caller which of those went wrong.
 */

export interface CursorPosition {
  readonly createdAt: number;
  readonly id: string;
}

const MAC_BYTES = 16;
const TAG_CHARS = 12;
const MAX_CURSOR_CHARS = 512;
const MAX_ID_CHARS = 64;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const DOMAIN = 'ferry.cursor.v1';

function macOf(payload: string, filterHash: string, secret: Uint8Array): Buffer {
  return createHmac('sha256', secret).update(`${DOMAIN}\n${payload}\n${filterHash}`).digest().subarray(0, MAC_BYTES);
}

function invalid(why: string): FerryError {
  return new FerryError('INVALID_CURSOR', `The cursor ${why}; pass next_cursor from the previous page unchanged.`, 'cursor');
}

export function encodeCursor(pos: CursorPosition, filterHash: string, secret: Uint8Array): string {
  const payload = Buffer.from(JSON.stringify([pos.createdAt, pos.id, filterHash.slice(0, TAG_CHARS)])).toString('base64url');
  return `${payload}.${macOf(payload, filterHash, secret).toString('base64url')}`;
}

function parsePayload(payload: string): [number, string, string] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length !== 3) return null;
  const [createdAt, id, tag] = parsed as unknown[];
  if (!Number.isSafeInteger(createdAt) || (createdAt as number) < 0) return null;
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ID_CHARS) return null;
  if (typeof tag !== 'string') return null;
  return [createdAt as number, id, tag];
}

export function decodeCursor(s: string, filterHash: string, secret: Uint8Array): CursorPosition {
  if (typeof s !== 'string' || s.length === 0 || s.length > MAX_CURSOR_CHARS) throw invalid('is malformed');
  const parts = s.split('.');
  const [payload, mac] = parts;
  if (parts.length !== 2 || payload === undefined || mac === undefined || !BASE64URL.test(payload) || !BASE64URL.test(mac)) {
    throw invalid('is malformed');
  }
  const position = parsePayload(payload);
  if (position === null) throw invalid('is malformed');
  if (position[2] !== filterHash.slice(0, TAG_CHARS)) throw invalid('was issued for different filters');
  const given = Buffer.from(mac, 'base64url');
  const expected = macOf(payload, filterHash, secret);
  // base64url decoding ignores stray trailing bits, so the text is compared too: one MAC, one spelling.
  if (given.length !== MAC_BYTES || !timingSafeEqual(given, expected) || given.toString('base64url') !== mac) {
    throw invalid('was altered or was not issued by this service');
  }
  return { createdAt: position[0], id: position[1] };
}

/** A stable hash of list filters; paging state (cursor, limit) is left out so changing the page size keeps the cursor. */
export function filterHashOf(filters: object): string {
  const { cursor: _cursor, limit: _limit, ...rest } = filters as Record<string, unknown>;
  return fingerprint('request-list-filters', rest);
}
