import { createHash } from 'node:crypto';
import { parseCron } from './cron.js';
import { nextRunAfter } from './next-run.js';
import type { SchedulePolicy } from './policy.js';
import type { Timing } from './timing.js';
import { offsetSegmentAt } from './zone-offsets.js';

/*
 * Jitter spreads the occurrences of schedules that share an instant: each fires at its instant plus a delay drawn
 * from the schedule's ID and the instant, so every process, before and after a restart, computes the same delay
 * for the same occurrence and an occurrence is still identified by its instant.
 */

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** How far ahead `shortestGapMs` looks. */
export const GAP_HORIZON_MS = 366 * DAY_MS;
// Consecutive occurrences whose gap a DST change alters are both within this distance of the change.
const CHANGE_REACH_MS = 2 * DAY_MS;

/**
 * The delay after `instant` at which an occurrence fires: a uniform whole number of milliseconds from 0 to
 * `jitterSeconds * 1000`, and, when a next occurrence exists, less than the gap to it, so occurrences never pass
 * one another.
 *
 * @param scheduleId the schedule's ID; with `instant`, all the draw depends on.
 * @param instant the occurrence, ms since epoch.
 * @param jitterSeconds the schedule's `jitter_seconds`; 0 for none.
 * @param nextInstant the occurrence after it, or null when there is none.
 */
export function jitterDelayMs(scheduleId: string, instant: number, jitterSeconds: number, nextInstant: number | null): number {
  if (!(jitterSeconds > 0)) return 0;
  let span = jitterSeconds * 1000 + 1;
  if (nextInstant !== null) span = Math.min(span, nextInstant - instant);
  if (span <= 1) return 0;
  // 48 bits of a hash against a span of at most 3.6 million: the remainder's bias is below one part in 10^7.
  const digest = createHash('sha256').update(`${scheduleId}@${instant}`).digest();
  return digest.readUIntBE(0, 6) % span;
}

/**
 * The shortest gap between two consecutive occurrences of `timing` from `from` (or from its start, when later)
 * through the next 366 days, or null when fewer than two fall there. It bounds a schedule's jitter.
 *
 * A cron timing's occurrences are walked only until a gap as short as its expression allows between two local
 * times (one minute at least) shows up; after that, only the occurrences around each offset change can be closer,
 * and only those are walked. So an every-minute job answers at its second occurrence.
 */
export function shortestGapMs(timing: Timing, from: number): number | null {
  // A timing that starts later is measured from its start: that is when its gaps begin to matter.
  const firstPossible = timing.type === 'interval' ? timing.firstRunAt : timing.startsAt;
  const start = firstPossible !== null && firstPossible > from ? firstPossible : from;
  const end = start + GAP_HORIZON_MS;
  if (timing.type === 'interval') {
    const first = nextRunAfter(timing, start - 1);
    const second = first === null ? null : nextRunAfter(timing, first);
    return second === null || second > end ? null : timing.everySeconds * 1000;
  }
  const floor = wallGapFloorMs(timing.expression);
  const walked = walkGaps(timing, start, end, floor);
  if (walked.complete || walked.shortest! <= MINUTE_MS) return walked.shortest;
  let shortest = walked.shortest!;
  for (const change of offsetChanges(timing.timezone, start, end)) {
    const around = walkGaps(timing, Math.max(start, change - CHANGE_REACH_MS), Math.min(end, change + CHANGE_REACH_MS), 0);
    if (around.shortest !== null) shortest = Math.min(shortest, around.shortest);
    if (shortest <= MINUTE_MS) break;
  }
  return shortest;
}

/**
 * The shortest gap between occurrences in [from, to], walking until one of at most `stopAt` (or a minute, the
 * least there can be) is seen: `complete` when the whole span was walked.
 */
function walkGaps(timing: Timing, from: number, to: number, stopAt: number): { shortest: number | null; complete: boolean } {
  let shortest: number | null = null;
  let previous = nextRunAfter(timing, from - 1);
  if (previous === null || previous > to) return { shortest, complete: true };
  for (;;) {
    const next = nextRunAfter(timing, previous);
    if (next === null || next > to) return { shortest, complete: true };
    const gap = next - previous;
    if (shortest === null || gap < shortest) shortest = gap;
    if (shortest <= Math.max(stopAt, MINUTE_MS)) return { shortest, complete: false };
    previous = next;
  }
}

/**
 * The least distance between two local times the expression matches, reading the times of a day as a cycle (the
 * last one of a day is followed by the first of the next). Away from offset changes no two occurrences are closer.
 */
function wallGapFloorMs(expression: string): number {
  const spec = parseCron(expression, undefined, 'stored');
  const times: number[] = [];
  for (const h of spec.hours) for (const m of spec.minutes) times.push(h * 60 + m);
  let floor = 1440;
  for (let i = 1; i < times.length; i++) floor = Math.min(floor, times[i]! - times[i - 1]!);
  if (times.length > 1) floor = Math.min(floor, 1440 - times.at(-1)! + times[0]!);
  return floor * MINUTE_MS;
}

/** The instants in [from, to] where the zone's UTC offset changes. */
function offsetChanges(zone: string, from: number, to: number): number[] {
  const changes: number[] = [];
  let seg = offsetSegmentAt(zone, from);
  while (seg.end <= to) {
    const next = offsetSegmentAt(zone, seg.end);
    if (next.offset !== seg.offset) changes.push(seg.end);
    seg = next;
  }
  return changes;
}

/**
 * When a schedule's occurrence at `instant` fires: the instant plus its jitter, short of the occurrence after it.
 * Its request is due then; `next_run_at` and the preview of a saved schedule show this time, while the occurrence
 * keeps its instant (runs, backfills and the exactly-once key are by instant).
 */
export function firesAt(s: { readonly id: string; readonly timing: Timing; readonly policy: SchedulePolicy }, instant: number): number {
  if (s.policy.jitterSeconds === 0) return instant;
  return instant + jitterDelayMs(s.id, instant, s.policy.jitterSeconds, nextRunAfter(s.timing, instant));
}
