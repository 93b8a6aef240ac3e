/**
 * UTC offsets of IANA time zones, read from `Intl` (never from the host's `TZ`) and kept as tables of the
 * instants where a zone's offset changes, one table per zone and UTC year. A table costs about 150 `Intl` calls
 * (well under a millisecond) once; after that an offset lookup is a map read and a short scan.
 */

const SECOND_MS = 1000;
const DAY_MS = 86_400_000;
// In tzdata from 1990 to 2060 every offset lasts about a week or more (the shortest: seven days, America/Boa_Vista
// in October 2000), so samples three days apart see every change, and no two changes fall between two samples.
const SAMPLE_STEP_MS = 3 * DAY_MS;
// Bounds memory in a long-running process; rebuilding is cheap.
const MAX_CACHED_YEARS = 64;
const MAX_CACHED_ZONE_NAMES = 2048;
// An IANA name starts with a letter and has letters, digits, `_`, `+`, `-` and `/`. Newer ICU versions also accept
// offsets such as `+05:00`, which are not zone names.
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+/-]{0,63}$/;

/**
 * A stretch of time with one UTC offset. It starts at an offset change (or, when none happened in the previous UTC
 * year, at the start of the UTC year) and ends at the next change or the end of the UTC year. Offsets are
 * milliseconds, local minus UTC.
 */
export interface OffsetSegment {
  /** First instant of the segment (ms since epoch). */
  readonly start: number;
  /** First instant after the segment. */
  readonly end: number;
  readonly offset: number;
  /** The offset just before `start`; it differs from `offset` when `start` is a DST (or other offset) change. */
  readonly previousOffset: number;
}

interface ZoneYear {
  readonly end: number;
  /** Where each segment starts: the year's first instant, then each offset change. */
  readonly starts: readonly number[];
  readonly offsets: readonly number[];
  readonly offsetBefore: number;
}

interface Zone {
  readonly format: Intl.DateTimeFormat;
  readonly years: Map<number, ZoneYear>;
}

const zonesByName = new Map<string, Zone>();
const zonesById = new Map<string, Zone>();

/**
 * Whether `name` is an IANA time zone name this runtime knows, such as `Europe/Berlin`, `UTC` or `Etc/UTC`
 * (links such as `US/Eastern` included; case is not significant, as in `Intl`).
 */
export function isTimeZone(name: unknown): boolean {
  if (typeof name !== 'string' || !ZONE_NAME.test(name)) return false;
  try {
    zoneOf(name);
    return true;
  } catch {
    return false;
  }
}

/**
 * The segment of constant offset that holds `instant` in `zone`.
 *
 * @param zone a valid IANA zone name (see `isTimeZone`).
 * @param instant ms since epoch; years 1900 to 9999 are what callers use.
 * @throws RangeError when `zone` is not a zone `Intl` knows.
 */
export function offsetSegmentAt(zone: string, instant: number): OffsetSegment {
  const z = zoneOf(zone);
  const year = new Date(instant).getUTCFullYear();
  const table = yearTable(z, year);
  let k = table.starts.length - 1;
  while (k > 0 && table.starts[k]! > instant) k--;
  const end = table.starts[k + 1] ?? table.end;
  const offset = table.offsets[k]!;
  if (k === 0 && table.offsetBefore === offset) {
    // The segment begins only because the UTC year does. When the offset itself began with a change late in the
    // previous year, report that change, so a fall-back just before New Year (UTC) still shows its overlap.
    const previous = yearTable(z, year - 1);
    const j = previous.starts.length - 1;
    if (j > 0 && previous.offsets[j] === offset) {
      return { start: previous.starts[j]!, end, offset, previousOffset: previous.offsets[j - 1]! };
    }
  }
  return { start: table.starts[k]!, end, offset, previousOffset: k > 0 ? table.offsets[k - 1]! : table.offsetBefore };
}

function yearTable(z: Zone, year: number): ZoneYear {
  let table = z.years.get(year);
  if (table === undefined) {
    if (z.years.size >= MAX_CACHED_YEARS) z.years.clear();
    table = buildYear(z.format, year);
    z.years.set(year, table);
  }
  return table;
}

function zoneOf(name: string): Zone {
  const known = zonesByName.get(name);
  if (known !== undefined) return known;
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: name,
    calendar: 'gregory',
    numberingSystem: 'latn',
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  // Links and spellings of one zone share its tables.
  const id = format.resolvedOptions().timeZone;
  let zone = zonesById.get(id);
  if (zone === undefined) {
    zone = { format, years: new Map() };
    zonesById.set(id, zone);
  }
  if (zonesByName.size >= MAX_CACHED_ZONE_NAMES) zonesByName.clear();
  zonesByName.set(name, zone);
  return zone;
}

// How en-US shows the fields above, e.g. `3/14/2027, 03:00:00`. Reading the string is four times faster than
// formatToParts, which stays as the fallback should an ICU version ever write it differently.
const EN_US_DATE_TIME = /^(\d+)\/(\d+)\/(\d+), (\d+):(\d+):(\d+)$/;

/** The offset at a whole second, from the local date and time `Intl` shows for it. */
function offsetAt(format: Intl.DateTimeFormat, second: number): number {
  const m = EN_US_DATE_TIME.exec(format.format(second));
  if (m !== null) return Date.UTC(Number(m[3]), Number(m[1]) - 1, Number(m[2]), Number(m[4]), Number(m[5]), Number(m[6])) - second;
  const fields: Partial<Record<Intl.DateTimeFormatPartTypes, number>> = {};
  for (const part of format.formatToParts(second)) fields[part.type] = Number(part.value);
  const { year = 0, month = 1, day = 1, hour = 0, minute = 0, second: sec = 0 } = fields;
  return Date.UTC(year, month - 1, day, hour, minute, sec) - second;
}

function buildYear(format: Intl.DateTimeFormat, year: number): ZoneYear {
  const start = Date.UTC(year, 0, 1);
  const end = Date.UTC(year + 1, 0, 1);
  const starts = [start];
  const offsets = [offsetAt(format, start)];
  let before = start;
  let beforeOffset = offsets[0]!;
  while (before < end) {
    const after = Math.min(before + SAMPLE_STEP_MS, end);
    const afterOffset = offsetAt(format, after);
    if (afterOffset !== beforeOffset) {
      const change = firstSecondWithNewOffset(format, before, after, beforeOffset);
      // A change exactly at the next year's first instant belongs to that year's table.
      if (change < end) {
        starts.push(change);
        offsets.push(offsetAt(format, change));
      }
    }
    before = after;
    beforeOffset = afterOffset;
  }
  return { end, starts, offsets, offsetBefore: offsetAt(format, start - SECOND_MS) };
}

/** Bisects whole seconds: offset changes happen on whole seconds. */
function firstSecondWithNewOffset(format: Intl.DateTimeFormat, lo: number, hi: number, loOffset: number): number {
  while (hi - lo > SECOND_MS) {
    const mid = lo + Math.floor((hi - lo) / 2 / SECOND_MS) * SECOND_MS;
    if (offsetAt(format, mid) === loOffset) lo = mid;
    else hi = mid;
  }
  return hi;
}
