import type { Clock } from '../domain/clock.js';
import { FerryError } from '../domain/errors.js';
import type { Project } from '../domain/project.js';
import type { Acceptance } from '../domain/request.js';
import { scheduleAsOf } from '../domain/schedule/enqueued-ahead.js';
import { notBackfilled, previousRequestId, withBackfilled, withRun, type RunState } from '../domain/schedule/runs.js';
import { validateBackfill, validateIdempotencyKey, type BackfillInput } from '../domain/validation/index.js';
import type { IdempotencyStore } from '../ports/idempotency.js';
import { VersionConflict, type RequestStore } from '../ports/requests.js';
import type { ScheduleStore } from '../ports/schedules.js';
import { overlapSlotsOver, type OverlapSlots } from './overlap-slots.js';
import type { ScheduleOccurrences } from './schedule-occurrences.js';
import { visibleSchedule } from './schedule-queries.js';

export interface ScheduleRunStores {
  readonly schedules: ScheduleStore;
  readonly requests: RequestStore;
  readonly idempotency: IdempotencyStore;
}

/** A record that keeps losing to concurrent changes of the schedule gives up after this many tries. */
const MAX_RECORD_TRIES = 10;

/**
 * Requests a schedule makes outside its timing: a trigger (one now) and a backfill (its past instants in a range).
 * Both go through the accept path under keys that make them exactly once, then are recorded in the schedule's run
 * state with a conditional write that does not move its revision: they change nothing about its occurrences, and
 * do not count toward its run limit.
 */
export class ScheduleRunCommands {
  private readonly slots: OverlapSlots;

  constructor(
    private readonly stores: ScheduleRunStores,
    private readonly occurrences: ScheduleOccurrences,
    private readonly clock: Clock,
  ) {
    this.slots = overlapSlotsOver(stores, clock);
  }

  /**
   * One occurrence now, also while paused; an ended schedule is a 409, and so is one whose overlap policy is `skip`
   * or `buffer_one` while its previous occurrence's request is active. The same key answers the same request.
   */
  async trigger(project: Project, scheduleId: string, idempotencyKey: string | undefined): Promise<Acceptance> {
    const key = requiredKey(idempotencyKey);
    const now = this.clock.now();
    const schedule = scheduleAsOf(await visibleSchedule(this.stores.schedules, project, scheduleId), now);
    if (schedule.status === 'ended') throw new FerryError('SCHEDULE_ENDED', `Schedule ${schedule.id} has ended; it cannot be triggered.`);
    // A call repeated with its key answers the request it made, which is itself the active previous one.
    const repeated = (await this.stores.idempotency.get(schedule.id, `trigger:${key}`, now)) !== null;
    // Under `skip` and `buffer_one` the trigger starts the next run only if it holds the slot after the previous one.
    const slot = repeated || schedule.policy.overlap === 'allow_all' ? null : await this.slots.take(project.id, schedule.id, previousRequestId(schedule.runs), `trigger:${key}`);
    if (!repeated && schedule.policy.overlap !== 'allow_all' && slot === null) {
      throw new FerryError('SCHEDULE_OVERLAP', `The previous occurrence of schedule ${schedule.id} is still active, and its overlap policy is ${schedule.policy.overlap}.`);
    }
    let accepted: Acceptance;
    try {
      accepted = await this.occurrences.trigger(project, schedule, key);
    } catch (err) {
      // Refused before anything was stored: the slot is free again. Otherwise it is kept for this key's retry.
      if (slot !== null && err instanceof FerryError && err.code !== 'STORAGE_UNAVAILABLE') await this.slots.release(slot);
      throw err;
    }
    if (slot !== null) await this.slots.fill(slot, accepted.id);
    await this.record(project, schedule.id, (runs) =>
      runs.recent.some((r) => r.requestId === accepted.id) ? null : withRun(runs, { at: now, requestId: accepted.id, outcome: 'triggered' }),
    );
    return accepted;
  }

  /**
   * The timing's instants in `[from, to)`, each created once as a request due now, however often it is backfilled:
   * instants inside a range backfilled before are left out, and each instant's request has a key of its own, so a
   * retry or a racing call that got as far as creating it finds it. Answers how many requests this call created.
   */
  async backfill(project: Project, scheduleId: string, input: BackfillInput, idempotencyKey: string | undefined): Promise<number> {
    requiredKey(idempotencyKey);
    const now = this.clock.now();
    const schedule = await visibleSchedule(this.stores.schedules, project, scheduleId);
    const range = validateBackfill(input, schedule.timing, now);
    const { from, to } = range;
    const instants = notBackfilled(schedule.runs, range.instants);
    const { accepted, created } = await this.occurrences.backfill(project, schedule, instants);
    await this.record(project, schedule.id, (runs) => {
      // The latest of them are recent runs, as of their instants, each once.
      const latest = instants.map((at, n) => ({ at, requestId: accepted[n]!.id })).slice(-10);
      let next = withBackfilled(runs, from, to, range.instants);
      for (const run of latest) if (!next.recent.some((r) => r.requestId === run.requestId)) next = withRun(next, { ...run, outcome: 'backfilled' }, 0);
      return next;
    });
    return created;
  }

  /** Applies `change` to the stored run state (null: nothing to record), again on every conflict. */
  private async record(project: Project, id: string, change: (runs: RunState) => RunState | null): Promise<void> {
    for (let tries = 0; tries < MAX_RECORD_TRIES; tries++) {
      const current = await this.stores.schedules.get(project.id, id);
      if (current === null) return;
      const runs = change(current.runs);
      if (runs === null) return;
      try {
        await this.stores.schedules.update(project.id, id, current.version, { runs });
        return;
      } catch (err) {
        if (!(err instanceof VersionConflict)) throw err;
      }
    }
    throw new FerryError('STORAGE_UNAVAILABLE', 'The schedule kept changing while its run was recorded; the request was created, retry to record it.');
  }
}

function requiredKey(key: string | undefined): string {
  if (key === undefined || key === null) throw new FerryError('MISSING_FIELD', 'The Idempotency-Key header is required for this operation.', 'Idempotency-Key');
  return validateIdempotencyKey(key, true)!;
}
