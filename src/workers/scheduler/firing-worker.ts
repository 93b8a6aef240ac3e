import type { Clock, TimerHandle } from '../../domain/clock.js';
import type { RequestStatus } from '../../domain/request.js';
import { firedPatch } from '../../domain/schedule/enqueued-ahead.js';
import type { FiredOccurrence } from '../../domain/schedule/runs.js';
import type { SchedulePatch, StoredSchedule } from '../../domain/schedule/schedule.js';
import { VersionConflict, type ShardScope } from '../../ports/requests.js';
import type { ScheduleStore } from '../../ports/schedules.js';
import type { OverlapSlots } from '../../app/overlap-slots.js';
import type { SchedulerEvent } from './events.js';
import { FiringSteps, type FiringStep } from './firing-steps.js';

export interface ScheduleFiringOptions {
  readonly schedules: ScheduleStore;
  /** Creates the request of one occurrence; idempotent per schedule, instant and revision (`updatedAt`). */
  readonly fire: (schedule: StoredSchedule, at: number, dueAt: number) => Promise<FiredOccurrence>;
  /** The status of a request, for the policy's overlap and failure rules; null when it is gone. */
  readonly requestStatus: (projectId: string, requestId: string) => Promise<RequestStatus | null>;
  /** One run at a time under `skip` and `buffer_one` (see `OverlapSlots`). */
  readonly overlap: Pick<OverlapSlots, 'take' | 'fill' | 'release'>;
  /**
   * Withdraws the occurrence at `at` that `schedule` (as read before firing) fired, unless its request was created by
   * `asOf`: the schedule changed before that instant, so what was fired no longer applies.
   */
  readonly withdraw: (schedule: StoredSchedule, at: number, asOf: number) => Promise<void>;
  readonly clock: Clock;
  /** Longest wait between looks at storage when no occurrence is known to be due sooner. */
  readonly idlePollMs: number;
  /**
   * How long before its instant an occurrence is enqueued (0: at the instant), its request created as of that
   * instant (see `enqueued-ahead.ts`). Many schedules share instants (every minute, every hour); creating their
   * requests ahead spreads that work before the instant, so the deliveries start on time however many there are.
   */
  readonly leadMs?: number;
  /** Occurrences being fired at once; each is a few storage round trips, so many at once share their commits. */
  readonly maxConcurrent: number;
  /** The shards whose schedules this worker fires, asked before every look; omitted means all of them. */
  readonly shards?: () => ShardScope;
  readonly onEvent?: (event: SchedulerEvent) => void;
}

/** Due schedules read per look; a look that fills it looks again at once. */
const BATCH = 512;
/** After a look that failed, the next one waits this long, so an outage is not met with a busy loop. */
const RETRY_AFTER_FAILURE_MS = 1_000;
/**
 * A schedule whose firing failed is left out of the looks that follow for a while, doubling from
 * `RETRY_AFTER_FAILURE_MS` up to this: a schedule that keeps failing must not take the places of healthy ones in
 * every look. Its occurrence stays due, so nothing is lost; it fires as soon as it succeeds.
 */
const MAX_BACKOFF_MS = 60_000;
/** Most schedules kept out of looks at once; the read grows by as many, so healthy ones still fill a batch. */
const MAX_BACKED_OFF = 4_096;
/** A schedule whose move to its next run keeps conflicting with other changes is left for the next look. */
const MAX_MOVE_TRIES = 5;

/**
 * Fires due occurrences. It keeps no schedule in memory: it asks storage for the earliest next run, sleeps until
 * then (or `idlePollMs`, whichever comes first), reads what is due, creates each occurrence's request and moves the
 * schedule on to its next run with a conditional write. A crash anywhere leaves the schedule due, and firing it
 * again finds the request already created (see `ScheduleOccurrences`), so every occurrence creates one request.
 */
export class ScheduleFiring {
  private timer: TimerHandle | undefined;
  private ticking = false;
  private again = false;
  private stopped = false;
  private current: Promise<void> = Promise.resolve();
  /** Schedules whose last firing failed: how often in a row, and when they may be tried again. */
  private readonly backedOff = new Map<string, { failures: number; until: number }>();
  private readonly steps: FiringSteps;

  constructor(private readonly o: ScheduleFiringOptions) {
    this.steps = new FiringSteps({ fire: o.fire, requestStatus: o.requestStatus, overlap: o.overlap, emit: (e) => this.emit(e) });
  }

  start(): void {
    this.wake();
  }

  /** Looks at storage now, e.g. because a schedule was created or changed. */
  wake(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.timer?.cancel();
    this.ticking = true;
    this.current = this.tick().finally(() => {
      this.ticking = false;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  /** Stops looking and waits for the occurrences being fired. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    await this.current;
  }

  private async tick(): Promise<void> {
    try {
      const scope = this.o.shards?.();
      if (scope !== undefined && scope.length === 0) return this.sleep(this.o.idlePollMs);
      const now = this.o.clock.now();
      const horizon = now + (this.o.leadMs ?? 0);
      const next = await this.o.schedules.nextDueAt(scope);
      if (next === null || next > horizon) return this.sleep(next === null ? this.o.idlePollMs : Math.min(next - horizon, this.o.idlePollMs));
      this.forgetStaleBackoffs(now);
      const read = await this.o.schedules.due(horizon, BATCH + this.backedOff.size, scope);
      // Overlap is decided at the instant, on the previous request as it is then: such occurrences are not fired ahead.
      const early = read.filter((s) => s.policy.overlap !== 'allow_all' && s.nextRunAt! > now);
      const due = read.filter((s) => (this.backedOff.get(s.id)?.until ?? 0) <= now && !early.includes(s));
      if (due.length === 0) return this.sleep(early.length > 0 ? Math.min(RETRY_AFTER_FAILURE_MS, ...early.map((s) => s.nextRunAt! - now)) : RETRY_AFTER_FAILURE_MS);
      const failures = await this.fireAll(due);
      if (failures > 0) return this.sleep(RETRY_AFTER_FAILURE_MS);
      // More may be due (a full batch), or the next run may be now already: look again at once.
      this.again = true;
    } catch (err) {
      this.emit({ type: 'scheduler_error', error: String(err) });
      this.sleep(RETRY_AFTER_FAILURE_MS);
    }
  }

  private sleep(ms: number): void {
    if (this.stopped) return;
    this.timer?.cancel();
    this.timer = this.o.clock.setTimer(() => this.wake(), Math.max(0, ms));
  }

  /** Fires every due schedule, `maxConcurrent` at a time; answers how many failed. */
  private async fireAll(due: readonly StoredSchedule[]): Promise<number> {
    let next = 0;
    let failures = 0;
    const lane = async (): Promise<void> => {
      while (next < due.length && !this.stopped) {
        const schedule = due[next++]!;
        try {
          await this.fireOne(schedule);
          this.backedOff.delete(schedule.id);
        } catch (err) {
          failures += 1;
          this.backOff(schedule.id);
          this.emit({ type: 'scheduler_error', error: `${String(err)} (schedule ${schedule.id})`, scheduleId: schedule.id });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.o.maxConcurrent, due.length) }, lane));
    return failures;
  }

  /** Entries past their wait by a whole maximum wait belong to schedules that are gone or moved on. */
  private forgetStaleBackoffs(now: number): void {
    for (const [id, b] of this.backedOff) if (b.until + MAX_BACKOFF_MS < now) this.backedOff.delete(id);
  }

  private backOff(id: string): void {
    const failures = (this.backedOff.get(id)?.failures ?? 0) + 1;
    if (!this.backedOff.has(id) && this.backedOff.size >= MAX_BACKED_OFF) return;
    const wait = Math.min(MAX_BACKOFF_MS, RETRY_AFTER_FAILURE_MS * 2 ** (failures - 1));
    this.backedOff.set(id, { failures, until: this.o.clock.now() + wait });
  }

  private async fireOne(s: StoredSchedule): Promise<void> {
    await this.moveOn(s, await this.steps.step(s, this.o.clock.now()));
  }

  /**
   * Moves the schedule's timer past the occurrence and records its outcome and run state. A concurrent change (an
   * update, a pause, another process firing the same occurrence, a trigger) makes the write conflict: then the fresh
   * schedule is moved on only if it still waits for the same run, and the outcome recorded only if nothing later
   * was. A change made through the API before the occurrence's instant (a new revision, or the schedule gone) comes
   * before its run: the change may not have seen what was fired, so it is withdrawn here, and the schedule is left
   * as the change left it.
   */
  private async moveOn(s: StoredSchedule, step: FiringStep): Promise<void> {
    const { fired } = step;
    let current: StoredSchedule | null = s;
    for (let tries = 0; tries < MAX_MOVE_TRIES; tries++) {
      if (fired !== null && (current === null || current.updatedAt !== s.updatedAt)) {
        const changedAt = current?.updatedAt ?? this.o.clock.now();
        if (changedAt < fired.at) {
          if (fired.outcome === 'enqueued') await this.o.withdraw(s, fired.at, changedAt);
          return;
        }
      }
      if (current === null) return;
      const waitsForThisRun = current.status === 'active' && current.nextRunAt === s.nextRunAt;
      const recordRun = fired !== null && (current.lastRunAt ?? Number.NEGATIVE_INFINITY) < fired.at;
      if (!waitsForThisRun && !recordRun) return;
      const ran = fired !== null && recordRun ? firedPatch(current, fired.at, fired.outcome) : {};
      const moved: SchedulePatch = waitsForThisRun ? { nextRunAt: step.nextRunAt, ...(step.stop ?? {}) } : {};
      const patch: SchedulePatch = { ...moved, ...ran, runs: step.runs(current.runs) };
      try {
        await this.o.schedules.update(current.projectId, current.id, current.version, patch);
        return;
      } catch (err) {
        if (!(err instanceof VersionConflict)) throw err;
        current = await this.o.schedules.get(s.projectId, s.id);
      }
    }
  }

  private emit(event: SchedulerEvent): void {
    this.o.onEvent?.(event);
  }
}
