import { describe, expect, it } from 'vitest';
import { parseDelay, parseRfc3339, parseTimeout, resolveDeliveryTime } from '../../src/domain/validation/durations.js';
import { expectFerryError } from './expect-ferry-error.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 2, 10, 12, 0, 0);

describe('parseDelay', () => {
  it.each([
    ['1s', 1000],
    ['59s', 59_000],
    ['90s', 90_000],
    ['1m', 60_000],
    ['2h', 7_200_000],
    ['1d', DAY],
    ['30d', 30 * DAY],
    ['720h', 30 * DAY],
    ['43200m', 30 * DAY],
    ['2592000s', 30 * DAY],
  ])('reads %s as %i ms', (s, ms) => {
    expect(parseDelay(s)).toBe(ms);
  });

  it.each([
    '', '0s', '0m', '0d', '31d', '721h', '43201m', '2592001s', 's', '10', '10ms', '1w', '1S', '1D', '01s', '001m',
    '+1s', '-1s', '1.5h', '1e3s', ' 1s', '1s ', '1 s', '1h30m', '0x10s', '１s', '99999999999999999999d',
  ])('rejects %j', (s) => {
    expectFerryError(() => parseDelay(s), 'INVALID_DELAY', 'delay');
  });

  it('uses the given field', () => {
    expectFerryError(() => parseDelay('0s', 'requests[1].delay'), 'INVALID_DELAY', 'requests[1].delay');
  });
});

describe('parseTimeout', () => {
  it.each([
    ['1s', 1],
    ['50s', 50],
    ['300s', 300],
    ['1m', 60],
    ['5m', 300],
  ])('reads %s as %i seconds', (s, seconds) => {
    expect(parseTimeout(s)).toBe(seconds);
  });

  it.each(['', '0s', '0m', '301s', '6m', '1h', '1d', '05s', '1.5s', '-1s', '+1s', '30', '30S', ' 30s', '30s ', '1m30s'])(
    'rejects %j',
    (s) => {
      expectFerryError(() => parseTimeout(s), 'INVALID_TIMEOUT', 'timeout');
    },
  );
});

describe('parseRfc3339', () => {
  const parse = (s: string) => parseRfc3339(s, 'INVALID_DELIVER_AT', 'deliver_at');

  it.each([
    ['2026-03-10T12:00:00Z', Date.UTC(2026, 2, 10, 12)],
    ['2026-03-10t12:00:00z', Date.UTC(2026, 2, 10, 12)],
    ['2026-03-10T12:00:00.5Z', Date.UTC(2026, 2, 10, 12, 0, 0, 500)],
    ['2026-03-10T12:00:00.123456789Z', Date.UTC(2026, 2, 10, 12, 0, 0, 123)],
    ['2026-03-10T12:00:00.999Z', Date.UTC(2026, 2, 10, 12, 0, 0, 999)],
    ['2026-03-10T14:30:00+02:30', Date.UTC(2026, 2, 10, 12)],
    ['2026-03-10T07:00:00-05:00', Date.UTC(2026, 2, 10, 12)],
    ['2026-03-10T12:00:00+00:00', Date.UTC(2026, 2, 10, 12)],
    ['2026-03-10T12:00:00-00:00', Date.UTC(2026, 2, 10, 12)],
    ['2026-03-11T11:59:00+23:59', Date.UTC(2026, 2, 10, 12)],
    ['2024-02-29T00:00:00Z', Date.UTC(2024, 1, 29)],
    ['2000-02-29T00:00:00Z', Date.UTC(2000, 1, 29)],
    ['2026-12-31T23:59:59Z', Date.UTC(2026, 11, 31, 23, 59, 59)],
    ['2016-12-31T23:59:60Z', Date.UTC(2017, 0, 1)],
    ['1970-01-01T00:00:00Z', 0],
    ['0001-01-01T00:00:00Z', -62_135_596_800_000],
    ['0050-06-01T00:00:00Z', new Date('0050-06-01T00:00:00Z').getTime()],
  ])('reads %s', (s, ms) => {
    expect(parse(s)).toBe(ms);
  });

  it.each([
    '',
    '2026-03-10',
    '2026-03-10T12:00Z',
    '2026-03-10T12:00:00',
    '2026-03-10 12:00:00Z',
    '2026-03-10T12:00:00.Z',
    '2026-03-10T12:00:00.1234567890Z',
    '2026-03-10T12:00:00+0200',
    '2026-03-10T12:00:00+02',
    '2026-03-10T12:00:00UTC',
    '2026-3-10T12:00:00Z',
    '26-03-10T12:00:00Z',
    '+2026-03-10T12:00:00Z',
    '2026-02-30T00:00:00Z',
    '2026-02-29T00:00:00Z',
    '1900-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-00-10T00:00:00Z',
    '2026-13-10T00:00:00Z',
    '2026-03-00T00:00:00Z',
    '2026-03-32T00:00:00Z',
    '2026-03-10T24:00:00Z',
    '2026-03-10T12:60:00Z',
    '2026-03-10T12:00:61Z',
    '2026-03-10T12:00:00+24:00',
    '2026-03-10T12:00:00+02:60',
    ' 2026-03-10T12:00:00Z',
    '2026-03-10T12:00:00Z ',
    '２０２６-03-10T12:00:00Z',
    '1773144000000',
  ])('rejects %j', (s) => {
    expectFerryError(() => parse(s), 'INVALID_DELIVER_AT', 'deliver_at');
  });

  it('reports the code and field it is given', () => {
    expectFerryError(() => parseRfc3339('yesterday', 'INVALID_FILTER', 'from'), 'INVALID_FILTER', 'from');
  });
});

describe('resolveDeliveryTime', () => {
  it('is immediate when neither is given', () => {
    expect(resolveDeliveryTime({ now: NOW })).toBeNull();
  });

  it('adds a delay to now', () => {
    expect(resolveDeliveryTime({ delay: '1s', now: NOW })).toBe(NOW + 1000);
    expect(resolveDeliveryTime({ delay: '30d', now: NOW })).toBe(NOW + 30 * DAY);
  });

  it('rejects a bad delay with its own code', () => {
    expectFerryError(() => resolveDeliveryTime({ delay: '31d', now: NOW }), 'INVALID_DELAY', 'delay');
  });

  it('rejects delay together with deliver_at', () => {
    expectFerryError(
      () => resolveDeliveryTime({ delay: '1m', deliverAt: '2026-03-10T13:00:00Z', now: NOW }),
      'INVALID_DELIVER_AT',
      'deliver_at',
    );
  });

  it('uses a future deliver_at up to exactly 30 days ahead', () => {
    expect(resolveDeliveryTime({ deliverAt: '2026-03-10T12:00:01Z', now: NOW })).toBe(NOW + 1000);
    expect(resolveDeliveryTime({ deliverAt: '2026-04-09T12:00:00Z', now: NOW })).toBe(NOW + 30 * DAY);
    expectFerryError(
      () => resolveDeliveryTime({ deliverAt: '2026-04-09T12:00:00.001Z', now: NOW }),
      'INVALID_DELIVER_AT',
      'deliver_at',
    );
  });

  it('treats a present or past deliver_at as immediate', () => {
    expect(resolveDeliveryTime({ deliverAt: '2026-03-10T12:00:00Z', now: NOW })).toBeNull();
    expect(resolveDeliveryTime({ deliverAt: '2020-01-01T00:00:00Z', now: NOW })).toBeNull();
  });

  it('rejects a malformed deliver_at', () => {
    expectFerryError(() => resolveDeliveryTime({ deliverAt: '2026-02-30T00:00:00Z', now: NOW }), 'INVALID_DELIVER_AT', 'deliver_at');
  });
});
