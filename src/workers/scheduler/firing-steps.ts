import type { RequestStatus } from '../../domain/request.js';
import { isActive } from '../../domain/request-lifecycle/index.js';
import { planFiring } from '../../domain/schedule/firing.js';
import { firesAt } from '../../domain/schedule/jitter.js';
import { isPastEnd, overlapDecision, shouldPauseAfterFailure } from '../../domain/schedule/policy.js';
import { previousRequestId, withRun, type FiredOccurrence, type RunState } from '../../domain/schedule/runs.js';
import type { PauseReason, RunOutcome, StoredSchedule } from '../../domain/schedule/schedule.js';
import type { OverlapSlot, OverlapSlots } from '../../app/overlap-slots.js';
import type { SchedulerEvent } from './events.js';

/**
 * While an occurrence waits under `buffer_one` for the previous one's request to end, its schedule's timer looks
 * again this often (or at the next occurrence, when that comes first). A request ends on the delivery side, which
 * tells the schedule nothing; a look is one read of that request and one timer moved (on Cassandra, a timer row
 * written and one deleted in the hour's bucket: looking every second would pile deletions up there).
 */
export const BUFFER_LOOK_MS = 5_000;

/** What firing a due schedule decided, to be written with its conditional move (see `ScheduleFiring.moveOn`). */
export interface FiringStep {
  /** The timing occurrence recorded as the latest run; null when none is (nothing fired, or it was buffered). */
  readonly fired: { readonly at: number; readonly outcome: RunOutcome } | null;
  /** The schedule's next timer. */
  readonly nextRunAt: number | null;
  /** The changes to the run state, applied to the state as stored when the move is written. */
  readonly runs: (stored: RunState) => RunState;
  /** Set when the schedule stops: paused after failures, or ended. */
  readonly stop: { readonly status: 'paused'; readonly pauseReason: PauseReason } | { readonly status: 'ended'; readonly pauseReason: null } | null;
}

export interface FiringStepsDeps {
  /** Creates the request of one occurrence; idempotent per schedule, instant and revision. */
  /** Creates the occurrence at `at`, its request due at `dueAt` (the instant plus its jitter). */
  readonly fire: (schedule: StoredSchedule, at: number, dueAt: number) => Promise<FiredOccurrence>;
  /** The status of a request of the schedule's project; null when it is gone. */
  readonly requestStatus: (projectId: string, requestId: string) => Promise<RequestStatus | null>;
  /** One run at a time under `skip` and `buffer_one`, whoever starts it (see `OverlapSlots`). */
  readonly overlap: Pick<OverlapSlots, 'take' | 'fill' | 'release'>;
  readonly emit: (event: SchedulerEvent) => void;
}

/**
 * The rules of the schedule's policy at firing: overlap (`skip`, `buffer_one`), the run limit and the end of its
 * timing (`ended`), and pausing after consecutive failed occurrences. Their pure parts are `policy.ts`'s; this
 * reads the requests they look at and fires what they say.
 */
export class FiringSteps {
  constructor(private readonly d: FiringStepsDeps) {}

  async step(s: StoredSchedule, now: number): Promise<FiringStep> {
    const changes: Array<(r: RunState) => RunState> = [];
    let runs = s.runs;
    const apply = (change: (r: RunState) => RunState): void => {
      runs = change(runs);
      changes.push(change);
    };
    const all = (stored: RunState): RunState => changes.reduce((r, change) => change(r), stored);
    let dueAt = s.nextRunAt!;

    if (runs.upcoming !== null) {
      // The timer was a look at a buffered occurrence: it runs, late, as soon as the previous request has ended.
      const buffered = runs.buffered;
      const slot = buffered === null ? null : await this.slotAfterPrevious(s, runs, buffered);
      if (buffered !== null && slot !== null) {
        const made = await this.fireAt(s, buffered, now, slot);
        apply((r) => ({ ...withRun(r, { at: buffered, requestId: made.requestId, outcome: made.outcome }), buffered: null }));
      }
      const upcoming = runs.upcoming;
      if (upcoming > now) {
        const stillWaiting = runs.buffered !== null;
        return { fired: null, nextRunAt: this.timer(runs, upcoming, now), runs: (r) => ({ ...all(r), upcoming: stillWaiting ? upcoming : null }), stop: null };
      }
      dueAt = upcoming;
      apply((r) => ({ ...r, upcoming: null }));
    }

    const plan = planFiring(s.timing, dueAt, now);
    if (plan.fireAt === null) {
      this.d.emit({ type: 'occurrence_missed', scheduleId: s.id, at: dueAt });
      apply((r) => withRun(r, { at: dueAt, requestId: null, outcome: 'missed' }));
      return this.onwards(s, runs, all, plan.nextRunAt, null, now);
    }
    const at = plan.fireAt;

    if (s.policy.pauseAfterFailures !== null && runs.watched.length > 0) {
      const settled = await this.settle(s, runs);
      apply(settled);
      if (shouldPauseAfterFailure(s.policy, runs.failureStreak)) {
        // Instead of this occurrence: the schedule pauses, and resuming starts a new streak.
        return { fired: null, nextRunAt: null, runs: (r) => ({ ...all(r), buffered: null, upcoming: null }), stop: { status: 'paused', pauseReason: 'failures' } };
      }
    }

    const slot = s.policy.overlap === 'allow_all' ? null : await this.slotAfterPrevious(s, runs, at);
    const decision = s.policy.overlap === 'allow_all' ? 'fire' : overlapDecision(s.policy, slot === null, runs.buffered !== null);
    let fired: FiringStep['fired'] = null;
    if (decision === 'fire') {
      const made = await this.fireAt(s, at, now, slot);
      apply((r) => withRun(r, { at, requestId: made.requestId, outcome: made.outcome }));
      fired = { at, outcome: made.outcome };
    } else if (decision === 'skip') {
      this.d.emit({ type: 'occurrence_fired', scheduleId: s.id, at, outcome: 'skipped_overlap', firedAt: now });
      apply((r) => withRun(r, { at, requestId: null, outcome: 'skipped_overlap' }));
      fired = { at, outcome: 'skipped_overlap' };
    } else {
      apply((r) => ({ ...r, buffered: at }));
    }
    return this.onwards(s, runs, all, plan.nextRunAt, fired, now);
  }

  /** The move past what fired: to the next occurrence, to a look at a buffered one, or to the end. */
  private onwards(
    s: StoredSchedule,
    runs: RunState,
    all: (r: RunState) => RunState,
    next: number | null,
    fired: FiringStep['fired'],
    now: number,
  ): FiringStep {
    if (isPastEnd(s.timing, s.policy, runs.counts.enqueued, next)) {
      // A buffered occurrence still waiting when the schedule ends never runs: it counts as skipped.
      const dropped = runs.buffered;
      return {
        fired,
        nextRunAt: null,
        runs: (r) => {
          const done = { ...all(r), buffered: null, upcoming: null };
          return dropped === null ? done : withRun(done, { at: dropped, requestId: null, outcome: 'skipped_overlap' });
        },
        stop: { status: 'ended', pauseReason: null },
      };
    }
    const upcoming = runs.buffered === null ? null : next;
    return { fired, nextRunAt: this.timer(runs, next!, now), runs: (r) => ({ ...all(r), upcoming }), stop: null };
  }

  private timer(runs: RunState, next: number, now: number): number {
    return runs.buffered === null ? next : Math.min(next, now + BUFFER_LOOK_MS);
  }

  /**
   * Fires the occurrence at `at`, under `slot` when the policy allows one run at a time. A firing that throws keeps
   * its slot: it may have created the request, and firing it again (the same starter) finds both.
   */
  private async fireAt(s: StoredSchedule, at: number, now: number, slot: OverlapSlot | null): Promise<FiredOccurrence> {
    const made = await this.d.fire(s, at, firesAt(s, at));
    if (slot !== null) await (made.requestId === null ? this.d.overlap.release(slot) : this.d.overlap.fill(slot, made.requestId));
    this.d.emit({ type: 'occurrence_fired', scheduleId: s.id, at, outcome: made.outcome, firedAt: now });
    return made;
  }

  /** The slot for the occurrence at `at` to run after the latest occurrence or trigger; null while a run is under way. */
  private slotAfterPrevious(s: StoredSchedule, runs: RunState, at: number): Promise<OverlapSlot | null> {
    return this.d.overlap.take(s.projectId, s.id, previousRequestId(runs), `occurrence:${at}`);
  }

  /**
   * Counts the watched requests that have ended into the failure streak, oldest first: a failure adds one, a
   * success starts it again, a cancel (or a request gone with its retention) counts as neither.
   */
  private async settle(s: StoredSchedule, runs: RunState): Promise<(r: RunState) => RunState> {
    let streak = runs.failureStreak;
    const done = new Set<string>();
    for (const id of runs.watched) {
      const status = await this.d.requestStatus(s.projectId, id);
      if (status !== null && isActive(status)) continue;
      done.add(id);
      if (status === 'failed') streak += 1;
      else if (status === 'succeeded') streak = 0;
    }
    return (r) => ({ ...r, failureStreak: streak, watched: r.watched.filter((id) => !done.has(id)) });
  }
}
