import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeSigningSecret, encodeSigningSecret, newSigningSecret, signPayload, verifySignature } from '../../src/domain/delivery/signature.js';

const SECRET = new Uint8Array(Array.from({ length: 32 }, (_, i) => i));
const OTHER = new Uint8Array(Array.from({ length: 32 }, (_, i) => 255 - i));
const ID = 'req_01KF0000000000000000000000';
const TS = 1_768_478_400;
const BODY = new TextEncoder().encode('{"hello":"wörld"}');

function expected(secret: Uint8Array, content: string | Buffer): string {
  return `v1,${createHmac('sha256', secret).update(content).digest('base64')}`;
}

describe('signPayload', () => {
  it('signs "{id}.{timestamp}.{body}" with HMAC-SHA256 in base64', () => {
    const content = Buffer.concat([Buffer.from(`${ID}.${TS}.`), Buffer.from(BODY)]);
    expect(signPayload([SECRET], ID, TS, BODY)).toBe(expected(SECRET, content));
  });

  it('reproduces the published Standard Webhooks test vector', () => {
    const secret = decodeSigningSecret('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    expect(secret).not.toBeNull();
    const body = new TextEncoder().encode('{"test": 2432232314}');
    const header = signPayload([secret as Uint8Array], 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1_614_265_330, body);
    expect(header).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('signs an empty body as an empty string', () => {
    expect(signPayload([SECRET], ID, TS, null)).toBe(expected(SECRET, `${ID}.${TS}.`));
    expect(signPayload([SECRET], ID, TS, new Uint8Array(0))).toBe(expected(SECRET, `${ID}.${TS}.`));
  });

  it('signs arbitrary bytes, not text', () => {
    const bytes = new Uint8Array([0, 0xff, 0xfe, 0x80, 10]);
    const content = Buffer.concat([Buffer.from(`${ID}.${TS}.`), Buffer.from(bytes)]);
    expect(signPayload([SECRET], ID, TS, bytes)).toBe(expected(SECRET, content));
  });

  it('sends one signature per secret during rotation, space-separated, in order', () => {
    const header = signPayload([SECRET, OTHER], ID, TS, BODY);
    const [a, b, ...rest] = header.split(' ');
    expect(rest).toEqual([]);
    expect(a).toBe(signPayload([SECRET], ID, TS, BODY));
    expect(b).toBe(signPayload([OTHER], ID, TS, BODY));
    expect(verifySignature(header, SECRET, ID, TS, BODY, TS)).toBe(true);
    expect(verifySignature(header, OTHER, ID, TS, BODY, TS)).toBe(true);
  });

  it('refuses to sign without a secret, with an ambiguous id or a fractional timestamp', () => {
    expect(() => signPayload([], ID, TS, BODY)).toThrow(RangeError);
    expect(() => signPayload([SECRET], 'a.b', TS, BODY)).toThrow(RangeError);
    expect(() => signPayload([SECRET], '', TS, BODY)).toThrow(RangeError);
    expect(() => signPayload([SECRET], 'a b', TS, BODY)).toThrow(RangeError);
    expect(() => signPayload([SECRET], ID, 1.5, BODY)).toThrow(RangeError);
    expect(() => signPayload([SECRET], ID, -1, BODY)).toThrow(RangeError);
  });
});

describe('verifySignature', () => {
  const header = signPayload([SECRET], ID, TS, BODY);

  it('accepts its own signature within the tolerance, either side of now', () => {
    expect(verifySignature(header, SECRET, ID, TS, BODY, TS)).toBe(true);
    expect(verifySignature(header, SECRET, ID, TS, BODY, TS + 300)).toBe(true);
    expect(verifySignature(header, SECRET, ID, TS, BODY, TS - 300)).toBe(true);
  });

  it('rejects stale and future timestamps', () => {
    expect(verifySignature(header, SECRET, ID, TS, BODY, TS + 301)).toBe(false);
    expect(verifySignature(header, SECRET, ID, TS, BODY, TS - 301)).toBe(false);
    expect(verifySignature(header, SECRET, ID, TS, BODY, TS + 61, 60)).toBe(false);
    expect(verifySignature(header, SECRET, ID, TS, BODY, TS + 60, 60)).toBe(true);
    expect(verifySignature(header, SECRET, ID, TS, BODY, Number.NaN)).toBe(false);
  });

  it('rejects a tampered body, id or timestamp', () => {
    const tampered = new Uint8Array(BODY);
    tampered[0] = 0x5b;
    expect(verifySignature(header, SECRET, ID, TS, tampered, TS)).toBe(false);
    expect(verifySignature(header, SECRET, ID, TS, null, TS)).toBe(false);
    expect(verifySignature(header, SECRET, `${ID}X`, TS, BODY, TS)).toBe(false);
    expect(verifySignature(header, SECRET, ID, TS + 1, BODY, TS)).toBe(false);
  });

  it('rejects the wrong secret, other versions and malformed headers', () => {
    expect(verifySignature(header, OTHER, ID, TS, BODY, TS)).toBe(false);
    expect(verifySignature(header.replace('v1,', 'v2,'), SECRET, ID, TS, BODY, TS)).toBe(false);
    expect(verifySignature(header.slice(3), SECRET, ID, TS, BODY, TS)).toBe(false);
    expect(verifySignature(`${header}=`, SECRET, ID, TS, BODY, TS)).toBe(false);
    expect(verifySignature('', SECRET, ID, TS, BODY, TS)).toBe(false);
    expect(verifySignature('v1,', SECRET, ID, TS, BODY, TS)).toBe(false);
    expect(verifySignature('v1,€€€', SECRET, ID, TS, BODY, TS)).toBe(false);
  });

  it('finds a valid signature among others', () => {
    const mixed = `v1,${'A'.repeat(43)}= garbage  ${header}`;
    expect(verifySignature(mixed, SECRET, ID, TS, BODY, TS)).toBe(true);
  });
});

describe('signing secrets', () => {
  it('are 32 random bytes encoded as whsec_ and base64', () => {
    const a = newSigningSecret();
    const b = newSigningSecret();
    expect(a.secret).toHaveLength(32);
    expect(a.encoded).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(a.encoded).not.toBe(b.encoded);
    expect(decodeSigningSecret(a.encoded)).toEqual(a.secret);
    expect(Buffer.from(a.encoded.slice(6), 'base64')).toEqual(Buffer.from(a.secret));
  });

  it('round-trip through encode and decode', () => {
    expect(encodeSigningSecret(SECRET)).toBe(`whsec_${Buffer.from(SECRET).toString('base64')}`);
    expect(decodeSigningSecret(encodeSigningSecret(SECRET))).toEqual(SECRET);
    expect(decodeSigningSecret(encodeSigningSecret(new Uint8Array(24)))).toHaveLength(24);
    expect(decodeSigningSecret(encodeSigningSecret(new Uint8Array(64)))).toHaveLength(64);
  });

  it.each([
    ['no prefix', Buffer.from(SECRET).toString('base64')],
    ['wrong prefix', `whsek_${Buffer.from(SECRET).toString('base64')}`],
    ['empty', 'whsec_'],
    ['too short', encodeSigningSecret(new Uint8Array(23))],
    ['too long', encodeSigningSecret(new Uint8Array(65))],
    ['not base64', `whsec_${'*'.repeat(44)}`],
    ['base64url', `whsec_${Buffer.from(OTHER).toString('base64url')}`],
    ['missing padding', encodeSigningSecret(SECRET).replace(/=$/, '')],
    ['non-canonical padding bits', encodeSigningSecret(SECRET).replace(/.=$/, 'B=')],
    ['embedded space', encodeSigningSecret(SECRET).replace('whsec_', 'whsec_ ')],
  ])('rejects %s', (_, s) => {
    expect(decodeSigningSecret(s)).toBeNull();
  });
});
