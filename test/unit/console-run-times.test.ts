import { describe, expect, it } from 'vitest';
import { offsetIn, previewRows, wallClock } from '../../src/console/schedules/run-times.js';

const BERLIN = 'Europe/Berlin';
const NEW_YORK = 'America/New_York';

describe('offsetIn', () => {
  it('names the offset in force at the instant, on both sides of a change', () => {
    // Berlin moves to summer time at 01:00 UTC on 2027-03-28 and back at 01:00 UTC on 2027-10-31.
    expect(offsetIn(Date.UTC(2027, 2, 28, 0, 59, 59), BERLIN)).toBe('GMT+1');
    expect(offsetIn(Date.UTC(2027, 2, 28, 1, 0, 0), BERLIN)).toBe('GMT+2');
    expect(offsetIn(Date.UTC(2027, 9, 31, 0, 59, 59), BERLIN)).toBe('GMT+2');
    expect(offsetIn(Date.UTC(2027, 9, 31, 1, 0, 0), BERLIN)).toBe('GMT+1');
    // New York at 07:00 UTC on 2027-03-14 and at 06:00 UTC on 2027-11-07.
    expect(offsetIn(Date.UTC(2027, 2, 14, 6, 59, 59), NEW_YORK)).toBe('GMT-5');
    expect(offsetIn(Date.UTC(2027, 2, 14, 7, 0, 0), NEW_YORK)).toBe('GMT-4');
    expect(offsetIn(Date.UTC(2027, 10, 7, 5, 59, 59), NEW_YORK)).toBe('GMT-4');
    expect(offsetIn(Date.UTC(2027, 10, 7, 6, 0, 0), NEW_YORK)).toBe('GMT-5');
  });

  it('names offsets that are not whole hours, and zero', () => {
    expect(offsetIn(Date.UTC(2027, 0, 1), 'Asia/Kolkata')).toBe('GMT+5:30');
    expect(offsetIn(Date.UTC(2027, 0, 1), 'UTC')).toMatch(/^GMT(\+0)?$/);
  });
});

describe('wallClock', () => {
  it('gives the weekday, date and time on the clock of the zone', () => {
    expect(wallClock(Date.UTC(2027, 2, 29, 7, 0), BERLIN)).toBe('Mon 2027-03-29 09:00');
    expect(wallClock(Date.UTC(2027, 2, 22, 8, 0), BERLIN)).toBe('Mon 2027-03-22 09:00');
    expect(wallClock(Date.UTC(2027, 0, 1, 3, 30), NEW_YORK)).toBe('Thu 2026-12-31 22:30');
  });

  it('writes midnight as 00:00', () => {
    expect(wallClock(Date.UTC(2026, 11, 31, 23, 0), BERLIN)).toBe('Fri 2027-01-01 00:00');
  });
});

describe('previewRows', () => {
  // 09:00 every Monday in Berlin, around the spring change of 2027-03-28.
  const mondays = ['2027-03-15T08:00:00Z', '2027-03-22T08:00:00Z', '2027-03-29T07:00:00Z', '2027-04-05T07:00:00Z'];

  it('marks exactly the run after a change, with the offsets on either side', () => {
    const rows = previewRows(mondays, BERLIN, Date.UTC(2027, 2, 10));
    expect(rows.map((r) => r.offset)).toEqual(['GMT+1', 'GMT+1', 'GMT+2', 'GMT+2']);
    expect(rows.map((r) => r.change)).toEqual([null, null, { from: 'GMT+1', to: 'GMT+2' }, null]);
  });

  it('keeps each run as given, with its instant', () => {
    const rows = previewRows(mondays, BERLIN, Date.UTC(2027, 2, 10));
    expect(rows.map((r) => r.iso)).toEqual(mondays);
    expect(rows.map((r) => r.at)).toEqual(mondays.map((iso) => Date.parse(iso)));
    expect(previewRows(['2027-03-29T09:00:00+02:00'], BERLIN, Date.UTC(2027, 2, 29))[0]?.at).toBe(Date.UTC(2027, 2, 29, 7));
  });

  it('marks the first run when the clocks change between from and it', () => {
    const rows = previewRows(mondays.slice(2), BERLIN, Date.UTC(2027, 2, 27, 12));
    expect(rows.map((r) => r.change)).toEqual([{ from: 'GMT+1', to: 'GMT+2' }, null]);
  });

  it('does not mark the first run when from is already on its side of the change', () => {
    const rows = previewRows(mondays.slice(2), BERLIN, Date.UTC(2027, 2, 28, 1));
    expect(rows.map((r) => r.change)).toEqual([null, null]);
  });

  it('marks both changes of a year, each where it first shows', () => {
    // The 1st of every month at 09:00 in New York, from January 2027.
    const firsts = Array.from({ length: 12 }, (_, m) => {
      const summer = m >= 3 && m <= 10;
      return new Date(Date.UTC(2027, m, 1, summer ? 13 : 14)).toISOString();
    });
    const rows = previewRows(firsts, NEW_YORK, Date.UTC(2026, 11, 20));
    const marked = rows.flatMap((r, i) => (r.change === null ? [] : [[i, r.change.from, r.change.to]]));
    expect(marked).toEqual([
      [3, 'GMT-5', 'GMT-4'],
      [11, 'GMT-4', 'GMT-5'],
    ]);
    expect(rows.map((r) => wallClock(r.at, NEW_YORK).slice(-5))).toEqual(Array(12).fill('09:00'));
  });

  it('marks nothing in a zone without changes, and nothing when there are no runs', () => {
    expect(previewRows(mondays, 'UTC', Date.UTC(2027, 2, 10)).every((r) => r.change === null)).toBe(true);
    expect(previewRows(mondays, 'Asia/Kolkata', Date.UTC(2027, 2, 10)).every((r) => r.change === null)).toBe(true);
    expect(previewRows([], BERLIN, Date.UTC(2027, 2, 10))).toEqual([]);
  });
});
