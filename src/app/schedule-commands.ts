import type { Clock } from '../domain/clock.js';
import { FerryError, quoteInput } from '../domain/errors.js';
import { fingerprint } from '../domain/fingerprint.js';
import { newScheduleId } from '../domain/ids.js';
import type { Project } from '../domain/project.js';
import { revisedAt, scheduleAsOf, takeBackPatch } from '../domain/schedule/enqueued-ahead.js';
import { nextRunAfter } from '../domain/schedule/next-run.js';
import { isPastEnd } from '../domain/schedule/policy.js';
import { EMPTY_RUN_STATE } from '../domain/schedule/runs.js';
import type { SchedulePatch, StoredSchedule } from '../domain/schedule/schedule.js';
import {
  validateCreateSchedule,
  validateIdempotencyKey,
  validateSchedulePolicy,
  validateUpdateSchedule,
  type CreateScheduleInput,
  type UpdateScheduleInput,
} from '../domain/validation/index.js';
import type { IdempotencyStore } from '../ports/idempotency.js';
import { VersionConflict, type RequestStore } from '../ports/requests.js';
import type { ScheduleStore } from '../ports/schedules.js';
import type { UsageStore } from '../ports/usage.js';
import { OccurrenceWithdrawal } from './enqueued-occurrence.js';
import type { IdempotencyGuard } from './idempotency-guard.js';
import { visibleSchedule } from './schedule-queries.js';

export interface ScheduleCommandOptions {
  readonly allowPrivateDestinations: boolean;
}

/** What the schedule commands reach besides schedules: occurrences enqueued ahead are ordinary requests. */
export interface ScheduleCommandStores {
  readonly schedules: ScheduleStore;
  readonly usage: UsageStore;
  readonly requests: RequestStore;
  readonly idempotency: IdempotencyStore;
}

/**
 * The project's schedule count is kept as a usage period of its own, so the schedule allowance is reserved with
 * the same conditional writes as the monthly request allowance and concurrent creates never exceed it.
 */
export const SCHEDULE_COUNT_PERIOD = 'schedules';

/** A change that keeps losing to concurrent ones (occurrences firing, say) gives up after this many tries. */
const MAX_CHANGE_TRIES = 10;

/**
 * The schedule-changing operations of the API, in the domain's terms; every protocol calls these. Each answers the
 * schedule as it reads now (`scheduleAsOf`). A change before the instant of an occurrence fired ahead of it withdraws
 * that occurrence first (see `OccurrenceWithdrawal`), so the change applies to it as if it had never fired.
 */
export class ScheduleCommands {
  private readonly schedules: ScheduleStore;
  private readonly usage: UsageStore;
  private readonly withdrawal: OccurrenceWithdrawal;

  constructor(
    private readonly stores: ScheduleCommandStores,
    private readonly guard: IdempotencyGuard,
    private readonly clock: Clock,
    private readonly options: ScheduleCommandOptions,
    /** Told after a schedule's next run changed, so a scheduler in this process can look at once. */
    private readonly onChanged: (schedule: StoredSchedule) => void = () => undefined,
  ) {
    this.schedules = stores.schedules;
    this.usage = stores.usage;
    this.withdrawal = new OccurrenceWithdrawal(stores, clock);
  }

  /**
   * Creates an active schedule. The key is required: the same key and definition answer the same schedule, a
   * different definition is a 409. The schedule's ID is chosen before the key is claimed and kept with the claim,
   * so a call that takes over the key of one that died finds its schedule instead of creating a second.
   */
  async create(project: Project, input: CreateScheduleInput, idempotencyKey: string | undefined): Promise<StoredSchedule> {
    const now = this.clock.now();
    const valid = validateCreateSchedule(input, this.validation(now));
    const key = validateIdempotencyKey(idempotencyKey, true)!;
    const call = { key, fingerprint: fingerprint('schedule', input), field: 'Idempotency-Key' };
    const planned = newScheduleId(now);
    const [acquired] = await this.guard.acquire(project.id, [call], [JSON.stringify({ id: planned })]);
    if (acquired !== undefined && !acquired.claimed) return scheduleAsOf(await this.earlier(project, acquired.outcome), now);
    const resumedId = acquired?.claimed === true ? plannedId(acquired.resumed) : null;
    const id = resumedId ?? planned;
    let inserting = false;
    try {
      const existing = resumedId === null ? null : await this.schedules.get(project.id, resumedId);
      if (existing !== null) {
        await this.guard.complete(project.id, [{ key, outcome: JSON.stringify({ id }) }]);
        return scheduleAsOf(existing, now);
      }
      if (!(await this.usage.reserve(project.id, SCHEDULE_COUNT_PERIOD, 1, project.scheduleAllowance))) {
        throw new FerryError('SCHEDULE_ALLOWANCE_EXCEEDED', `The project already has its allowance of ${project.scheduleAllowance} schedules.`);
      }
      const schedule: StoredSchedule = {
        id,
        projectId: project.id,
        name: valid.name,
        timing: valid.timing,
        status: 'active',
        pauseReason: null,
        policy: valid.policy,
        request: valid.request,
        runs: EMPTY_RUN_STATE,
        nextRunAt: nextRunAfter(valid.timing, now),
        lastRunAt: null,
        lastRunOutcome: null,
        previousRunAt: null,
        previousRunOutcome: null,
        createdAt: now,
        updatedAt: now,
        version: 1,
      };
      inserting = true;
      await this.schedules.insert(schedule);
      await this.guard.complete(project.id, [{ key, outcome: JSON.stringify({ id }) }]);
      this.onChanged(schedule);
      return schedule;
    } catch (err) {
      // A schedule that may have been stored keeps its place in the allowance and its key's plan: the next call
      // with the key finds it. Nothing stored: the key is free again.
      const release = inserting || resumedId !== null ? this.guard.abandon(project.id, [key]) : this.guard.release(project.id, [key]);
      await release.catch(() => undefined);
      throw err;
    }
  }

  async update(project: Project, scheduleId: string, input: UpdateScheduleInput): Promise<StoredSchedule> {
    const now = this.clock.now();
    const valid = validateUpdateSchedule(input, this.validation(now));
    return this.change(project, scheduleId, now, (current) => {
      const patch: { -readonly [K in keyof SchedulePatch]: SchedulePatch[K] } = {};
      if (valid.name !== undefined) patch.name = valid.name;
      if (valid.request !== undefined) patch.request = { ...valid.request, headers: valid.request.headers ?? current.request.headers };
      const timing = valid.timing ?? current.timing;
      // The policy is checked against the timing the schedule will have (jitter within its gaps).
      if (valid.policy !== undefined) patch.policy = validateSchedulePolicy(valid.policy, timing, now);
      if (valid.timing !== undefined) patch.timing = valid.timing;
      if (valid.timing !== undefined || valid.policy !== undefined) {
        const next = nextRunAfter(timing, now);
        // The next timer is replaced; a paused schedule gets one when it is resumed. An ended one whose new timing
        // or policy lets it run again is active again.
        if (current.status === 'active') patch.nextRunAt = next;
        if (current.status !== 'paused') {
          const ended = isPastEnd(timing, patch.policy ?? current.policy, current.runs.counts.enqueued, next);
          patch.status = ended ? 'ended' : 'active';
          patch.nextRunAt = ended ? null : next;
        }
        // The timer now follows the new timing or policy: an occurrence waiting under buffer_one is dropped.
        patch.runs = { ...current.runs, buffered: null, upcoming: null };
      }
      return patch;
    });
  }

  /**
   * Pausing a paused or ended schedule changes nothing; an occurrence fired ahead of its instant is withdrawn, and
   * one waiting under `buffer_one` is dropped. A schedule paused after failures and paused again is paused by the
   * caller from then on.
   */
  pause(project: Project, scheduleId: string): Promise<StoredSchedule> {
    const now = this.clock.now();
    return this.change(project, scheduleId, now, (current) => {
      if (current.status === 'ended' || (current.status === 'paused' && current.pauseReason === 'user')) return null;
      return { status: 'paused', pauseReason: 'user', nextRunAt: null, runs: { ...current.runs, buffered: null, upcoming: null } };
    });
  }

  /**
   * The next occurrence after now: the time it spent paused is not caught up, and the failure streak starts again.
   * Resuming an active one changes nothing; an ended one cannot be resumed.
   */
  resume(project: Project, scheduleId: string): Promise<StoredSchedule> {
    const now = this.clock.now();
    return this.change(project, scheduleId, now, (current) => {
      if (current.status === 'ended') throw new FerryError('SCHEDULE_ENDED', `Schedule ${current.id} has ended; it cannot be resumed.`);
      if (current.status === 'active') return null;
      const next = nextRunAfter(current.timing, now);
      const ended = isPastEnd(current.timing, current.policy, current.runs.counts.enqueued, next);
      return {
        status: ended ? 'ended' : 'active',
        pauseReason: null,
        nextRunAt: ended ? null : next,
        runs: { ...current.runs, failureStreak: 0, watched: [], buffered: null, upcoming: null },
      };
    });
  }

  /**
   * Removes the schedule and its timer; its past requests stay, each with its own lifecycle and retention. An
   * occurrence fired ahead of its instant is withdrawn first, so a delete that fails part way leaves nothing of it
   * behind and its retry finds the schedule to delete; and again after, for a firing that moved the schedule on
   * between the look and the delete (one that comes later finds the schedule gone and withdraws what it fired).
   */
  async delete(project: Project, scheduleId: string): Promise<void> {
    const schedule = await visibleSchedule(this.schedules, project, scheduleId);
    const now = this.clock.now();
    await this.withdrawal.aheadOf(schedule, now);
    if (!(await this.schedules.delete(project.id, schedule.id))) {
      throw new FerryError('NOT_FOUND', `No schedule ${quoteInput(scheduleId)} in this project.`);
    }
    await this.usage.release(project.id, SCHEDULE_COUNT_PERIOD, 1);
    await this.withdrawal.aheadOf(schedule, now);
  }

  /**
   * Applies the patch `decide` makes of the schedule as it reads now (null: nothing to change), again on every
   * conflict. What the schedule fired ahead of now is withdrawn before the write and taken back in it, and the
   * write moves the schedule to a new revision, so whatever fires next is a new occurrence under the new definition.
   */
  private async change(
    project: Project,
    scheduleId: string,
    now: number,
    decide: (current: StoredSchedule) => SchedulePatch | null,
  ): Promise<StoredSchedule> {
    for (let tries = 0; tries < MAX_CHANGE_TRIES; tries++) {
      const current = await visibleSchedule(this.schedules, project, scheduleId);
      const decided = decide(scheduleAsOf(current, now));
      if (decided === null) return scheduleAsOf(current, now);
      // Withdrawn before the write: a change whose write then fails is completed by its retry, which finds the same.
      await this.withdrawal.aheadOf(current, now);
      const patch: SchedulePatch = { ...takeBackPatch(current, now), ...decided, updatedAt: revisedAt(current, now) };
      try {
        const updated = await this.schedules.update(project.id, current.id, current.version, patch);
        this.onChanged(updated);
        return scheduleAsOf(updated, now);
      } catch (err) {
        if (!(err instanceof VersionConflict)) throw err;
      }
    }
    throw new FerryError('STORAGE_UNAVAILABLE', 'The schedule kept changing while it was being updated; retry.');
  }

  /** The schedule an earlier call with the same key created, as it is now. */
  private async earlier(project: Project, outcome: string): Promise<StoredSchedule> {
    const id = plannedId(outcome);
    const found = id === null ? null : await this.schedules.get(project.id, id);
    if (found === null) throw new FerryError('NOT_FOUND', 'The schedule created with this idempotency key was deleted since.');
    return found;
  }

  private validation(now: number) {
    return { allowPrivateDestinations: this.options.allowPrivateDestinations, now };
  }
}

function plannedId(recorded: string | null): string | null {
  if (recorded === null) return null;
  try {
    const { id } = JSON.parse(recorded) as { id?: unknown };
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}
