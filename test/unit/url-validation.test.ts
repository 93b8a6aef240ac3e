import { describe, expect, it } from 'vitest';
import { isPublicAddress, validateDestinationUrl } from '../../src/domain/validation/url.js';
import { expectFerryError } from './expect-ferry-error.js';

const strict = { allowPrivate: false };
const lax = { allowPrivate: true };

describe('validateDestinationUrl: shape', () => {
  it('returns the WHATWG-normalised URL', () => {
    expect(validateDestinationUrl('https://Example.COM:443/a/../b?x=é', strict)).toBe('https://example.com/b?x=%C3%A9');
    expect(validateDestinationUrl('https://example.com', strict)).toBe('https://example.com/');
    expect(validateDestinationUrl('https://example.com:8443/hook', strict)).toBe('https://example.com:8443/hook');
    expect(validateDestinationUrl('https://bücher.example/x', strict)).toBe('https://xn--bcher-kva.example/x');
  });

  it('accepts exactly 2048 bytes and rejects 2049', () => {
    const base = 'https://example.com/';
    const at = base + 'a'.repeat(2048 - base.length);
    expect(validateDestinationUrl(at, strict)).toBe(at);
    expectFerryError(() => validateDestinationUrl(`${at}a`, strict), 'INVALID_URL', 'url');
  });

  it('counts the limit in UTF-8 bytes', () => {
    const base = 'https://example.com/?q=';
    const multiByte = base + 'é'.repeat(1013); // 23 + 2026 = 2049 bytes, but fewer characters
    expect(multiByte.length).toBeLessThan(2048);
    expectFerryError(() => validateDestinationUrl(multiByte, strict), 'INVALID_URL');
  });

  it('rejects URLs that grow past the limit once normalised', () => {
    const base = 'https://example.com/?q=';
    const raw = base + 'é'.repeat(1000); // 2023 bytes raw, about 6000 once percent-encoded
    expectFerryError(() => validateDestinationUrl(raw, strict), 'INVALID_URL');
  });

  it.each([
    ['', 'empty'],
    ['example.com/path', 'no scheme'],
    ['http://example.com/', 'plain http'],
    ['HTTP://example.com/', 'plain http in capitals'],
    ['ftp://example.com/', 'other scheme'],
    ['wss://example.com/', 'websocket'],
    ['https://', 'no host'],
    ['https://user@example.com/', 'user name'],
    ['https://user:pw@example.com/', 'credentials'],
    ['https://:pw@example.com/', 'password only'],
    ['https://example.com/#frag', 'fragment'],
    ['https://example.com/#', 'empty fragment'],
    ['https://example.com/ path', 'space'],
    [' https://example.com/', 'leading space'],
    ['https://example.com/\n', 'newline'],
    ['https://exa\tmple.com/', 'tab'],
    ['https://example.com:0/', 'port 0'],
    ['https://example.com:99999/', 'port out of range'],
    ['https://exa mple.com/', 'space in host'],
    ['https://1.2.3.4.5/', 'bad IPv4'],
    ['https://[::1/', 'unclosed bracket'],
  ])('rejects %s (%s) as INVALID_URL', (raw) => {
    expectFerryError(() => validateDestinationUrl(raw, strict), 'INVALID_URL', 'url');
    expectFerryError(() => validateDestinationUrl(raw, lax), 'INVALID_URL', 'url');
  });

  it('uses the given field name', () => {
    expectFerryError(() => validateDestinationUrl('http://x.example/', strict, 'request.url'), 'INVALID_URL', 'request.url');
  });
});

describe('validateDestinationUrl: destinations', () => {
  it.each([
    'https://localhost/',
    'https://LOCALHOST/',
    'https://localhost./',
    'https://ＬＯＣＡＬＨＯＳＴ/',
    'https://api.localhost/',
    'https://printer.local/',
    'https://metadata.google.internal/',
    'https://router.home.arpa/',
    'https://box.localdomain/',
    'https://intranet/',
    'https://intranet./',
    'https://127.0.0.1/',
    'https://127.0.0.1./',
    'https://127.255.255.254/',
    'https://10.0.0.1/',
    'https://172.16.0.1/',
    'https://172.31.255.255/',
    'https://192.168.1.1/',
    'https://169.254.169.254/',
    'https://100.64.0.1/',
    'https://100.127.255.255/',
    'https://0.0.0.0/',
    'https://0/',
    'https://224.0.0.1/',
    'https://239.255.255.250/',
    'https://255.255.255.255/',
    'https://240.0.0.1/',
    'https://192.0.2.1/',
    'https://198.51.100.7/',
    'https://203.0.113.9/',
    'https://198.18.0.1/',
    'https://192.0.0.8/',
    // Odd IPv4 spellings, rewritten by WHATWG to dotted decimal before the check.
    'https://2130706433/',
    'https://0x7f000001/',
    'https://0x7f.1/',
    'https://017700000001/',
    'https://0177.0.0.1/',
    'https://127.1/',
    'https://127.0.1/',
    'https://127.0.0.%31/',
    'https://0xa9fea9fe/',
    'https://3232235777/',
    // IPv6 literals.
    'https://[::1]/',
    'https://[::]/',
    'https://[0:0:0:0:0:0:0:1]/',
    'https://[fe80::1]/',
    'https://[fc00::1]/',
    'https://[fd12:3456::1]/',
    'https://[ff02::1]/',
    'https://[fec0::1]/',
    'https://[2001:db8::1]/',
    'https://[3fff::1]/',
    'https://[2002:7f00:1::1]/',
    'https://[2001:0:4136:e378::1]/',
    'https://[100::1]/',
    'https://[::127.0.0.1]/',
    'https://[64:ff9b::127.0.0.1]/',
    'https://[64:ff9b::a9fe:a9fe]/',
    'https://[64:ff9b:1::1]/',
    // IPv4-mapped IPv6.
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:7f00:1]/',
    'https://[::ffff:a9fe:a9fe]/',
    'https://[::ffff:169.254.169.254]/',
    'https://[::ffff:10.0.0.1]/',
    'https://[::ffff:192.168.0.1]/',
    'https://[0:0:0:0:0:ffff:7f00:1]/',
    'https://[::ffff:0:7f00:1]/',
  ])('rejects %s as DESTINATION_NOT_ALLOWED', (raw) => {
    expectFerryError(() => validateDestinationUrl(raw, strict), 'DESTINATION_NOT_ALLOWED', 'url');
  });

  it.each([
    'https://example.com/',
    'https://api.example.com./hook',
    'https://8.8.8.8/',
    'https://1.1.1.1:8443/',
    'https://100.63.255.255/',
    'https://100.128.0.0/',
    'https://172.32.0.1/',
    'https://[2606:4700:4700::1111]/',
    'https://[::ffff:8.8.8.8]/',
    'https://[64:ff9b::8.8.8.8]/',
    'https://localhost.example.com/',
    'https://local.example.com/',
  ])('accepts the public destination %s', (raw) => {
    expect(() => validateDestinationUrl(raw, strict)).not.toThrow();
  });

  it('lets private destinations through when allowed, with the same normalisation', () => {
    expect(validateDestinationUrl('https://localhost:8443/x', lax)).toBe('https://localhost:8443/x');
    expect(validateDestinationUrl('https://0x7f.1/', lax)).toBe('https://127.0.0.1/');
    expect(validateDestinationUrl('https://[::ffff:127.0.0.1]/', lax)).toBe('https://[::ffff:7f00:1]/');
  });
});

describe('isPublicAddress', () => {
  it.each([
    '127.0.0.1', '10.1.2.3', '172.16.5.4', '192.168.0.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1',
    '255.255.255.255', '192.0.2.1', '198.51.100.1', '203.0.113.1', '240.0.0.1',
    '::1', '::', 'fe80::1', 'fe80::1%eth0', 'fc00::1', 'fd00::1', 'ff02::1', '2001:db8::1', '2002::1', '2001::1',
    '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:a9fe:a9fe', '::ffff:10.0.0.1', '[::1]', '[::ffff:127.0.0.1]',
    '::127.0.0.1', '64:ff9b::7f00:1', '2130706433', '0x7f.1',
    '', 'example.com', 'not an ip', '1.2.3.4.5', '[]',
  ])('classifies %s as not public', (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  it.each(['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '2a00:1450:4001::200e', '::ffff:8.8.8.8', '[2606:4700::1]', '64:ff9b::808:808'])(
    'classifies %s as public',
    (ip) => {
      expect(isPublicAddress(ip)).toBe(true);
    },
  );
});
