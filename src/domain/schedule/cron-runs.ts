import { parseCron } from './cron.js';
import { compileCron, nextMatchingWall, previousMatchingWall, type CompiledCron } from './wall-clock-search.js';
import type { DstPolicy } from './timing.js';
import { offsetSegmentAt, type OffsetSegment } from './zone-offsets.js';

/**
 * Cron occurrences as instants. Matching wall times come from `wall-clock-search.ts`; this file walks the zone's
 * segments of constant offset and applies the DST rules:
 *
 * - a wildcard-hour job (hour field starts with `*`) runs at every instant whose local time matches, so nothing
 *   runs for local times a gap skips, and local times an overlap repeats run twice;
 * - a fixed-hour job follows its `DstPolicy`: its local times inside a gap run at the first instant after the gap
 *   (all of them together making one run) under `gap: shift`, not at all under `skip`; its local times an overlap
 *   repeats run on the first pass, the second, or both, as `overlap` says. The default (shift, first) is the rule
 *   every schedule followed before the policy could be chosen.
 *
 * In segment terms, a segment offers the wall times from its start to its end (each run at wall - offset), except
 * that for a fixed-hour job a segment right after a fall-back leaves out the wall times the previous one offered
 * (overlap `first`), or the segment right before a fall-back leaves out the wall times the next one will offer
 * (overlap `second`); and under `gap: shift` a segment right after a spring-forward begins with one run for the
 * gap's wall times.
 */

const DAY_MS = 86_400_000;
const YEAR_MS = 366 * DAY_MS;
/** Occurrences are computed from 1900 to 9999. */
const FIRST_INSTANT = Date.UTC(1900, 0, 1);
const END_INSTANT = Date.UTC(10_000, 0, 1);
// A valid expression fires within 28 years (February 29th on a given weekday); this only bounds broken input.
const FORWARD_SEARCH_MS = 401 * YEAR_MS;
// Long enough for every leap-day job (leap years can be eight years apart), short enough to stay cheap.
const BACKWARD_SEARCH_MS = 8 * YEAR_MS;
const MAX_COMPILED = 10_000;

const compiled = new Map<string, CompiledCron>();

function compiledCron(expression: string): CompiledCron {
  let c = compiled.get(expression);
  if (c === undefined) {
    c = compileCron(parseCron(expression, undefined, 'stored'));
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(expression, c);
  }
  return c;
}

/** How one job treats DST changes: a wildcard-hour job keeps both passes of an overlap and shifts no gap. */
interface Rules {
  readonly zone: string;
  readonly shiftGap: boolean;
  readonly firstPass: boolean;
  readonly secondPass: boolean;
}

function rulesOf(c: CompiledCron, zone: string, dst: DstPolicy): Rules {
  if (c.spec.wildcardHour) return { zone, shiftGap: false, firstPass: true, secondPass: true };
  return { zone, shiftGap: dst.gap === 'shift', firstPass: dst.overlap !== 'second', secondPass: dst.overlap !== 'first' };
}

/** The earliest wall time a segment offers (see the file comment). */
function windowStart(seg: OffsetSegment, r: Rules): number {
  return seg.start + (r.secondPass ? seg.offset : Math.max(seg.offset, seg.previousOffset));
}

/** The first wall time after those a segment offers: short of its end when the next segment repeats them. */
function windowEnd(seg: OffsetSegment, r: Rules): number {
  if (r.firstPass || seg.end >= END_INSTANT) return seg.end + seg.offset;
  return seg.end + Math.min(seg.offset, offsetSegmentAt(r.zone, seg.end).offset);
}

/** Whether a job has a run at `seg.start` for wall times a spring-forward skipped. */
function gapRun(c: CompiledCron, seg: OffsetSegment, r: Rules): boolean {
  if (!r.shiftGap || seg.previousOffset >= seg.offset) return false;
  const gapEnd = seg.start + seg.offset;
  return nextMatchingWall(c, seg.start + seg.previousOffset, gapEnd - 1) !== null;
}

/**
 * The first occurrence strictly after `after`, or null when there is none before the year 10000.
 *
 * @param expression a valid five-field cron expression.
 * @param zone a valid IANA zone name.
 * @param after ms since epoch.
 * @param dst what a fixed-hour job does across DST changes.
 */
export function nextCronRun(expression: string, zone: string, after: number, dst: DstPolicy): number | null {
  const c = compiledCron(expression);
  const r = rulesOf(c, zone, dst);
  const from = Math.max(after, FIRST_INSTANT - 1);
  if (from >= END_INSTANT) return null;
  let seg = offsetSegmentAt(zone, from);
  const limit = from + seg.offset + FORWARD_SEARCH_MS;
  // The last search's answer stays valid for any later start up to that answer.
  let searchedFrom = Infinity;
  let found: number | null = null;
  for (;;) {
    if (seg.start > from && gapRun(c, seg, r)) return seg.start;
    // A wall time w runs at w - offset, which must be later than `from`.
    const wallFrom = Math.max(windowStart(seg, r), from + seg.offset + 1);
    if (!(wallFrom >= searchedFrom && (found === null || wallFrom <= found))) {
      found = nextMatchingWall(c, wallFrom, limit);
      searchedFrom = wallFrom;
    }
    if (found !== null && found < windowEnd(seg, r)) return found - seg.offset;
    if (seg.end >= END_INSTANT) return null;
    const next = offsetSegmentAt(zone, seg.end);
    // Later segments offer only wall times from the next one's start on; if those were all searched, none match.
    if (found === null && next.start + next.offset >= wallFrom) return null;
    seg = next;
  }
}

/**
 * The latest occurrence at or before `at`, or null when there is none in the eight years before it.
 *
 * @param expression a valid five-field cron expression.
 * @param zone a valid IANA zone name.
 * @param at ms since epoch.
 * @param dst what a fixed-hour job does across DST changes.
 */
export function latestCronRun(expression: string, zone: string, at: number, dst: DstPolicy): number | null {
  const c = compiledCron(expression);
  const r = rulesOf(c, zone, dst);
  if (at < FIRST_INSTANT) return null;
  const to = Math.min(at, END_INSTANT - 1);
  let seg = offsetSegmentAt(zone, to);
  const limit = to + seg.offset - BACKWARD_SEARCH_MS;
  let searchedTo = -Infinity;
  let found: number | null = null;
  for (;;) {
    const wallTo = Math.min(windowEnd(seg, r) - 1, to + seg.offset);
    if (!(wallTo <= searchedTo && (found === null || wallTo >= found))) {
      found = previousMatchingWall(c, wallTo, limit);
      searchedTo = wallTo;
    }
    if (found !== null && found >= windowStart(seg, r)) return found - seg.offset;
    if (gapRun(c, seg, r)) return seg.start;
    if (seg.start <= FIRST_INSTANT) return null;
    // Earlier segments offer only wall times before this one's start; if those were all searched, none match.
    if (found === null && seg.start + seg.previousOffset - 1 <= wallTo) return null;
    seg = offsetSegmentAt(zone, seg.start - 1);
  }
}

/** How an occurrence relates to a DST change: shifted out of a gap, or on one pass of a repeated local time. */
export type RunDst = 'none' | 'gap_shifted' | 'overlap_first' | 'overlap_second';

/**
 * What a DST change did to the occurrence at `instant` (one that `nextCronRun` gave): `gap_shifted` when it runs for
 * local times a spring-forward skipped, `overlap_first` / `overlap_second` when its local time is one a fall-back
 * repeats (for any job, wildcard-hour ones included), else `none`.
 */
export function cronRunDst(expression: string, zone: string, instant: number, dst: DstPolicy): RunDst {
  const c = compiledCron(expression);
  const r = rulesOf(c, zone, dst);
  const seg = offsetSegmentAt(zone, instant);
  if (instant === seg.start && gapRun(c, seg, r)) return 'gap_shifted';
  if (seg.previousOffset > seg.offset && instant < seg.start + (seg.previousOffset - seg.offset)) return 'overlap_second';
  if (seg.end < END_INSTANT) {
    const next = offsetSegmentAt(zone, seg.end);
    if (next.offset < seg.offset && instant >= seg.end - (seg.offset - next.offset)) return 'overlap_first';
  }
  return 'none';
}
