import type { Clock } from '../domain/clock.js';
import { FerryError } from '../domain/errors.js';
import type { Project } from '../domain/project.js';
import { acceptanceOf, type Acceptance, type RequestDefinition, type RequestSource, type StoredRequest } from '../domain/request.js';
import { accepted } from '../domain/request-lifecycle/index.js';
import type { RequestStore } from '../ports/requests.js';
import { decodePlan, encodePlan, planPlacedRequests, planRequests, type PlannedRequest, type RequestPlacement } from './accept-plan.js';
import type { AllowanceLeases } from './allowance-leases.js';
import type { IdempotencyGuard, KeyedCall } from './idempotency-guard.js';
import type { QueueUses } from './queue-uses.js';
import { secondsUntilNextPeriod, usagePeriod } from './usage-period.js';

/** One request to accept, already validated. */
export interface NewRequest {
  readonly definition: RequestDefinition;
  /** Absolute delivery time, or null for at once. */
  readonly deliverAt: number | null;
  readonly source: RequestSource;
  readonly replayedFromRequestId: string | null;
  readonly scheduleId: string | null;
  /** On a callback's replay: the request the callback reports on. Absent (null) for any other request. */
  readonly callbackForRequestId?: string | null;
  /** A per-item key (batch items), deduplicating across batches and single creation. */
  readonly itemKey: KeyedCall | null;
}

export interface AcceptOptions {
  /** The namespace of the call's key; the project's own keys by default. */
  readonly keyScope?: string;
  /** The moment the requests are created as of, when later than now. */
  readonly createdAt?: number;
  /** The namespace of the items' own keys; the project's keys by default (a schedule's backfilled instants: its ID). */
  readonly itemKeyScope?: string;
}

/** Whether an accept call got as far as writing requests, so its keys must not be freed for reuse. */
interface Progress {
  inserting: boolean;
  /** How many requests this call inserted itself (not found under their keys, nor stored by an earlier holder). */
  inserted: number;
}

/**
 * The one accept path behind send, create, batch and replay: idempotency, then the monthly allowance, then a
 * durable insert of every new request, all or none. A 202 is answered only after this resolves.
 *
 * The requests' IDs are chosen before the idempotency keys are claimed and recorded with the claims. A call that
 * failed or died after its insert may have stored them; the next call with the key takes the claim over and
 * finds those requests instead of creating them again, and inserts only those that are missing.
 */
export class AcceptRequests {
  constructor(
    private readonly requests: RequestStore,
    private readonly allowance: AllowanceLeases,
    private readonly guard: IdempotencyGuard,
    private readonly clock: Clock,
    /** Told after new requests are durable, so delivery can look for due work at once. */
    private readonly onAccepted: (accepted: readonly StoredRequest[]) => void = () => undefined,
    /** Records the queues new requests use, beside their insert, so the queue list shows them once accepted. */
    private readonly queues?: QueueUses,
    /** Where requests go when work is split into shards (distributed); null where one process delivers all. */
    private readonly placement: RequestPlacement | null = null,
  ) {}

  /**
   * `keyScope` is the namespace of `callKey`: the project's own keys by default. Keys Ferry makes for itself (a
   * schedule's occurrences) live in a scope of their own, so no key a caller picks can ever collide with them.
   * `createdAt`, when later than now, is the moment the requests are created as of, and the month their allowance
   * is counted in: a schedule's occurrence enqueued ahead of its instant is created as of that instant.
   */
  async accept(project: Project, callKey: KeyedCall | null, items: readonly NewRequest[], options: AcceptOptions = {}): Promise<Acceptance[]> {
    return (await this.acceptCounted(project, callKey, items, options)).accepted;
  }

  /** `accept`, also answering how many of the requests this call created (the others existed under their keys). */
  async acceptCounted(
    project: Project,
    callKey: KeyedCall | null,
    items: readonly NewRequest[],
    options: AcceptOptions = {},
  ): Promise<{ accepted: Acceptance[]; inserted: number }> {
    const progress: Progress = { inserting: false, inserted: 0 };
    const accepted = await this.acceptWith(project, callKey, items, options, progress);
    return { accepted, inserted: progress.inserted };
  }

  private async acceptWith(
    project: Project,
    callKey: KeyedCall | null,
    items: readonly NewRequest[],
    options: AcceptOptions,
    progress: Progress,
  ): Promise<Acceptance[]> {
    const keyScope = options.keyScope ?? project.id;
    const at = Math.max(this.clock.now(), options.createdAt ?? Number.NEGATIVE_INFINITY);
    // Where one process delivers everything (embedded), placement has nothing to decide: no per-item work.
    const planned =
      this.placement === null
        ? planRequests(items.length, at)
        : planPlacedRequests(project.id, items.map((i) => ({ firstKey: i.definition.flowKeys[0] ?? null, queue: i.definition.queue })), at, this.placement);
    const itemScope = options.itemKeyScope ?? project.id;
    if (callKey === null) return this.acceptItems(project, items, planned, false, progress, itemScope);
    const [call] = await this.guard.acquire(keyScope, [callKey], [encodePlan(planned)]);
    if (call !== undefined && !call.claimed) return JSON.parse(call.outcome) as Acceptance[];
    const resumed = call?.claimed === true ? decodePlan(call.resumed, items.length) : null;
    try {
      const accepted = await this.acceptItems(project, items, resumed ?? planned, resumed !== null, progress, itemScope);
      await this.guard.complete(keyScope, [{ key: callKey.key, outcome: JSON.stringify(accepted) }]);
      return accepted;
    } catch (err) {
      await this.letGo(keyScope, [callKey.key], progress.inserting || resumed !== null);
      throw err;
    }
  }

  private async acceptItems(
    project: Project,
    items: readonly NewRequest[],
    planned: readonly PlannedRequest[],
    resumedAll: boolean,
    progress: Progress,
    itemScope: string,
  ): Promise<Acceptance[]> {
    const keyed = items.flatMap((item, index) => (item.itemKey ? [{ index, call: item.itemKey }] : []));
    const plans = keyed.map((k) => encodePlan([planned[k.index]!]));
    const acquired = keyed.length > 0 ? await this.guard.acquire(itemScope, keyed.map((k) => k.call), plans) : [];
    const results: Array<Acceptance | undefined> = items.map(() => undefined);
    const identity = [...planned];
    const resumed = items.map(() => resumedAll);
    const claimedKeys: string[] = [];
    for (const [n, k] of keyed.entries()) {
      const a = acquired[n]!;
      if (!a.claimed) {
        results[k.index] = JSON.parse(a.outcome) as Acceptance;
        continue;
      }
      claimedKeys.push(k.call.key);
      const earlier = decodePlan(a.resumed, 1);
      if (earlier !== null) {
        identity[k.index] = earlier[0]!;
        resumed[k.index] = true;
      }
    }

    // Counted in the month the requests are created in: now, or the instant of an occurrence enqueued ahead.
    const period = usagePeriod(Math.max(this.clock.now(), planned[0]?.at ?? 0));
    let reserved = 0;
    try {
      const open = items.flatMap((item, index) => (results[index] === undefined ? [{ item, index }] : []));
      const found = await this.storedEarlier(project.id, open.filter((o) => resumed[o.index]).map((o) => identity[o.index]!.id));
      for (const { index } of open) {
        const earlier = found.get(identity[index]!.id);
        if (earlier !== undefined) results[index] = acceptanceOf(earlier);
      }
      const fresh = open.filter(({ index }) => results[index] === undefined);
      if (fresh.length > 0) {
        if (!(await this.allowance.take(project.id, period, fresh.length, project.monthlyAllowance))) {
          throw new FerryError(
            'MONTHLY_ALLOWANCE_EXCEEDED',
            `The monthly request allowance (${project.monthlyAllowance}) does not cover ${fresh.length} more request(s).`,
            undefined,
            secondsUntilNextPeriod(this.clock.now()),
          );
        }
        reserved = fresh.length;
        const stored = fresh.map(({ item, index }) => this.toStored(project, item, identity[index]!));
        progress.inserting = true;
        progress.inserted = stored.length;
        const noting = this.queues?.note(project.id, stored);
        await (noting === undefined ? this.requests.insertMany(stored) : Promise.all([this.requests.insertMany(stored), noting]));
        this.onAccepted(stored);
        for (const [n, { index }] of fresh.entries()) results[index] = acceptanceOf(stored[n]!);
      }
    } catch (err) {
      // Units of an insert that may have landed stay counted: the allowance is never undercounted.
      if (reserved > 0 && !progress.inserting) this.allowance.giveBack(project.id, period, reserved);
      await this.letGo(itemScope, claimedKeys, progress.inserting || resumed.some(Boolean));
      throw err;
    }
    const accepted = results as Acceptance[];
    const outcomes = keyed
      .filter((k) => claimedKeys.includes(k.call.key))
      .map((k) => ({ key: k.call.key, outcome: JSON.stringify(accepted[k.index]) }));
    try {
      await this.guard.complete(itemScope, outcomes);
    } catch (err) {
      await this.letGo(itemScope, claimedKeys, true);
      throw err;
    }
    return accepted;
  }

  /** Requests an earlier holder of the same keys stored before it failed, by ID. */
  private async storedEarlier(projectId: string, ids: readonly string[]): Promise<Map<string, StoredRequest>> {
    const found = await Promise.all(ids.map((id) => this.requests.get(projectId, id)));
    return new Map(found.flatMap((r) => (r === null ? [] : [[r.id, r] as const])));
  }

  /** Gives keys back after a failure: freed when nothing can have been stored, else left for the next call. */
  private async letGo(projectId: string, keys: readonly string[], mayHaveStored: boolean): Promise<void> {
    const done = mayHaveStored ? this.guard.abandon(projectId, keys) : this.guard.release(projectId, keys);
    await done.catch(() => undefined);
  }

  private toStored(project: Project, item: NewRequest, planned: PlannedRequest): StoredRequest {
    const who = {
      id: planned.id,
      projectId: project.id,
      source: item.source,
      replayedFromRequestId: item.replayedFromRequestId,
      scheduleId: item.scheduleId,
      callbackForRequestId: item.callbackForRequestId ?? null,
    };
    return accepted(who, item.definition, item.deliverAt, planned.at);
  }
}
