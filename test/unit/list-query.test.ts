import { describe, expect, it } from 'vitest';
import { newRequestId, newScheduleId } from '../../src/domain/ids.js';
import { validateListQuery } from '../../src/domain/validation/list-query.js';
import { expectFerryError } from './expect-ferry-error.js';

const NOW = Date.UTC(2026, 2, 10);
const q = (input: Parameters<typeof validateListQuery>[0]) => validateListQuery(input, NOW);

describe('validateListQuery', () => {
  it('defaults to 50 items and no filters', () => {
    expect(q({})).toEqual({ limit: 50 });
  });

  it('reads every filter', () => {
    expect(
      q({
        status: 'failed',
        method: 'PATCH',
        source: 'replay',
        search: 'example.com',
        from: '2026-03-01T00:00:00Z',
        to: '2026-03-02T00:00:00+01:00',
        cursor: 'abc.def',
        limit: 10,
      }),
    ).toEqual({
      status: 'failed',
      method: 'PATCH',
      source: 'replay',
      urlContains: 'example.com',
      from: Date.UTC(2026, 2, 1),
      to: Date.UTC(2026, 2, 1, 23),
      cursor: 'abc.def',
      limit: 10,
    });
  });

  it.each(['scheduled', 'queued', 'delivering', 'succeeded', 'failed', 'cancelled'])('accepts status %s', (status) => {
    expect(q({ status }).status).toBe(status);
  });

  it.each([
    ['status', 'Failed'],
    ['status', 'cancellation_requested'],
    ['status', ''],
    ['method', 'get'],
    ['method', 'HEAD'],
    ['source', 'API'],
    ['source', 'schedule'],
  ])('rejects %s=%j', (param, value) => {
    expectFerryError(() => q({ [param]: value }), 'INVALID_FILTER', param);
  });

  it('reads a search that is a request ID as an exact ID', () => {
    const id = newRequestId(NOW);
    expect(q({ search: id })).toEqual({ id, limit: 50 });
  });

  it('reads anything else as a URL fragment', () => {
    const id = newRequestId(NOW);
    expect(q({ search: id.toLowerCase() })).toEqual({ urlContains: id.toLowerCase(), limit: 50 });
    expect(q({ search: 'req_' })).toEqual({ urlContains: 'req_', limit: 50 });
    expect(q({ search: `${id}x` })).toEqual({ urlContains: `${id}x`, limit: 50 });
  });

  it('reads a schedule ID as the schedule filter', () => {
    const scheduleId = newScheduleId(NOW);
    expect(q({ scheduleId, status: 'failed' })).toEqual({ scheduleId, status: 'failed', limit: 50 });
  });

  it.each([
    ['empty', ''],
    ['a request ID', newRequestId(NOW)],
    ['in lowercase', newScheduleId(NOW).toLowerCase()],
    ['one character short', newScheduleId(NOW).slice(0, -1)],
    ['with a trailing character', `${newScheduleId(NOW)}0`],
    ['the bare prefix', 'sch_'],
  ])('rejects a schedule_id that is %s, naming the field', (_, scheduleId) => {
    expectFerryError(() => q({ scheduleId }), 'INVALID_FILTER', 'schedule_id');
  });

  it('ignores an empty search', () => {
    expect(q({ search: '' })).toEqual({ limit: 50 });
  });

  it('accepts a 2048-byte search and rejects 2049', () => {
    expect(q({ search: 'a'.repeat(2048) }).urlContains).toHaveLength(2048);
    expectFerryError(() => q({ search: 'a'.repeat(2049) }), 'INVALID_FILTER', 'search');
    expectFerryError(() => q({ search: '\u00e9'.repeat(1025) }), 'INVALID_FILTER', 'search');
  });

  it('checks from and to', () => {
    expectFerryError(() => q({ from: '2026-03-01' }), 'INVALID_FILTER', 'from');
    expectFerryError(() => q({ to: 'now' }), 'INVALID_FILTER', 'to');
    expectFerryError(() => q({ from: '2026-03-01T00:00:00Z', to: '2026-03-01T00:00:00Z' }), 'INVALID_FILTER', 'to');
    expectFerryError(() => q({ from: '2026-03-02T00:00:00Z', to: '2026-03-01T00:00:00Z' }), 'INVALID_FILTER', 'to');
    expect(q({ from: '2026-03-01T00:00:00Z', to: '2026-03-01T00:00:00.001Z' }).to).toBe(Date.UTC(2026, 2, 1) + 1);
    expect(q({ to: '2026-03-01T00:00:00Z' })).toEqual({ to: Date.UTC(2026, 2, 1), limit: 50 });
  });

  it('accepts limits 1 through 100', () => {
    expect(q({ limit: 1 }).limit).toBe(1);
    expect(q({ limit: 100 }).limit).toBe(100);
    for (const limit of [0, 101, -1, 1.5, Number.NaN]) {
      expectFerryError(() => q({ limit }), 'INVALID_LIMIT', 'limit');
    }
  });
});
