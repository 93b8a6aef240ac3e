import { describe, expect, it } from 'vitest';
import { parseCron, type CronSpec } from '../../src/domain/schedule/cron.js';
import { runTimes } from '../../src/domain/schedule/next-run.js';
import type { CronTiming, DstPolicy } from '../../src/domain/schedule/timing.js';

/*
 * The DST policy checked against a second, plain reading of its rules: every minute around a change, with offsets
 * from `Intl` directly (not from zone-offsets.ts), a local time that matches runs
 * - for a wildcard-hour job, at every instant that shows it;
 * - for a fixed-hour job, when it is shown once, or on the pass its `overlap` keeps when shown twice; and under
 *   `gap: shift` a job with a local time inside a spring-forward gap runs once at the change.
 */

const MINUTE = 60_000;
const DAY = 86_400_000;

const formats = new Map<string, Intl.DateTimeFormat>();
const offsets = new Map<string, number>();

/** Local minus UTC at `t` in `zone`, read from Intl. */
function offsetAt(zone: string, t: number): number {
  const key = `${zone}@${t}`;
  const known = offsets.get(key);
  if (known !== undefined) return known;
  let format = formats.get(zone);
  if (format === undefined) {
    const fields = { year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' } as const;
    format = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', ...fields });
    formats.set(zone, format);
  }
  const p = Object.fromEntries(format.formatToParts(t).map((x) => [x.type, Number(x.value)]));
  const offset = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!) - t;
  offsets.set(key, offset);
  return offset;
}

function matches(spec: CronSpec, wall: number): boolean {
  const d = new Date(wall);
  if (!spec.minutes.includes(d.getUTCMinutes()) || !spec.hours.includes(d.getUTCHours()) || !spec.months.includes(d.getUTCMonth() + 1)) return false;
  const dom = spec.daysOfMonth.includes(d.getUTCDate());
  const dow = spec.daysOfWeek.includes(d.getUTCDay());
  return spec.dayRule === 'either' ? dom || dow : dom && dow;
}

/** Every run in (from, to] by the plain reading above. */
function plainRuns(expression: string, zone: string, dst: DstPolicy, from: number, to: number): number[] {
  const spec = parseCron(expression, undefined, 'stored');
  const runs = new Set<number>();
  for (let t = from - (from % MINUTE) + MINUTE; t <= to; t += MINUTE) {
    const offset = offsetAt(zone, t);
    const before = offsetAt(zone, t - 1000);
    if (!spec.wildcardHour && dst.gap === 'shift' && before < offset) {
      for (let w = t + before; w < t + offset; w += MINUTE) {
        if (matches(spec, w)) {
          runs.add(t);
          break;
        }
      }
    }
    const wall = t + offset;
    if (!matches(spec, wall)) continue;
    if (spec.wildcardHour) {
      runs.add(t);
      continue;
    }
    // The same local time at another instant, under the offset in force three hours before or after.
    let pass: 'once' | 'first' | 'second' = 'once';
    for (const other of [offsetAt(zone, t - 3 * 3_600_000), offsetAt(zone, t + 3 * 3_600_000)]) {
      const twin = wall - other;
      if (other !== offset && offsetAt(zone, twin) === other) pass = twin > t ? 'first' : 'second';
    }
    if (pass === 'once' || (pass === 'first' && dst.overlap !== 'second') || (pass === 'second' && dst.overlap !== 'first')) runs.add(t);
  }
  return [...runs].sort((a, b) => a - b);
}

// Days with an offset change: spring and autumn in both hemispheres, a half-hour change, a 45-minute zone, and
// changes at local midnight.
const CHANGES: Array<[string, number]> = [
  ['America/New_York', Date.UTC(2027, 2, 14)],
  ['America/New_York', Date.UTC(2027, 10, 7)],
  ['Europe/Berlin', Date.UTC(2027, 2, 28)],
  ['Europe/Berlin', Date.UTC(2027, 9, 31)],
  ['Australia/Lord_Howe', Date.UTC(2027, 3, 4)],
  ['Australia/Lord_Howe', Date.UTC(2027, 9, 3)],
  ['Pacific/Chatham', Date.UTC(2027, 3, 4)],
  ['America/Santiago', Date.UTC(2027, 3, 4)],
  ['America/Santiago', Date.UTC(2027, 8, 5)],
];
const EXPRESSIONS = ['30 2 * * *', '0 1-3 * * *', '*/20 1,2 * * *', '45 1 * * *', '0 0 * * *', '0,30 * * * *'];
const POLICIES: DstPolicy[] = (['shift', 'skip'] as const).flatMap((gap) => (['first', 'second', 'both'] as const).map((overlap) => ({ gap, overlap })));

describe('the DST policy against a plain minute-by-minute reading of its rules', () => {
  it.each(CHANGES)('%s around %d', (zone, day) => {
    const from = day - 2 * DAY;
    const to = day + 2 * DAY;
    for (const expression of EXPRESSIONS) {
      for (const dst of POLICIES) {
        const timing: CronTiming = { type: 'cron', expression, timezone: zone, dst, startsAt: null, endsAt: null };
        const runs = runTimes(timing, from, 1000).filter((t) => t <= to);
        expect(runs.map((t) => new Date(t).toISOString()), `${expression} ${JSON.stringify(dst)}`).toEqual(
          plainRuns(expression, zone, dst, from, to).map((t) => new Date(t).toISOString()),
        );
      }
    }
  });
});
