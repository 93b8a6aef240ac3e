import { describe, expect, it } from 'vitest';
import { readUtcField, utcFieldText } from '../../src/console/ui/utc-field.js';

/** The RFC 3339 value a field's text is sent as, or the message it is refused with. */
function sent(text: string): string {
  const reading = readUtcField(text);
  return reading.ok ? reading.rfc3339 : `refused: ${reading.message}`;
}

describe('readUtcField', () => {
  it('reads 24-hour text as UTC, whatever the zone of the machine', () => {
    expect(sent('2026-11-25 09:30')).toBe('2026-11-25T09:30:00Z');
    expect(sent('2026-11-25 21:30:15')).toBe('2026-11-25T21:30:15Z');
    expect(sent('2026-11-25T00:00')).toBe('2026-11-25T00:00:00Z');
    expect(sent('2026-11-25 9:30')).toBe('2026-11-25T09:30:00Z');
    expect(sent('  2026-11-25   23:59:59  ')).toBe('2026-11-25T23:59:59Z');
  });

  it('takes a date alone as its midnight in UTC', () => {
    expect(sent('2026-11-25')).toBe('2026-11-25T00:00:00Z');
  });

  it('takes a time as the console shows it, or as the API gives it, pasted unchanged', () => {
    expect(sent('2026-11-25 09:30:00Z')).toBe('2026-11-25T09:30:00Z');
    expect(sent('2026-11-25T09:30:00.123Z')).toBe('2026-11-25T09:30:00.123Z');
    expect(sent('2026-11-25 09:30 UTC')).toBe('2026-11-25T09:30:00Z');
    expect(sent('2026-11-25t09:30z')).toBe('2026-11-25T09:30:00Z');
  });

  it('keeps milliseconds when given, so a bound copied from the API is exact', () => {
    expect(sent('2026-11-25 09:30:00.5')).toBe('2026-11-25T09:30:00.500Z');
    expect(sent('2026-11-25 09:30:00.000')).toBe('2026-11-25T09:30:00Z');
  });

  it('honours an explicit offset by converting it to UTC', () => {
    expect(sent('2026-11-25T10:30:00+01:00')).toBe('2026-11-25T09:30:00Z');
    expect(sent('2026-11-25 04:30-0500')).toBe('2026-11-25T09:30:00Z');
    expect(sent('2026-01-01 00:30+01:00')).toBe('2025-12-31T23:30:00Z');
  });

  it('reads empty text as no value', () => {
    expect(sent('')).toBe('');
    expect(sent('   ')).toBe('');
  });

  it('refuses a 12-hour or local-looking time with the shape to use', () => {
    for (const text of ['11/25/2026, 09:30 PM', '25/11/2026 21:30', '2026-11-25 9:30 PM', 'yesterday', '2026-11-25 09', '1763976600']) {
      expect(sent(text), text).toBe('refused: Write a UTC time as YYYY-MM-DD HH:MM (24-hour, seconds optional), e.g. 2026-11-25 09:30.');
    }
  });

  it('refuses a day that is not in the calendar and a time that is not of a day', () => {
    expect(sent('2026-02-30 09:00')).toBe('refused: There is no day 2026-02-30.');
    expect(sent('2026-13-01')).toBe('refused: There is no day 2026-13-01.');
    expect(sent('2028-02-29')).toBe('2028-02-29T00:00:00Z');
    expect(sent('2026-11-25 24:00')).toBe('refused: 24:00:00 is not a time of day: use 00:00 to 23:59:59.');
    expect(sent('2026-11-25 09:60')).toBe('refused: 09:60:00 is not a time of day: use 00:00 to 23:59:59.');
    expect(sent('2026-11-25 09:30+25:00')).toBe('refused: +25:00 is not a UTC offset: leave it out (the field is UTC) or write it as +HH:MM.');
  });
});

describe('utcFieldText', () => {
  it('shows an RFC 3339 value as the field takes it: UTC, 24-hour, without the Z the label already says', () => {
    expect(utcFieldText('2026-11-25T21:30:00Z')).toBe('2026-11-25 21:30:00');
    expect(utcFieldText('2026-11-25T10:30:15+01:00')).toBe('2026-11-25 09:30:15');
    expect(utcFieldText('2026-11-25T09:00:00.987Z')).toBe('2026-11-25 09:00:00.987');
  });

  it('is empty for nothing, or for text that is not a time', () => {
    expect(utcFieldText(null)).toBe('');
    expect(utcFieldText('')).toBe('');
    expect(utcFieldText('yesterday')).toBe('');
  });

  it('round-trips through the field unchanged', () => {
    for (const at of ['2026-11-25T09:00:00Z', '2027-03-28T01:59:59Z', '2026-01-01T00:00:00Z', '2026-11-25T09:00:00.250Z']) {
      expect(sent(utcFieldText(at))).toBe(at);
    }
  });
});
