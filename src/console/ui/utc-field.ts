/**
 * Times typed into the console's forms: text in UTC, 24-hour, in the shape the console shows every absolute time
 * (`2026-11-25 09:30:00Z`), so a time copied from a list can be pasted into a filter as it is. A browser's own
 * date-time picker is not used: it shows the viewer's locale (often 12-hour) and cannot say it means UTC.
 */

/** What the fields show when empty, and the shape their hints name. */
export const UTC_FIELD_PLACEHOLDER = 'YYYY-MM-DD HH:MM';

export type UtcFieldReading = { ok: true; rfc3339: string } | { ok: false; message: string };

// Date, then optionally a time with optional seconds and milliseconds, then optionally Z, "UTC" or an offset.
const SHAPE = /^(\d{4})-(\d{2})-(\d{2})(?:(?:T|\s+)(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?\s*(Z|UTC|[+-]\d{2}:?\d{2})?)?$/i;

const SHAPE_MESSAGE = `Write a UTC time as ${UTC_FIELD_PLACEHOLDER} (24-hour, seconds optional), e.g. 2026-11-25 09:30.`;

/**
 * The text of a UTC time field as the RFC 3339 instant the API is sent (`2026-11-25 09:30` →
 * `2026-11-25T09:30:00Z`), or why it is not one. Empty text reads as an empty value. A date alone means its
 * midnight (UTC); an explicit offset (`+02:00`, as the API's own times may carry) is honoured and converted.
 */
export function readUtcField(text: string): UtcFieldReading {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: true, rfc3339: '' };
  const m = SHAPE.exec(trimmed);
  if (m === null) return { ok: false, message: SHAPE_MESSAGE };
  const [, year, month, day, hourAsTyped = '00', minute = '00', second = '00', fraction = '', zone = 'Z'] = m;
  const hour = hourAsTyped.padStart(2, '0');
  const date = `${year}-${month}-${day}`;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) {
    return { ok: false, message: `${hour}:${minute}:${second} is not a time of day: use 00:00 to 23:59:59.` };
  }
  const typed = Date.parse(`${date}T${hour}:${minute}:${second}.${fraction.padEnd(3, '0')}Z`);
  // The parser rolls 30 February over into March: a date that does not come back as typed is not in the calendar.
  if (Number.isNaN(typed) || new Date(typed).toISOString().slice(0, 10) !== date) return { ok: false, message: `There is no day ${date}.` };
  const offset = offsetMinutes(zone);
  if (offset === null) return { ok: false, message: `${zone} is not a UTC offset: leave it out (the field is UTC) or write it as +HH:MM.` };
  return { ok: true, rfc3339: rfc3339Of(typed - offset * 60_000) };
}

/** An RFC 3339 value as the field shows it (`2026-11-25T10:30:00+01:00` → `2026-11-25 09:30:00`); '' when not a time. */
export function utcFieldText(rfc3339: string | null): string {
  if (rfc3339 === null || rfc3339 === '') return '';
  const at = Date.parse(rfc3339);
  if (Number.isNaN(at)) return '';
  return rfc3339Of(at).replace('T', ' ').replace(/Z$/, '');
}

/** To the second, with milliseconds only when there are some, so a whole-second time reads as typed. */
function rfc3339Of(at: number): string {
  const iso = new Date(at).toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, 19)}Z` : iso;
}

function offsetMinutes(zone: string): number | null {
  if (/^(Z|UTC)$/i.test(zone)) return 0;
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(zone);
  if (m === null) return null;
  const hours = Number(m[2]);
  const minutes = Number(m[3]);
  if (hours > 23 || minutes > 59) return null;
  return (m[1] === '-' ? -1 : 1) * (hours * 60 + minutes);
}
