import { describe, expect, it } from 'vitest';
import { validateMetadata } from '../../src/domain/validation/metadata.js';
import { expectFerryError } from './expect-ferry-error.js';

describe('validateMetadata', () => {
  it('returns a copy of valid metadata', () => {
    const input = { 'order.id': '42', customer_ref: 'c-1', 'A-Z_09': '' };
    const out = validateMetadata(input);
    expect(out).toEqual(input);
    expect(out).not.toBe(input);
  });

  it('accepts an empty object', () => {
    expect(validateMetadata({})).toEqual({});
  });

  it('keeps __proto__ as a plain key', () => {
    const input = JSON.parse('{"__proto__":"x"}') as Record<string, string>;
    const out = validateMetadata(input);
    expect(Object.keys(out)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });

  it('accepts 32 entries and rejects 33', () => {
    const m: Record<string, string> = {};
    for (let i = 0; i < 32; i++) m[`k${i}`] = 'v';
    expect(Object.keys(validateMetadata(m))).toHaveLength(32);
    m.k32 = 'v';
    expectFerryError(() => validateMetadata(m), 'INVALID_METADATA', 'metadata');
  });

  it('accepts a 64-byte key and rejects 65', () => {
    expect(() => validateMetadata({ ['k'.repeat(64)]: 'v' })).not.toThrow();
    const long = 'k'.repeat(65);
    expectFerryError(() => validateMetadata({ [long]: 'v' }), 'INVALID_METADATA', `metadata.${long}`);
  });

  it.each(['', 'a b', 'a/b', 'a:b', 'é', 'a\nb', 'a+b'])('rejects the key %j', (key) => {
    expectFerryError(() => validateMetadata({ [key]: 'v' }), 'INVALID_METADATA', key === '' ? 'metadata' : `metadata.${key}`);
  });

  it('accepts a 1024-byte value and rejects 1025, counting UTF-8 bytes', () => {
    expect(() => validateMetadata({ k: 'v'.repeat(1024) })).not.toThrow();
    expectFerryError(() => validateMetadata({ k: 'v'.repeat(1025) }), 'INVALID_METADATA', 'metadata.k');
    expectFerryError(() => validateMetadata({ k: '\u00e9'.repeat(513) }), 'INVALID_METADATA', 'metadata.k');
  });

  it('rejects non-string values', () => {
    expectFerryError(() => validateMetadata({ k: 1 } as unknown as Record<string, string>), 'INVALID_METADATA', 'metadata.k');
    expectFerryError(() => validateMetadata({ k: null } as unknown as Record<string, string>), 'INVALID_METADATA', 'metadata.k');
  });

  it('rejects a value that is not an object', () => {
    expectFerryError(() => validateMetadata(['a'] as unknown as Record<string, string>), 'INVALID_METADATA', 'metadata');
    expectFerryError(() => validateMetadata(null as unknown as Record<string, string>), 'INVALID_METADATA', 'metadata');
  });

  it('accepts exactly 16384 bytes in total and rejects one more', () => {
    // 16 entries of a 2-character key and a 1022-byte value: 16 * 1024 = 16384.
    const m: Record<string, string> = {};
    for (let i = 10; i < 26; i++) m[`k${i.toString(36)}`] = 'v'.repeat(1022);
    expect(Object.keys(validateMetadata(m))).toHaveLength(16);
    m.x = ''; // one more byte
    expectFerryError(() => validateMetadata(m), 'INVALID_METADATA', 'metadata');
  });
});
