import type { StoredRequest } from '../request.js';
import { withoutRun } from './runs.js';
import type { SchedulePatch, StoredSchedule } from './schedule.js';

/*
 * An occurrence is enqueued ahead of its instant (the scheduler's lead), so that the deliveries of many schedules
 * sharing an instant start on time. But before its instant an occurrence is not a run. This file is that rule, for
 * the request the occurrence creates and for the schedule that fired it:
 *
 * - its request is created as of its instant (`occurrenceCreatedAt`), and a request does not exist before it was
 *   created (`existsAt`): it is not listed, not readable, not cancellable until then;
 * - an occurrence withdrawn before its instant (a pause, an update or a delete came first) has its request
 *   cancelled as of that moment, before the request was created, so it never exists (`isWithdrawn`);
 * - the schedule records the occurrence when it fires it, keeping the run before it (`firedPatch`), and reads as if
 *   it had not fired until its instant (`scheduleAsOf`); a change before the instant takes it back (`takeBackPatch`).
 */

/** When the request of the occurrence at `at`, fired at `now`, is created: its instant, or now when that is later. */
export function occurrenceCreatedAt(at: number, now: number): number {
  return Math.max(at, now);
}

/** A request exists from its creation on, unless it was withdrawn before then. */
export function existsAt(r: Pick<StoredRequest, 'createdAt' | 'cancelledAt'>, now: number): boolean {
  return r.createdAt <= now && !isWithdrawn(r);
}

/**
 * Cancelled before it was created: an occurrence withdrawn ahead of its instant. A cancel through the API never
 * does this, since a request can be cancelled there only once it exists.
 */
export function isWithdrawn(r: Pick<StoredRequest, 'createdAt' | 'cancelledAt'>): boolean {
  return r.cancelledAt !== null && r.cancelledAt < r.createdAt;
}

/** The instant of the occurrence `s` fired ahead of it, when `now` is still before that instant; else null. */
export function firedAhead(s: Pick<StoredSchedule, 'lastRunAt'>, now: number): number | null {
  return s.lastRunAt !== null && s.lastRunAt > now ? s.lastRunAt : null;
}

/**
 * The schedule as it reads at `now`: an occurrence fired ahead of its instant is still its next run (while it is
 * active), and the run before it is its last.
 */
export function scheduleAsOf(stored: StoredSchedule, now: number): StoredSchedule {
  // A timer set to look at a buffered occurrence again is not a run: the timing's next occurrence is.
  const s = stored.runs.upcoming !== null && stored.status === 'active' ? { ...stored, nextRunAt: stored.runs.upcoming } : stored;
  const ahead = firedAhead(s, now);
  if (ahead === null) return s;
  return {
    ...s,
    nextRunAt: s.status === 'active' ? ahead : s.nextRunAt,
    lastRunAt: s.previousRunAt,
    lastRunOutcome: s.previousRunOutcome,
    runs: withoutRun(s.runs, ahead),
  };
}

/** What firing the occurrence at `at` records on `current`: it as the last run, with the run before it kept. */
export function firedPatch(current: StoredSchedule, at: number, outcome: NonNullable<StoredSchedule['lastRunOutcome']>): SchedulePatch {
  return { lastRunAt: at, lastRunOutcome: outcome, previousRunAt: current.lastRunAt, previousRunOutcome: current.lastRunOutcome };
}

/**
 * What takes back the occurrence `s` fired ahead of its instant, as if it had never fired: the run before it is the
 * last again and, for an active schedule, it is the next run again (a change in the same write may say otherwise).
 * Empty when nothing is ahead at `now`.
 */
export function takeBackPatch(s: StoredSchedule, now: number): SchedulePatch {
  const ahead = firedAhead(s, now);
  if (ahead === null) return {};
  const runs = withoutRun(s.runs, ahead);
  return {
    lastRunAt: s.previousRunAt,
    lastRunOutcome: s.previousRunOutcome,
    previousRunAt: null,
    previousRunOutcome: null,
    ...(runs === s.runs ? {} : { runs }),
    ...(s.status === 'active' ? { nextRunAt: ahead } : {}),
  };
}

/**
 * The `updatedAt` a change made through the API gives `s`. It is also the schedule's revision, part of each
 * occurrence's identity (see `ScheduleOccurrences`): every change moves it forward, even two in one millisecond,
 * and firing an occurrence never does, so an occurrence fired again after a change is a new one.
 */
export function revisedAt(s: Pick<StoredSchedule, 'updatedAt'>, now: number): number {
  return Math.max(now, s.updatedAt + 1);
}
