/*
 * What a schedule remembers of its occurrences beyond the latest: counters, the last ten runs, what waits under
 * `buffer_one`, the failure streak that pauses it, and the ranges already backfilled. It is one value, stored with
 * the schedule and changed only by the schedule's conditional writes, so a firing, a trigger and a backfill racing
 * each other never lose one another's record.
 */

/** What happened at one occurrence, or how a request was made outside the timing. */
export type RunKind = 'enqueued' | 'skipped_usage_limit' | 'skipped_overlap' | 'missed' | 'triggered' | 'backfilled';

export interface RecentRun {
  /** The occurrence's instant; for a trigger, when it was asked. */
  readonly at: number;
  /** The request it created; null when it created none. */
  readonly requestId: string | null;
  readonly outcome: RunKind;
}

export type RunCounts = Readonly<Record<RunKind, number>>;

export interface RunState {
  readonly counts: RunCounts;
  /** Newest first, at most `RECENT_RUNS`. */
  readonly recent: readonly RecentRun[];
  /** The instant of the occurrence waiting for the previous one's request to end (`buffer_one`); null for none. */
  readonly buffered: number | null;
  /**
   * While something waits to be looked at again (a buffered occurrence), the schedule's timer is set to that look
   * and this holds the timing's real next occurrence; null otherwise, when the timer is the next occurrence.
   */
  readonly upcoming: number | null;
  /** Consecutive occurrences whose requests failed, counted up to the oldest one still under way. */
  readonly failureStreak: number;
  /** Requests of timing occurrences not yet counted in the streak, oldest first, at most `WATCHED_RUNS`. */
  readonly watched: readonly string[];
  /** Backfilled ranges `[from, to)`, merged, earliest first: each instant is backfilled once, however often asked. */
  readonly backfilled: ReadonlyArray<readonly [number, number]>;
}

export const RECENT_RUNS = 10;
/** Bounds the reads a firing makes to settle the streak; occurrences beyond it while all are active are not counted. */
export const WATCHED_RUNS = 10;
/** Bounds the stored ranges; one backfill adds at most one, merged with its neighbours. */
export const MAX_BACKFILLED_RANGES = 200;

const ZERO: RunCounts = { enqueued: 0, skipped_usage_limit: 0, skipped_overlap: 0, missed: 0, triggered: 0, backfilled: 0 };

export const EMPTY_RUN_STATE: RunState = { counts: ZERO, recent: [], buffered: null, upcoming: null, failureStreak: 0, watched: [], backfilled: [] };

/** `state` with `run` recorded: counted, first of the recent runs, and watched when a timing occurrence made a request. */
export function withRun(state: RunState, run: RecentRun, count = 1): RunState {
  const watched = run.outcome === 'enqueued' && run.requestId !== null ? [...state.watched, run.requestId].slice(-WATCHED_RUNS) : state.watched;
  const recent = [run, ...state.recent.filter((r) => !(r.at === run.at && r.outcome === run.outcome))].slice(0, RECENT_RUNS);
  return { ...state, counts: { ...state.counts, [run.outcome]: state.counts[run.outcome] + count }, recent, watched };
}

/** The request overlap looks at: that of the latest occurrence or trigger that made one. */
export function previousRequestId(state: RunState): string | null {
  return state.recent.find((r) => r.requestId !== null && (r.outcome === 'enqueued' || r.outcome === 'triggered'))?.requestId ?? null;
}

/** `state` without the run at `at` (an occurrence fired ahead and withdrawn before its instant). */
export function withoutRun(state: RunState, at: number): RunState {
  const run = state.recent.find((r) => r.at === at && r.outcome !== 'triggered' && r.outcome !== 'backfilled');
  if (run === undefined) return state;
  return {
    ...state,
    counts: { ...state.counts, [run.outcome]: Math.max(0, state.counts[run.outcome] - 1) },
    recent: state.recent.filter((r) => r !== run),
    watched: state.watched.filter((id) => id !== run.requestId),
  };
}

/** The instants of `instants` not inside a backfilled range. */
export function notBackfilled(state: RunState, instants: readonly number[]): number[] {
  return instants.filter((t) => !state.backfilled.some(([from, to]) => t >= from && t < to));
}

/**
 * `state` with `[from, to)` among its backfilled ranges, merged with those it touches; the oldest go past the bound.
 * The count grows by the range's `instants` no recorded range covered yet: a call that died after creating requests
 * and before recording them is counted by its retry, and two calls racing over one range count it once between them.
 */
export function withBackfilled(state: RunState, from: number, to: number, instants: readonly number[]): RunState {
  const added = notBackfilled(state, instants).length;
  let lo = from;
  let hi = to;
  const kept: Array<readonly [number, number]> = [];
  for (const [a, b] of state.backfilled) {
    if (b < lo || a > hi) kept.push([a, b]);
    else {
      lo = Math.min(lo, a);
      hi = Math.max(hi, b);
    }
  }
  kept.push([lo, hi]);
  kept.sort((x, y) => x[0] - y[0]);
  return { ...state, backfilled: kept.slice(-MAX_BACKFILLED_RANGES), counts: { ...state.counts, backfilled: state.counts.backfilled + added } };
}

/** A stored state as written by any build: members it lacks read as empty. */
export function runStateOf(stored: Partial<RunState> | null | undefined): RunState {
  if (stored === null || stored === undefined) return EMPTY_RUN_STATE;
  return { ...EMPTY_RUN_STATE, ...stored, counts: { ...ZERO, ...(stored.counts ?? {}) } };
}

/** What firing an occurrence did, and the request it created (null when it created none). */
export interface FiredOccurrence {
  readonly outcome: 'enqueued' | 'skipped_usage_limit';
  readonly requestId: string | null;
}
