import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../src/domain/fingerprint.js';

describe('fingerprint', () => {
  it('is SHA-256 hex', () => {
    expect(fingerprint('send', { a: 1 })).toMatch(/^[0-9a-f]{64}$/);
  });

  it('ignores object key order at every depth', () => {
    const a = { url: 'u', headers: { A: '1', B: '2' }, retry: { maxAttempts: 3, backoff: 'exponential' } };
    const b = { retry: { backoff: 'exponential', maxAttempts: 3 }, headers: { B: '2', A: '1' }, url: 'u' };
    expect(fingerprint('create', a)).toBe(fingerprint('create', b));
  });

  it('drops undefined properties', () => {
    expect(fingerprint('op', { a: 1, b: undefined })).toBe(fingerprint('op', { a: 1 }));
  });

  it('hashes bytes by content', () => {
    expect(fingerprint('op', { body: new Uint8Array([1, 2, 3]) })).toBe(fingerprint('op', { body: Uint8Array.from([1, 2, 3]) }));
    expect(fingerprint('op', { body: new Uint8Array([1, 2, 3]) })).not.toBe(fingerprint('op', { body: new Uint8Array([1, 2, 4]) }));
    expect(fingerprint('op', new Uint8Array([49]))).not.toBe(fingerprint('op', '1'));
  });

  it('keeps the operation apart', () => {
    expect(fingerprint('send', { a: 1 })).not.toBe(fingerprint('create', { a: 1 }));
  });

  it('tells apart values that a naive serialisation would merge', () => {
    const pairs: Array<[unknown, unknown]> = [
      [1, '1'],
      [null, 'null'],
      [true, 'true'],
      [[], {}],
      [['ab', 'c'], ['a', 'bc']],
      [{ a: 'b,c' }, { a: 'b', c: undefined }],
      [{ ab: 'c' }, { a: 'bc' }],
      [[1, [2]], [[1], 2]],
      [[undefined], []],
      [[undefined], [null]],
      [0, -1],
      ['', null],
    ];
    for (const [x, y] of pairs) expect(fingerprint('op', x), JSON.stringify([x, y])).not.toBe(fingerprint('op', y));
  });

  it('keeps array order significant', () => {
    expect(fingerprint('op', [['A', '1'], ['B', '2']])).not.toBe(fingerprint('op', [['B', '2'], ['A', '1']]));
  });

  // Stored idempotency records hold fingerprints: a change to the serialisation would break retries across a deploy.
  it('keeps its serialisation across releases', () => {
    expect(fingerprint('op', { b: 2, a: [true, null, 'x'], c: new Uint8Array([1, 2]) })).toBe(
      '6dc6c2e0008d14241f277deec518c28bad80d9805c82063d45b71ae9791e7c71',
    );
    // Multi-byte and unpaired UTF-16 text, bytes between text parts, and every other kind of value.
    const mixed = {
      url: 'https://ä.example/ü?x=€',
      headers: [['X-A', '😀 \ud800 lone']],
      body: new Uint8Array([0, 255, 7]),
      n: 1.5,
      big: 10n,
      d: new Date(5),
      arr: [undefined, null, true, false, ''],
    };
    expect(fingerprint('op', mixed)).toBe('486b0f5d2e381be9d1b9dac62d1c3f234fafd00fa5153f5bc222b5baa11b32e5');
  });

  it('refuses values with no canonical form', () => {
    expect(() => fingerprint('op', { f: () => 1 })).toThrow(TypeError);
    expect(() => fingerprint('op', Symbol('s'))).toThrow(TypeError);
  });
});
