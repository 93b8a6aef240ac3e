import { describe, expect, it } from 'vitest';
import { relativePastTime, relativeTime, utcText, zonedText } from '../../src/console/ui/time-text.js';

const NOW = Date.UTC(2026, 10, 25, 9, 0, 0);
const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The relative text of an instant `delta` ms away from the fixed now, ahead when positive. */
const away = (delta: number) => relativeTime(NOW + delta, NOW);

describe('relativeTime', () => {
  it('says now within half a second either side', () => {
    expect(away(0)).toBe('now');
    expect(away(499)).toBe('now');
    expect(away(-499)).toBe('now');
  });

  it('counts seconds under a minute, rounding halves away from now on both sides', () => {
    expect(away(500)).toBe('in 1 sec.');
    expect(away(-500)).toBe('1 sec. ago');
    expect(away(45 * SECOND)).toBe('in 45 sec.');
    expect(away(-45 * SECOND)).toBe('45 sec. ago');
    expect(away(59_499)).toBe('in 59 sec.');
    expect(away(-59_499)).toBe('59 sec. ago');
  });

  it('moves to minutes where seconds would round to sixty', () => {
    expect(away(59_500)).toBe('in 1 min.');
    expect(away(-59_500)).toBe('1 min. ago');
    expect(away(MINUTE)).toBe('in 1 min.');
    expect(away(-MINUTE)).toBe('1 min. ago');
    expect(away(90 * SECOND)).toBe('in 2 min.');
    expect(away(-90 * SECOND)).toBe('2 min. ago');
    expect(away(HOUR - 30 * SECOND - 1)).toBe('in 59 min.');
    expect(away(-(HOUR - 30 * SECOND - 1))).toBe('59 min. ago');
  });

  it('moves to hours where minutes would round to sixty', () => {
    expect(away(HOUR - 30 * SECOND)).toBe('in 1 hr.');
    expect(away(-(HOUR - 30 * SECOND))).toBe('1 hr. ago');
    expect(away(HOUR)).toBe('in 1 hr.');
    expect(away(-2 * HOUR)).toBe('2 hr. ago');
    expect(away(DAY - 30 * MINUTE - 1)).toBe('in 23 hr.');
    expect(away(-(DAY - 30 * MINUTE - 1))).toBe('23 hr. ago');
  });

  it('moves to days where hours would round to twenty-four, naming the nearest ones', () => {
    expect(away(DAY - 30 * MINUTE)).toBe('tomorrow');
    expect(away(-(DAY - 30 * MINUTE))).toBe('yesterday');
    expect(away(DAY)).toBe('tomorrow');
    expect(away(-DAY)).toBe('yesterday');
    expect(away(3 * DAY)).toBe('in 3 days');
    expect(away(-3 * DAY)).toBe('3 days ago');
    expect(away(400 * DAY)).toBe('in 400 days');
  });

  it('depends only on the distance between the two instants', () => {
    expect(relativeTime(5 * MINUTE, 0)).toBe('in 5 min.');
    expect(relativeTime(0, 5 * MINUTE)).toBe('5 min. ago');
  });
});

describe('relativePastTime', () => {
  /** The words for something that happened `delta` ms from the fixed now (ahead of it when positive). */
  const happened = (delta: number) => relativePastTime(NOW + delta, NOW);

  it('words a past event as relativeTime does', () => {
    expect(happened(-45 * SECOND)).toBe('45 sec. ago');
    expect(happened(-2 * HOUR)).toBe('2 hr. ago');
    expect(happened(-DAY)).toBe('yesterday');
  });

  it('never words an event as future: one ahead of this clock (clocks that disagree) happened just now', () => {
    expect(happened(8 * SECOND)).toBe('just now');
    expect(happened(10 * MINUTE)).toBe('just now');
    expect(happened(3 * DAY)).toBe('just now');
    expect(happened(0)).toBe('just now');
    expect(happened(-499)).toBe('just now');
    expect(happened(-500)).toBe('1 sec. ago');
  });
});

describe('utcText', () => {
  it('gives the UTC time to the second, without milliseconds', () => {
    expect(utcText(Date.UTC(2026, 10, 25, 9, 0, 0, 123))).toBe('2026-11-25 09:00:00Z');
    expect(utcText(Date.UTC(2026, 10, 25, 23, 59, 59, 999))).toBe('2026-11-25 23:59:59Z');
    expect(utcText(0)).toBe('1970-01-01 00:00:00Z');
  });

  it('gives the same text for the same instant whatever it was parsed from', () => {
    expect(utcText(Date.parse('2026-11-25T10:30:00+01:00'))).toBe('2026-11-25 09:30:00Z');
  });
});

describe('zonedText', () => {
  it('shows Europe/Berlin jumping from 02:00 to 03:00 on the last Sunday of March', () => {
    expect(zonedText(Date.UTC(2026, 2, 29, 0, 59, 59), 'Europe/Berlin')).toBe('2026-03-29 01:59:59 GMT+1');
    expect(zonedText(Date.UTC(2026, 2, 29, 1, 0, 0), 'Europe/Berlin')).toBe('2026-03-29 03:00:00 GMT+2');
  });

  it('shows Europe/Berlin going back from 03:00 to 02:00 on the last Sunday of October', () => {
    expect(zonedText(Date.UTC(2026, 9, 25, 0, 59, 59), 'Europe/Berlin')).toBe('2026-10-25 02:59:59 GMT+2');
    expect(zonedText(Date.UTC(2026, 9, 25, 1, 0, 0), 'Europe/Berlin')).toBe('2026-10-25 02:00:00 GMT+1');
  });

  it('shows America/New_York skipping 02:00–03:00 on the second Sunday of March', () => {
    expect(zonedText(Date.UTC(2026, 2, 8, 6, 59, 59), 'America/New_York')).toBe('2026-03-08 01:59:59 GMT-5');
    expect(zonedText(Date.UTC(2026, 2, 8, 7, 0, 0), 'America/New_York')).toBe('2026-03-08 03:00:00 GMT-4');
  });

  it('tells the two passes of 01:30 apart by their offsets on the first Sunday of November in New York', () => {
    const first = zonedText(Date.UTC(2026, 10, 1, 5, 30), 'America/New_York');
    const second = zonedText(Date.UTC(2026, 10, 1, 6, 30), 'America/New_York');
    expect(first).toBe('2026-11-01 01:30:00 GMT-4');
    expect(second).toBe('2026-11-01 01:30:00 GMT-5');
  });

  it('uses the date of the zone, and 00 (not 24) for midnight', () => {
    expect(zonedText(Date.UTC(2026, 0, 1, 3, 0, 0), 'America/New_York')).toBe('2025-12-31 22:00:00 GMT-5');
    expect(zonedText(Date.UTC(2025, 11, 31, 23, 0, 0), 'Europe/Berlin')).toBe('2026-01-01 00:00:00 GMT+1');
    expect(zonedText(Date.UTC(2026, 0, 1, 0, 0, 0), 'UTC')).toMatch(/^2026-01-01 00:00:00 GMT(\+0)?$/);
  });
});
