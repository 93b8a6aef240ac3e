import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, filterHashOf } from '../../src/domain/cursor.js';
import { newRequestId } from '../../src/domain/ids.js';
import { expectFerryError } from './expect-ferry-error.js';

const secret = new TextEncoder().encode('cursor-secret-for-tests-0123456789');
const pos = { createdAt: Date.UTC(2026, 2, 10), id: newRequestId(Date.UTC(2026, 2, 10)) };
const filters = filterHashOf({ projectId: 'prj_1', status: 'failed' });

function flip(s: string, at: number): string {
  const c = s[at] === 'A' ? 'B' : 'A';
  return s.slice(0, at) + c + s.slice(at + 1);
}

describe('cursor', () => {
  it('round-trips a position', () => {
    const c = encodeCursor(pos, filters, secret);
    expect(c).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(decodeCursor(c, filters, secret)).toEqual(pos);
  });

  it('rejects a cursor issued for other filters', () => {
    const c = encodeCursor(pos, filters, secret);
    const other = filterHashOf({ projectId: 'prj_1', status: 'succeeded' });
    const err = expectFerryError(() => decodeCursor(c, other, secret), 'INVALID_CURSOR', 'cursor');
    expect(err.message).toContain('different filters');
  });

  it('rejects a cursor signed with another secret', () => {
    const c = encodeCursor(pos, filters, new TextEncoder().encode('another secret'));
    expectFerryError(() => decodeCursor(c, filters, secret), 'INVALID_CURSOR', 'cursor');
  });

  it('rejects every single-character change', () => {
    const c = encodeCursor(pos, filters, secret);
    for (let i = 0; i < c.length; i++) {
      if (c[i] === '.') continue;
      expectFerryError(() => decodeCursor(flip(c, i), filters, secret), 'INVALID_CURSOR', 'cursor');
    }
  });

  it('rejects a payload re-encoded with a different position', () => {
    const c = encodeCursor(pos, filters, secret);
    const [payload, mac] = c.split('.') as [string, string];
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString()) as [number, string, string];
    const forged = Buffer.from(JSON.stringify([decoded[0] + 1, decoded[1], decoded[2]])).toString('base64url');
    expectFerryError(() => decodeCursor(`${forged}.${mac}`, filters, secret), 'INVALID_CURSOR', 'cursor');
  });

  it.each(['', '.', 'abc', 'a.b.c', 'abc.', '.abc', 'a b.c', 'x'.repeat(600), '!!!.???', 'bnVsbA.AAAAAAAAAAAAAAAAAAAAAA'])(
    'rejects the malformed cursor %j',
    (c) => {
      expectFerryError(() => decodeCursor(c, filters, secret), 'INVALID_CURSOR', 'cursor');
    },
  );

  it('rejects a well-signed payload of the wrong shape', () => {
    const c = encodeCursor({ createdAt: -5, id: '' }, filters, secret);
    expectFerryError(() => decodeCursor(c, filters, secret), 'INVALID_CURSOR', 'cursor');
  });
});

describe('filterHashOf', () => {
  it('ignores cursor, limit, undefined values and key order', () => {
    const a = filterHashOf({ status: 'failed', method: 'GET', limit: 10, cursor: 'x', source: undefined });
    const b = filterHashOf({ method: 'GET', status: 'failed', limit: 50 });
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });

  it('changes with any filter value', () => {
    const base = filterHashOf({ status: 'failed' });
    expect(filterHashOf({ status: 'queued' })).not.toBe(base);
    expect(filterHashOf({ status: 'failed', from: 0 })).not.toBe(base);
    expect(filterHashOf({})).not.toBe(base);
    const schedule = filterHashOf({ status: 'failed', scheduleId: 'sch_01JQ3ZV5D2Y8K1N4M6P7R9S0TW' });
    expect(schedule).not.toBe(base);
    expect(filterHashOf({ status: 'failed', scheduleId: 'sch_01JQ3ZV5D2Y8K1N4M6P7R9S0TX' })).not.toBe(schedule);
  });
});
