import { createHash, randomBytes } from 'node:crypto';
import { shardOf } from './shards.js';

/**
 * Resource IDs are a type prefix and a ULID: 48 bits of millisecond time and 80 random bits in Crockford base32,
 * so they sort by creation time as plain strings, which list ordering and cursors rely on.
 */

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const TIME_CHARS = 10;
const RANDOM_CHARS = 16;
const MAX_TIME = 2 ** 48 - 1;

// The first character carries only 3 of the 48 time bits, hence [0-7].
const ULID = '[0-7][0-9A-HJKMNP-TV-Z]{25}';
const REQUEST_ID = new RegExp(`^req_${ULID}$`);
/** Also the `pattern` the API documents for a schedule ID it takes as input. */
export const SCHEDULE_ID_PATTERN = new RegExp(`^sch_${ULID}$`);
const PROJECT_ID = new RegExp(`^prj_${ULID}$`);
const BULK_ACTION_ID = new RegExp(`^bulk_${ULID}$`);

// Shared by all prefixes: IDs made in the same millisecond must still sort in the order they were made.
let lastTime = -1;
let lastRandom: number[] = [];

function encodeTime(ms: number): string {
  let out = '';
  let rest = ms;
  for (let i = 0; i < TIME_CHARS; i++) {
    out = CROCKFORD[rest % 32] + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

function freshRandom(): number[] {
  const bytes = randomBytes(RANDOM_CHARS);
  return Array.from(bytes, (b) => b & 31);
}

function incremented(digits: readonly number[]): number[] {
  const next = [...digits];
  for (let i = next.length - 1; i >= 0; i--) {
    const d = next[i] ?? 0;
    if (d < 31) {
      next[i] = d + 1;
      return next;
    }
    next[i] = 0;
  }
  // Reaching this needs about 2^80 IDs in one millisecond; sorting can no longer be promised.
  throw new Error('ULID random part exhausted within one millisecond');
}

function ulid(now: number): string {
  const time = Math.floor(now);
  if (!Number.isFinite(time) || time < 0 || time > MAX_TIME) {
    throw new RangeError(`Cannot make an ID for time ${now}`);
  }
  lastRandom = time === lastTime ? incremented(lastRandom) : freshRandom();
  lastTime = time;
  return encodeTime(time) + lastRandom.map((d) => CROCKFORD[d]).join('');
}

export function newRequestId(now: number): string {
  return `req_${ulid(now)}`;
}

/**
 * A request ID whose shard (`shardOf`) is `shard`: IDs are drawn until one falls there, about `shardCount` draws
 * (a few microseconds with the default count), each still after the last in sort order. Requests that share their
 * first flow key are placed on one shard this way, so one process enforces that key's budget in full.
 */
export function newRequestIdOnShard(now: number, shard: number, shardCount: number): string {
  for (;;) {
    const id = newRequestId(now);
    if (shardOf(id, shardCount) === shard) return id;
  }
}

export function newScheduleId(now: number): string {
  return `sch_${ulid(now)}`;
}

export function newBulkActionId(now: number): string {
  return `bulk_${ulid(now)}`;
}

export function isBulkActionId(s: string): boolean {
  return BULK_ACTION_ID.test(s);
}

export function newProjectId(now: number): string {
  return `prj_${ulid(now)}`;
}

export function isRequestId(s: string): boolean {
  return REQUEST_ID.test(s);
}

export function isScheduleId(s: string): boolean {
  return SCHEDULE_ID_PATTERN.test(s);
}

export function isProjectId(s: string): boolean {
  return PROJECT_ID.test(s);
}

/** The millisecond time encoded in an ID made by this module. */
export function timeOfId(id: string): number {
  const time = id.slice(4, 4 + TIME_CHARS);
  let ms = 0;
  for (const c of time) ms = ms * 32 + CROCKFORD.indexOf(c);
  return ms;
}

/**
 * API keys: `fry_<keyId>_<secret>`. The key ID is looked up in storage, the secret is only ever compared by hash.
 * The key ID uses lowercase Crockford base32 so it never contains `_` and the token splits unambiguously.
 */

const KEY_ID_ALPHABET = CROCKFORD.toLowerCase();
const KEY_ID_BYTES = 10;
const SECRET_BYTES = 32;
// 32 bytes are 43 base64url characters whose last one carries 2 padding bits; only zero padding is canonical.
const API_KEY = /^fry_([0-9a-hjkmnp-tv-z]{16})_([A-Za-z0-9_-]{42}[AEIMQUYcgkosw048])$/;

export interface ApiKey {
  readonly keyId: string;
  readonly secret: string;
  readonly token: string;
}

function lowerBase32(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const b of bytes) {
    buffer = ((buffer << 8) | b) & 0xfff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += KEY_ID_ALPHABET[(buffer >> bits) & 31];
    }
  }
  return out;
}

export function newApiKey(): ApiKey {
  const keyId = lowerBase32(randomBytes(KEY_ID_BYTES));
  const secret = randomBytes(SECRET_BYTES).toString('base64url');
  return { keyId, secret, token: `fry_${keyId}_${secret}` };
}

export function parseApiKey(token: string): { keyId: string; secret: string } | null {
  const m = API_KEY.exec(token);
  if (m === null) return null;
  return { keyId: m[1] as string, secret: m[2] as string };
}

/** Hashes the secret exactly as the token carries it (its base64url text), so parsing needs no decoding step. */
export function hashSecret(secret: string): Uint8Array {
  return new Uint8Array(createHash('sha256').update(secret, 'utf8').digest());
}

/**
 * The ID of the callback that reports the ending of request `originalId`: the same for every write of that ending,
 * so writing it again (a repeated write, a write by an owner that lost the shard) can only land on the one callback,
 * never make a second. Its time part is the original's, its random part drawn from a hash of the original's ID until
 * it falls on the original's shard, so the write that ends the request and creates the callback is one owner's.
 */
export function callbackRequestId(originalId: string, shardCount: number): string {
  const shard = shardOf(originalId, shardCount);
  const time = originalId.slice(4, 4 + TIME_CHARS);
  for (let n = 0; ; n++) {
    const digest = createHash('sha256').update(`${originalId}/callback/${n}`).digest();
    let random = '';
    for (let i = 0; i < RANDOM_CHARS; i++) random += CROCKFORD[digest[i]! & 31];
    const id = `req_${time}${random}`;
    if (shardOf(id, shardCount) === shard) return id;
  }
}
