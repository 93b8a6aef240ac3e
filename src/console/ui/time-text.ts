/** Times as the console shows them: relative ("3 min ago", "in 2 h") with the absolute time beside it. */
const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1_000],
];

const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto', style: 'short' });

export function relativeTime(at: number, now: number): string {
  const delta = at - now;
  for (const [i, [unit, ms]] of UNITS.entries()) {
    // A unit is taken from where the next smaller one would round up to a whole of it, so never "in 60 sec.";
    // halves round away from zero on both sides of now.
    const smaller = UNITS[i + 1]?.[1] ?? 0;
    if (Math.abs(delta) >= ms - smaller / 2 || unit === 'second') return relative.format(Math.sign(delta) * Math.round(Math.abs(delta) / ms), unit);
  }
  return '';
}

/**
 * The relative time of something that has happened (created, started, ended, last run): never worded as future.
 * Such a time ahead of this browser's clock only means the two clocks disagree, so it reads "just now"; the
 * absolute time shown beside it stays exact.
 */
export function relativePastTime(at: number, now: number): string {
  return at - now > -500 ? 'just now' : relativeTime(at, now);
}

/** An ISO time in UTC, to the second: what the API gives, without its milliseconds noise. */
export function utcText(at: number): string {
  return new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z').replace('T', ' ');
}

/** A time in a named zone with its offset, e.g. `2026-03-29 03:00 GMT+2`. */
export function zonedText(at: number, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'shortOffset',
  }).formatToParts(new Date(at));
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')}:${get('second')} ${get('timeZoneName')}`;
}
