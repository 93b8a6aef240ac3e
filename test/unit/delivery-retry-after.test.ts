import { describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_DELAY_MS, parseHttpDate, parseRetryAfter, toPrintable } from '../../src/domain/delivery/retry-after.js';

// 1994-11-06T08:49:37Z, the example instant of RFC 9110.
const RFC_INSTANT = Date.UTC(1994, 10, 6, 8, 49, 37);
const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);

describe('Retry-After absent', () => {
  it.each([null, undefined])('%s reads as absent with no delay', (raw) => {
    expect(parseRetryAfter(raw, NOW)).toEqual({ raw: '', truncated: false, escaped: false, status: 'absent', delayMs: 0 });
  });
});

describe('Retry-After delta-seconds', () => {
  it('reads whole seconds as milliseconds', () => {
    expect(parseRetryAfter('120', NOW)).toEqual({ raw: '120', truncated: false, escaped: false, status: 'valid', delayMs: 120_000 });
    expect(parseRetryAfter('0', NOW)).toMatchObject({ status: 'valid', delayMs: 0 });
    expect(parseRetryAfter('007', NOW)).toMatchObject({ status: 'valid', delayMs: 7000 });
  });

  it('tolerates surrounding spaces and tabs and keeps them in the raw value', () => {
    expect(parseRetryAfter('  30 ', NOW)).toMatchObject({ raw: '  30 ', status: 'valid', delayMs: 30_000, escaped: false });
    expect(parseRetryAfter('\t30\t', NOW)).toMatchObject({ raw: '\\x0930\\x09', status: 'valid', delayMs: 30_000, escaped: true });
  });

  it('saturates huge values instead of overflowing', () => {
    expect(parseRetryAfter('2147483648', NOW).delayMs).toBe(MAX_RETRY_AFTER_DELAY_MS);
    expect(parseRetryAfter('2147483647', NOW).delayMs).toBe(2_147_483_647_000);
    const huge = parseRetryAfter('9'.repeat(400), NOW);
    expect(huge).toMatchObject({ status: 'valid', delayMs: MAX_RETRY_AFTER_DELAY_MS, truncated: true });
    expect(Number.isSafeInteger(huge.delayMs)).toBe(true);
    expect(parseRetryAfter(`${'0'.repeat(50)}5`, NOW)).toMatchObject({ status: 'valid', delayMs: 5000 });
  });

  it.each(['-1', '1.5', '+5', '1e3', '0x10', '', '   ', '5 s', '5,6', '\u0665', '\n5', '5\r'])('rejects %j', (raw) => {
    expect(parseRetryAfter(raw, NOW)).toMatchObject({ status: 'invalid', delayMs: 0 });
  });
});

describe('Retry-After HTTP-date', () => {
  const before = RFC_INSTANT - 60_000;

  it('reads IMF-fixdate', () => {
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT', before)).toMatchObject({ status: 'valid', delayMs: 60_000 });
  });

  it('reads the obsolete RFC 850 form', () => {
    expect(parseRetryAfter('Sunday, 06-Nov-94 08:49:37 GMT', before)).toMatchObject({ status: 'valid', delayMs: 60_000 });
  });

  it('reads the asctime form with a space-padded or two-digit day', () => {
    expect(parseRetryAfter('Sun Nov  6 08:49:37 1994', before)).toMatchObject({ status: 'valid', delayMs: 60_000 });
    expect(parseHttpDate('Sun Nov 06 08:49:37 1994', before)).toBe(RFC_INSTANT);
    expect(parseHttpDate('Wed Nov 16 08:49:37 1994', before)).toBe(Date.UTC(1994, 10, 16, 8, 49, 37));
  });

  it('gives a date in the past a zero delay but keeps it valid', () => {
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT', NOW)).toMatchObject({ status: 'valid', delayMs: 0 });
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT', RFC_INSTANT)).toMatchObject({ status: 'valid', delayMs: 0 });
  });

  it('reads a future date relative to now, with surrounding whitespace', () => {
    expect(parseRetryAfter(' Thu, 15 Jan 2026 12:05:00 GMT ', NOW)).toMatchObject({ status: 'valid', delayMs: 300_000 });
  });

  it('interprets two-digit years within 50 years of now (RFC 9110 §5.6.7)', () => {
    // From 2026: 76 is exactly 50 years ahead and stays 2076; 77 would be 51 years ahead, so it is 1977.
    expect(parseHttpDate('Monday, 01-Jan-76 00:00:00 GMT', NOW)).toBe(Date.UTC(2076, 0, 1));
    expect(parseHttpDate('Saturday, 01-Jan-77 00:00:00 GMT', NOW)).toBe(Date.UTC(1977, 0, 1));
    expect(parseHttpDate('Thursday, 15-Jan-26 12:10:00 GMT', NOW)).toBe(NOW + 600_000);
    expect(parseHttpDate('Saturday, 01-Jan-00 00:00:00 GMT', NOW)).toBe(Date.UTC(2000, 0, 1));
    // 94 read from 2026 is 1994, long past, not 2094.
    expect(parseRetryAfter('Sunday, 06-Nov-94 08:49:37 GMT', NOW)).toMatchObject({ status: 'valid', delayMs: 0 });
    // Near a century's end the window crosses into the next century.
    expect(parseHttpDate('Friday, 01-Jan-05 00:00:00 GMT', Date.UTC(2098, 5, 1))).toBe(Date.UTC(2105, 0, 1));
  });

  it('accepts leap days and a leap second, and years before 1970 and after 9000', () => {
    expect(parseHttpDate('Thu, 29 Feb 2024 00:00:00 GMT', NOW)).toBe(Date.UTC(2024, 1, 29));
    expect(parseHttpDate('Tue, 29 Feb 2000 00:00:00 GMT', NOW)).toBe(Date.UTC(2000, 1, 29));
    expect(parseHttpDate('Sat, 31 Dec 2016 23:59:60 GMT', NOW)).toBe(Date.UTC(2017, 0, 1));
    expect(parseHttpDate('Thu, 01 Jan 1970 00:00:00 GMT', NOW)).toBe(0);
    expect(parseHttpDate('Mon, 01 Jan 0001 00:00:00 GMT', NOW)).toBe(Date.UTC(2001, 0, 1) - 5 * 146_097 * 86_400_000);
    expect(parseRetryAfter('Fri, 31 Dec 9999 23:59:59 GMT', NOW)).toMatchObject({ status: 'valid', delayMs: MAX_RETRY_AFTER_DELAY_MS });
  });

  it('does not check the redundant day name', () => {
    expect(parseHttpDate('Mon, 06 Nov 1994 08:49:37 GMT', NOW)).toBe(RFC_INSTANT);
  });

  it.each([
    'sun, 06 Nov 1994 08:49:37 GMT',
    'Sun, 06 nov 1994 08:49:37 GMT',
    'Sun, 06 Nov 1994 08:49:37 gmt',
    'Sun, 06 Nov 1994 08:49:37 UTC',
    'Sun, 06 Nov 1994 08:49:37 +0000',
    'Sun, 6 Nov 1994 08:49:37 GMT',
    'Sun,  06 Nov 1994 08:49:37 GMT',
    'Sun 06 Nov 1994 08:49:37 GMT',
    'Sun, 06 Nov 94 08:49:37 GMT',
    'Sun, 06 Nov 1994 8:49:37 GMT',
    'Sun, 06 Nov 1994 08:49 GMT',
    'Sun, 31 Nov 1994 08:49:37 GMT',
    'Sun, 29 Feb 1900 08:49:37 GMT',
    'Sun, 00 Nov 1994 08:49:37 GMT',
    'Sun, 06 Nov 1994 24:00:00 GMT',
    'Sun, 06 Nov 1994 08:60:00 GMT',
    'Sun, 06 Nov 1994 08:49:61 GMT',
    'Sun, 06-Nov-94 08:49:37 GMT',
    'Sun, 06 Nov 1994 08:49:37 GMT trailing',
    'Sunday, 06-Nov-1994 08:49:37 GMT',
    'Sunday, 06 Nov 94 08:49:37 GMT',
    'Sund, 06-Nov-94 08:49:37 GMT',
    'Sun Nov 6 08:49:37 1994',
    'Sun Nov   6 08:49:37 1994',
    'Sun Nov  6 08:49:37 94',
    'Sun Nov  6 08:49:37 1994 GMT',
    '1994-11-06T08:49:37Z',
    'Sun, 06 Nov 1994',
    'tomorrow',
    'Sun, 06 Nov 1994 08:49:37 GMT, 120',
  ])('rejects %j', (raw) => {
    expect(parseRetryAfter(raw, NOW)).toMatchObject({ status: 'invalid', delayMs: 0 });
  });
});

describe('Retry-After raw value as stored', () => {
  it('keeps a value of exactly 128 characters whole', () => {
    const raw = 'x'.repeat(128);
    expect(parseRetryAfter(raw, NOW)).toMatchObject({ raw, truncated: false, escaped: false, status: 'invalid' });
  });

  it('cuts a value of 129 characters to 128', () => {
    const r = parseRetryAfter('x'.repeat(129), NOW);
    expect(r.raw).toBe('x'.repeat(128));
    expect(r.truncated).toBe(true);
  });

  it('still interprets the whole value when the stored copy is cut', () => {
    const r = parseRetryAfter(`${' '.repeat(130)}60`, NOW);
    expect(r).toMatchObject({ status: 'valid', delayMs: 60_000, truncated: true, raw: ' '.repeat(128) });
  });

  it('escapes control characters and non-ASCII', () => {
    expect(parseRetryAfter('a\u0000b\u001fc\u007fd', NOW)).toMatchObject({ raw: 'a\\x00b\\x1Fc\\x7Fd', escaped: true, truncated: false });
    expect(parseRetryAfter('caf\u00e9', NOW)).toMatchObject({ raw: 'caf\\xE9', escaped: true });
    expect(parseRetryAfter('\u20ac5', NOW)).toMatchObject({ raw: '\\u20AC5', escaped: true, status: 'invalid' });
    expect(parseRetryAfter('\u{1F600}', NOW)).toMatchObject({ raw: '\\uD83D\\uDE00', escaped: true });
    expect(parseRetryAfter('\r\n', NOW)).toMatchObject({ raw: '\\x0D\\x0A', escaped: true });
  });

  it('keeps printable ASCII, including the backslash, as it is', () => {
    const printable = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)).join('');
    expect(parseRetryAfter(printable, NOW)).toMatchObject({ raw: printable, escaped: false, truncated: false });
  });

  it('truncates after escaping, never inside an escape, and never beyond 128', () => {
    const escapes = parseRetryAfter('\u0001'.repeat(40), NOW);
    expect(escapes.raw).toBe('\\x01'.repeat(32));
    expect(escapes).toMatchObject({ truncated: true, escaped: true });

    const edge = parseRetryAfter(`${'x'.repeat(126)}\u0001`, NOW);
    expect(edge.raw).toBe('x'.repeat(126));
    expect(edge).toMatchObject({ truncated: true, escaped: false });

    const fits = parseRetryAfter(`${'x'.repeat(124)}\u0001`, NOW);
    expect(fits.raw).toBe(`${'x'.repeat(124)}\\x01`);
    expect(fits).toMatchObject({ truncated: false, escaped: true });
    expect(fits.raw).toHaveLength(128);

    const wide = parseRetryAfter('\u4e00'.repeat(100), NOW);
    expect(wide.raw.length).toBeLessThanOrEqual(128);
    expect(wide.raw).toBe('\\u4E00'.repeat(21));
  });

  it('only ever stores printable ASCII', () => {
    let all = '';
    for (let u = 0; u < 0x180; u++) all += String.fromCharCode(u);
    const out = toPrintable(all, 10_000);
    expect(out.text).toMatch(/^[\x20-\x7e]*$/);
    expect(out).toMatchObject({ truncated: false, escaped: true });
  });
});
