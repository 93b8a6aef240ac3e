import type { Clock } from '../domain/clock.js';
import type { Acceptance } from '../domain/request.js';
import { firedAhead } from '../domain/schedule/enqueued-ahead.js';
import type { StoredSchedule } from '../domain/schedule/schedule.js';
import type { IdempotencyStore } from '../ports/idempotency.js';
import type { RequestStore } from '../ports/requests.js';
import type { UsageStore } from '../ports/usage.js';
import { decodePlan } from './accept-plan.js';
import { occurrenceKey } from './schedule-occurrences.js';
import { usagePeriod } from './usage-period.js';

export interface WithdrawalStores {
  readonly idempotency: IdempotencyStore;
  readonly requests: RequestStore;
  readonly usage: UsageStore;
}

/**
 * How long a withdrawal waits for a firing of the same occurrence that is under way to name its request (a few
 * storage round trips); one that does not finish by then (its process died) is taken at its plan.
 */
const FIRING_WAIT_MS = 2_000;
const POLL_MS = 20;

/**
 * Takes back occurrences fired ahead of their instants, as if they had never fired: a pause, an update or a
 * delete before an occurrence's instant comes before its run. Its request is cancelled as of the withdrawal,
 * before it was created, so it never exists for anyone (see `isWithdrawn`), and its unit of the monthly allowance
 * is given back. The request is found through the occurrence's idempotency record, which names it.
 */
export class OccurrenceWithdrawal {
  constructor(
    private readonly stores: WithdrawalStores,
    private readonly clock: Clock,
  ) {}

  /**
   * Withdraws what `schedule` may have fired ahead of `now` under its current revision: the occurrence it records
   * as its last run, and its next run, which a firing cut short (by a crash, or a change racing it) may have
   * created without moving the schedule on yet.
   */
  async aheadOf(schedule: StoredSchedule, now: number): Promise<void> {
    const instants = new Set<number>();
    const ahead = firedAhead(schedule, now);
    if (ahead !== null && schedule.lastRunOutcome === 'enqueued') instants.add(ahead);
    if (schedule.status === 'active' && schedule.nextRunAt !== null && schedule.nextRunAt > now) instants.add(schedule.nextRunAt);
    for (const at of instants) await this.withdraw(schedule, at, now);
  }

  /**
   * Withdraws the occurrence at `at` that `schedule` fired under its revision `updatedAt`, unless its request was
   * created by `asOf` (then it is a run, and stays one).
   */
  async withdraw(schedule: Pick<StoredSchedule, 'id' | 'projectId' | 'updatedAt'>, at: number, asOf: number): Promise<void> {
    if (at <= asOf) return;
    for (const id of await this.requestsOf(schedule, at)) {
      const request = await this.stores.requests.get(schedule.projectId, id);
      if (request === null || request.createdAt <= asOf) continue;
      // Of two withdrawals of one request (the change's and the racing scheduler's), only the one that recorded the
      // cancel gives its unit back.
      if (await this.stores.requests.requestCancel(schedule.projectId, id, asOf)) {
        await this.stores.usage.release(schedule.projectId, usagePeriod(request.createdAt), 1);
      }
    }
  }

  /** The requests the occurrence's idempotency record names; none when it never fired under this revision. */
  private async requestsOf(schedule: Pick<StoredSchedule, 'id' | 'updatedAt'>, at: number): Promise<string[]> {
    const key = occurrenceKey(at, schedule.updatedAt);
    const giveUpAt = this.clock.now() + FIRING_WAIT_MS;
    for (;;) {
      const record = await this.stores.idempotency.get(schedule.id, key, this.clock.now());
      if (record === null) return [];
      if (record.outcome !== null) return (JSON.parse(record.outcome) as Acceptance[]).map((a) => a.id);
      if (this.clock.now() >= giveUpAt) return decodePlan(record.plan, 1)?.map((p) => p.id) ?? [];
      await this.clock.sleep(POLL_MS);
    }
  }
}
