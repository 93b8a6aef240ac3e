import { describe, expect, it } from 'vitest';
import { validateContentType, validateDestinationHeaders } from '../../src/domain/validation/headers.js';
import { expectFerryError } from './expect-ferry-error.js';

const ok = (entries: Array<[string, string]>) => validateDestinationHeaders(entries, 'headers');
const bad = (entries: Array<[string, string]>, field?: string, prefix = 'headers') =>
  expectFerryError(() => validateDestinationHeaders(entries, prefix), 'INVALID_HEADERS', field);

describe('validateDestinationHeaders', () => {
  it('keeps order and spelling', () => {
    const entries: Array<[string, string]> = [['X-B', '2'], ['authorization', 'Bearer t'], ['X-A', '']];
    expect(ok(entries)).toEqual(entries);
  });

  it('accepts Authorization, tab, obs-text and every token character', () => {
    expect(() => ok([['Authorization', 'Bearer abc']])).not.toThrow();
    expect(() => ok([['X-Tab', 'a\tb']])).not.toThrow();
    expect(() => ok([['X-Latin', 'caf\u00e9']])).not.toThrow();
    expect(() => ok([["!#$%&'*+-.^_`|~09azAZ", 'v']])).not.toThrow();
    expect(() => ok([])).not.toThrow();
  });

  it.each(['', 'X Foo', 'X:Foo', ':authority', 'X-Foo\r', 'X(Foo)', 'X"', 'Ä', 'X/Y', 'X@Y', 'X,Y'])('rejects the name %j', (name) => {
    bad([[name, 'v']], `headers.${name}`);
  });

  it.each(['a\r\nX-Injected: 1', 'a\nb', 'a\rb', 'a\u0000b', 'a\u0001b', 'a\u001fb', 'a\u007fb', 'a\u0100b', '\u2028', 'emoji \u{1F600}'])(
    'rejects the value %j',
    (value) => {
      bad([['X-Foo', value]], 'headers.X-Foo');
    },
  );

  it.each([
    'Host', 'host', 'Content-Length', 'Transfer-Encoding', 'Connection', 'Keep-Alive', 'Upgrade', 'TE', 'Trailer',
    'Expect', 'Proxy-Authorization', 'Proxy-Connection', 'Proxy-Anything', 'proxy-x', 'Service-Signature',
    'service-id', 'SERVICE-TIMESTAMP', 'Content-Type',
  ])('rejects the reserved name %s', (name) => {
    bad([[name, 'v']], `headers.${name}`);
  });

  it('rejects names that differ only by case', () => {
    bad([['X-Foo', '1'], ['x-foo', '2']], 'headers.x-foo');
  });

  it('accepts 64 entries and rejects 65', () => {
    const entries = Array.from({ length: 64 }, (_, i): [string, string] => [`X-H${i}`, 'v']);
    expect(ok(entries)).toHaveLength(64);
    bad([...entries, ['X-H64', 'v']], 'headers');
  });

  it('accepts exactly 32768 bytes of names and values and rejects one more', () => {
    const value = 'v'.repeat(32768 - 'X-Big'.length);
    expect(() => ok([['X-Big', value]])).not.toThrow();
    bad([['X-Big', `${value}v`]], 'headers');
  });

  it('counts the size in UTF-8 bytes', () => {
    const value = '\u00e9'.repeat(16382); // 32764 bytes + 5 for the name
    bad([['X-Big', value]], 'headers');
  });

  it('names fields after the X-Forward- prefix for send', () => {
    bad([['Host', 'evil']], 'X-Forward-Host', 'X-Forward-');
    bad([['X-A', 'a\nb']], 'X-Forward-X-A', 'X-Forward-');
    bad(Array.from({ length: 65 }, (_, i): [string, string] => [`X-H${i}`, 'v']), 'X-Forward-*', 'X-Forward-');
  });
});

describe('validateContentType', () => {
  it('returns the value unchanged', () => {
    expect(validateContentType('application/json; charset=utf-8')).toBe('application/json; charset=utf-8');
    expect(validateContentType('text/plain')).toBe('text/plain');
  });

  it('accepts exactly 255 bytes and rejects 256', () => {
    const at = `text/${'x'.repeat(250)}`;
    expect(validateContentType(at)).toBe(at);
    expectFerryError(() => validateContentType(`${at}x`), 'INVALID_CONTENT_TYPE', 'Content-Type');
  });

  it.each(['', '   ', 'text/plain\r\nX: 1', 'text/plain\u0000', 'text/\u2603'])('rejects %j', (value) => {
    expectFerryError(() => validateContentType(value), 'INVALID_CONTENT_TYPE', 'Content-Type');
  });

  it('uses the given field', () => {
    expectFerryError(() => validateContentType('', 'headers.content-type'), 'INVALID_CONTENT_TYPE', 'headers.content-type');
  });

  it.each(['application/vnd.api+json', 'text/plain;charset="utf-8"', 'multipart/form-data; boundary="a \\"b\\""', 'text/html ;', ' text/csv ; header=present'])(
    'accepts the media type %j',
    (value) => {
      expect(validateContentType(value)).toBe(value);
    },
  );

  it.each(['not a type', 'text', 'text/', '/plain', 'text/pl ain', 'text/plain; charset', 'text/plain; =utf-8', 'text/plain; a="open', 'text/plain, text/html'])(
    'rejects %j, which is not a media type',
    (value) => {
      const err = expectFerryError(() => validateContentType(value), 'INVALID_CONTENT_TYPE', 'Content-Type');
      expect(err.message).toContain('not a media type');
    },
  );

  // A grammar that could split a run of spaces between two of its parts took minutes here (the test's timeout).
  it('refuses long malformed values made of empty parameters and spaces', () => {
    expectFerryError(() => validateContentType(`a/b${'; \t'.repeat(80)}\u0001`), 'INVALID_CONTENT_TYPE', 'Content-Type');
    expectFerryError(() => validateContentType(`a/b${' ; '.repeat(80)}(`), 'INVALID_CONTENT_TYPE', 'Content-Type');
  });
});
