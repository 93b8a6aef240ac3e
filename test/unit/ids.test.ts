import { describe, expect, it } from 'vitest';
import {
  hashSecret,
  isProjectId,
  isRequestId,
  isScheduleId,
  newApiKey,
  newProjectId,
  newRequestId,
  newScheduleId,
  parseApiKey,
  timeOfId,
} from '../../src/domain/ids.js';

const T = Date.UTC(2026, 0, 15, 12, 0, 0);

describe('resource IDs', () => {
  it('have the prefix and a 26-character Crockford ULID', () => {
    expect(newRequestId(T)).toMatch(/^req_[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
    expect(newScheduleId(T)).toMatch(/^sch_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(newProjectId(T)).toMatch(/^prj_[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  it('encode the creation time', () => {
    expect(timeOfId(newRequestId(T))).toBe(T);
    expect(timeOfId(newRequestId(0))).toBe(0);
    expect(newRequestId(0).slice(4, 14)).toBe('0000000000');
  });

  it('sort in creation order within one millisecond', () => {
    const ids = Array.from({ length: 1000 }, () => newRequestId(T));
    expect(new Set(ids).size).toBe(1000);
    expect([...ids].sort()).toEqual(ids);
  });

  it('sort by time across milliseconds', () => {
    const ids = [T, T + 1, T + 2, T + 1000, T + 86_400_000].map((t) => newRequestId(t));
    expect([...ids].sort()).toEqual(ids);
  });

  it('are recognised only with their own prefix and exact shape', () => {
    const req = newRequestId(T);
    const body = req.slice(4);
    expect(isRequestId(req)).toBe(true);
    expect(isScheduleId(`sch_${body}`)).toBe(true);
    expect(isProjectId(`prj_${body}`)).toBe(true);
    expect(isScheduleId(req)).toBe(false);
    expect(isProjectId(req)).toBe(false);
    expect(isRequestId(`req_${body.toLowerCase()}`)).toBe(false);
    expect(isRequestId(`req_${body.slice(1)}`)).toBe(false);
    expect(isRequestId(`${req}0`)).toBe(false);
    expect(isRequestId(` ${req}`)).toBe(false);
    expect(isRequestId(`req_${body.slice(0, -1)}U`)).toBe(false);
    expect(isRequestId(`req_${body.slice(0, -1)}I`)).toBe(false);
    expect(isRequestId(`req_8${body.slice(1)}`)).toBe(false);
    expect(isRequestId(`REQ_${body}`)).toBe(false);
  });

  it('refuse times a ULID cannot hold', () => {
    expect(() => newRequestId(-1)).toThrow(RangeError);
    expect(() => newRequestId(2 ** 48)).toThrow(RangeError);
    expect(() => newRequestId(Number.NaN)).toThrow(RangeError);
  });
});

describe('API keys', () => {
  it('are fry_<keyId>_<secret> and parse back', () => {
    const key = newApiKey();
    expect(key.keyId).toMatch(/^[0-9a-z]{16}$/);
    expect(key.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(key.token).toBe(`fry_${key.keyId}_${key.secret}`);
    expect(parseApiKey(key.token)).toEqual({ keyId: key.keyId, secret: key.secret });
  });

  it('are different every time', () => {
    const a = newApiKey();
    const b = newApiKey();
    expect(a.keyId).not.toBe(b.keyId);
    expect(a.secret).not.toBe(b.secret);
  });

  it('parse a secret that contains underscores', () => {
    const secret = `${'_'.repeat(42)}A`;
    expect(parseApiKey(`fry_0123456789abcdef_${secret}`)).toEqual({ keyId: '0123456789abcdef', secret });
  });

  it('reject malformed tokens', () => {
    const { keyId, secret } = newApiKey();
    for (const bad of [
      '',
      'fry_',
      `fry_${keyId}`,
      `fry_${keyId}_`,
      `fry_${keyId}_${secret}x`,
      `fry_${keyId}_${secret.slice(1)}`,
      `fry_${keyId.slice(1)}_${secret}`,
      `fry_${keyId.toUpperCase()}_${secret}`,
      `FRY_${keyId}_${secret}`,
      `xyz_${keyId}_${secret}`,
      `fry_${keyId}_${secret.slice(0, -1)}=`,
      `fry_${keyId}_${secret.slice(0, -1)}B`,
      `fry_${keyId}-${secret}`,
      ` fry_${keyId}_${secret}`,
      `fry_${keyId}_${secret}\n`,
      `fry_${'i'.repeat(16)}_${secret}`,
    ]) {
      expect(parseApiKey(bad), bad).toBeNull();
    }
  });

  it('hash secrets with SHA-256', () => {
    const h = hashSecret('abc');
    expect(h).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(h).toString('hex')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hashSecret('abd')).not.toEqual(h);
  });
});
