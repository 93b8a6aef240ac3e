import type { Clock } from '../domain/clock.js';
import { FerryError } from '../domain/errors.js';
import { newRequestId } from '../domain/ids.js';
import type { Project } from '../domain/project.js';
import { acceptanceOf, definitionOf, type Acceptance, type RequestDefinition, type RequestSource, type StoredRequest } from '../domain/request.js';
import type { RequestStore } from '../ports/requests.js';
import type { AllowanceLeases } from './allowance-leases.js';
import type { IdempotencyGuard, KeyedCall } from './idempotency-guard.js';
import { usagePeriod } from './usage-period.js';

/** One request to accept, already validated. */
export interface NewRequest {
  readonly definition: RequestDefinition;
  /** Absolute delivery time, or null for at once. */
  readonly deliverAt: number | null;
  readonly source: RequestSource;
  readonly replayedFromRequestId: string | null;
  readonly scheduleId: string | null;
  /** A per-item key (batch items), deduplicating across batches and single creation. */
  readonly itemKey: KeyedCall | null;
}

/**
 * The one accept path behind send, create, batch and replay: idempotency, then the monthly allowance, then a
 * durable insert of every new request, all or none. A 202 is answered only after this resolves.
 */
export class AcceptRequests {
  constructor(
    private readonly requests: RequestStore,
    private readonly allowance: AllowanceLeases,
    private readonly guard: IdempotencyGuard,
    private readonly clock: Clock,
    /** Told after new requests are durable, so delivery can look for due work at once. */
    private readonly onAccepted: (accepted: readonly StoredRequest[]) => void = () => undefined,
  ) {}

  async accept(project: Project, callKey: KeyedCall | null, items: readonly NewRequest[]): Promise<Acceptance[]> {
    if (callKey === null) return this.acceptItems(project, items);
    const [call] = await this.guard.acquire(project.id, [callKey]);
    if (call !== undefined && !call.claimed) return JSON.parse(call.outcome) as Acceptance[];
    try {
      const accepted = await this.acceptItems(project, items);
      await this.guard.complete(project.id, [{ key: callKey.key, outcome: JSON.stringify(accepted) }]);
      return accepted;
    } catch (err) {
      await this.guard.release(project.id, [callKey.key]).catch(() => undefined);
      throw err;
    }
  }

  private async acceptItems(project: Project, items: readonly NewRequest[]): Promise<Acceptance[]> {
    const keyed = items.flatMap((item, index) => (item.itemKey ? [{ index, call: item.itemKey }] : []));
    const acquired = keyed.length > 0 ? await this.guard.acquire(project.id, keyed.map((k) => k.call)) : [];
    const results: Array<Acceptance | undefined> = items.map(() => undefined);
    const claimedKeys: string[] = [];
    for (const [n, k] of keyed.entries()) {
      const a = acquired[n]!;
      if (a.claimed) claimedKeys.push(k.call.key);
      else results[k.index] = JSON.parse(a.outcome) as Acceptance;
    }

    const now = this.clock.now();
    const fresh = items.flatMap((item, index) => (results[index] === undefined ? [{ item, index }] : []));
    const period = usagePeriod(now);
    let reserved = 0;
    try {
      if (fresh.length > 0) {
        if (!(await this.allowance.take(project.id, period, fresh.length, project.monthlyAllowance))) {
          throw new FerryError(
            'MONTHLY_ALLOWANCE_EXCEEDED',
            `The monthly request allowance (${project.monthlyAllowance}) does not cover ${fresh.length} more request(s).`,
          );
        }
        reserved = fresh.length;
        const stored = fresh.map(({ item }) => this.toStored(project, item, now));
        await this.requests.insertMany(stored);
        this.onAccepted(stored);
        for (const [n, { index }] of fresh.entries()) results[index] = acceptanceOf(stored[n]!);
      }
    } catch (err) {
      if (reserved > 0) this.allowance.giveBack(project.id, period, reserved);
      await this.guard.release(project.id, claimedKeys).catch(() => undefined);
      throw err;
    }
    const accepted = results as Acceptance[];
    const outcomes = keyed
      .filter((k) => claimedKeys.includes(k.call.key))
      .map((k) => ({ key: k.call.key, outcome: JSON.stringify(accepted[k.index]) }));
    await this.guard.complete(project.id, outcomes);
    return accepted;
  }

  private toStored(project: Project, item: NewRequest, now: number): StoredRequest {
    const delayed = item.deliverAt !== null && item.deliverAt > now;
    return {
      ...definitionOf(item.definition),
      id: newRequestId(now),
      projectId: project.id,
      source: item.source,
      replayedFromRequestId: item.replayedFromRequestId,
      scheduleId: item.scheduleId,
      status: delayed ? 'scheduled' : 'queued',
      scheduledAt: delayed ? item.deliverAt : null,
      dueAt: delayed ? item.deliverAt : now,
      attemptCount: 0,
      createdAt: now,
      updatedAt: now,
      startedAt: null,
      completedAt: null,
      cancelledAt: null,
      cancelRequestedAt: null,
      version: 1,
    };
  }
}
