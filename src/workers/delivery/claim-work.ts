import type { Clock } from '../../domain/clock.js';
import type { Admission, NamedBudget } from '../../domain/flow/admission.js';
import type { WaitingFor } from '../../domain/flow/budgets.js';
import { backoffDelayMs, type BackoffConfig } from '../../domain/delivery/backoff.js';
import { decideAttempt, type RetryConfig } from '../../domain/delivery/policy.js';
import { settleAttempt } from '../../domain/request-lifecycle/index.js';
import type { DeliveryTransport } from '../../ports/delivery-transport.js';
import { VersionConflict, type Claim, type RequestStore } from '../../ports/requests.js';
import type { BudgetGate } from './budget-gate.js';
import type { DeliveryEvent } from './events.js';
import { outboundRequest } from './outbound.js';
import type { ProjectDelivery } from './project-delivery.js';

/** What one claimed request's work needs: the engine's options it shares. */
export interface ClaimWorkOptions {
  readonly requests: RequestStore;
  readonly transport: DeliveryTransport;
  readonly clock: Clock;
  /** What delivery needs of a project: its active signing secrets and whether response bodies are captured. */
  readonly projectDelivery: (projectId: string) => Promise<ProjectDelivery>;
  readonly retry: RetryConfig;
  readonly userAgent: string;
  readonly random?: () => number;
  /** The deployment's shard count, which places a callback on its request's shard; 1 (the default) without shards. */
  readonly shardCount?: number;
  /**
   * The flow-control budgets every attempt must fit (its queue's and its flow keys'); omitted, only the global,
   * per-host and per-queue slots bound delivery.
   */
  readonly budgets?: BudgetGate;
}

/** What the work tells its engine, and asks of it. */
export interface ClaimWorkHooks {
  /** Work this engine made due again at that time (a retry, a hand-back); null when none. */
  dueAgainAt(dueAt: number | null): void;
  emit(event: DeliveryEvent): void;
  /** Aborted when the engine stops; it also ends the waits between storage retries at once. */
  readonly stopped: AbortSignal;
  /** True once the shutdown grace ran out: no attempt may start any more. */
  aborting(): boolean;
}

/** How soon a request handed back for no known time (its host busy too long, its project unreadable, its shard moving) is due again. */
export const HAND_BACK_DELAY_MS = 1_000;
/**
 * A storage call for a claimed request that fails (storage unreachable, say) is tried again after this backoff
 * (200–400 ms at first, up to 5 s; jittered, so the attempts caught by one outage do not all come back at once),
 * for as long as the claim's lease lasts: giving up would leave the request claimed and unsent, or sent and
 * without its outcome, until the lease ran out.
 */
const STORAGE_RETRY: BackoffConfig = { baseMs: 400, capMs: 5_000 };

/**
 * What happens to one claimed request once the engine gave it a slot: its attempt sent and its outcome recorded
 * through the claim, or the request handed back (held by a budget, its shard moving, the engine stopping).
 * The engine decides when and how many; this decides what, for each.
 */
export class ClaimWork {
  constructor(
    private readonly o: ClaimWorkOptions,
    private readonly hooks: ClaimWorkHooks,
  ) {}

  /** Delivers one claimed request; `exchanged` is called when the attempt's exchange ends (not when none is sent). */
  async deliver(claim: Claim, exchanged: () => void, budgets: readonly NamedBudget[] | undefined): Promise<void> {
    const claimed = claim.request;
    const attemptNumber = claimed.attemptCount + 1;
    if (claimed.cancelRequestedAt !== null) {
      // Cancelled while a previous owner held it: no further attempt starts.
      await this.cancelWithoutAttempt(claim);
      return;
    }
    let project: ProjectDelivery;
    try {
      project = await this.whileLeased(claim, () => this.o.projectDelivery(claimed.projectId));
    } catch (err) {
      this.hooks.emit({ type: 'engine_error', error: String(err) });
      await this.handBack(claim, HAND_BACK_DELAY_MS);
      return;
    }
    if (this.hooks.aborting()) {
      // The shutdown grace ran out while the secrets were read: the attempt is not started at all.
      await this.handBack(claim, 0);
      return;
    }
    if (this.o.requests.mayStart?.(claim) === false) {
      // The request's shard may have moved since the claim: an attempt now could go out beside its new owner's.
      // Handed back (refused by the store if the shard has moved), so a process that still owns it tries again.
      await this.handBack(claim, HAND_BACK_DELAY_MS);
      return;
    }
    const now = this.o.clock.now();
    this.hooks.emit({ type: 'attempt_started', requestId: claimed.id, attemptNumber, at: now, dueAt: attemptNumber === 1 ? (claimed.scheduledAt ?? claimed.createdAt) : null, queue: claimed.queue });
    const { outcome, startedAt, durationMs } = await this.o.transport.send(outboundRequest(claimed, attemptNumber, now, project, this.o.userAgent));
    if (budgets !== undefined) this.o.budgets?.answered(budgets, outcome, this.o.clock.now());
    exchanged();
    // Outcomes awaiting their write may outnumber the slots: they keep only what the store needs meanwhile.
    claim = claim.sent();
    if (outcome.kind === 'aborted') {
      await this.handBack(claim, 0);
      return;
    }
    const completedAt = this.o.clock.now();
    const decision = decideAttempt({
      outcome,
      attemptNumber,
      maxAttempts: claimed.maxAttempts,
      timeoutSeconds: claimed.timeoutSeconds,
      completedAt,
      config: this.o.retry,
      random: this.o.random ?? Math.random,
    });
    await this.record(claim, attemptNumber, decision, { startedAt, durationMs, completedAt });
  }

  /** Hands back a request its budgets hold back, due when they will admit it, saying which one holds it. */
  async holdBack(claim: Claim, held: Exclude<Admission, { start: true }>): Promise<void> {
    const r = claim.request;
    this.hooks.emit({ type: 'attempt_held', requestId: r.id, projectId: r.projectId, queue: r.queue, reason: held.waitingFor.reason });
    await this.handBack(claim, Math.max(0, held.until - this.o.clock.now()), held.waitingFor);
  }

  async handBack(claim: Claim, delayMs: number, waitingFor: WaitingFor | null = null): Promise<void> {
    const now = this.o.clock.now();
    try {
      await this.whileLeased(claim, () => this.o.requests.handBack(claim, now, now + delayMs, waitingFor));
      this.hooks.dueAgainAt(now + delayMs);
    } catch (err) {
      // A conflict means someone else moved the request on (a cancel, a new owner); nothing to give back.
      if (!(err instanceof VersionConflict)) this.hooks.emit({ type: 'engine_error', error: String(err) });
    }
  }

  /** Records the attempt; when a cancel landed meanwhile, records it again on the request as the cancel left it. */
  private async record(
    claim: Claim,
    attemptNumber: number,
    decision: ReturnType<typeof decideAttempt>,
    timing: { startedAt: number; durationMs: number; completedAt: number },
  ): Promise<void> {
    let current = claim;
    for (let tries = 0; tries < 5; tries++) {
      const settled = settleAttempt(current.request, attemptNumber, decision, timing, this.o.shardCount ?? 1);
      const { attempt } = settled;
      try {
        const at = current;
        const recorded = await this.whileLeased(claim, () => this.o.requests.recordAttempt(at, settled));
        this.hooks.dueAgainAt(recorded.dueAt);
        this.hooks.emit({
          type: 'attempt_finished',
          requestId: claim.request.id,
          projectId: claim.request.projectId,
          attemptNumber,
          requestStatus: recorded.status,
          attemptStatus: attempt.status,
          responseStatusCode: attempt.responseStatusCode,
          durationMs: timing.durationMs,
          retryDelayMs: attempt.retry?.selectedDelayMs ?? null,
        });
        return;
      } catch (err) {
        if (!(err instanceof VersionConflict)) throw err;
        const at = current;
        const again = await this.whileLeased(claim, () => this.o.requests.reread(at));
        if (again === null) {
          this.hooks.emit({ type: 'claim_lost', requestId: claim.request.id });
          return;
        }
        current = again.sent();
      }
    }
  }

  private async cancelWithoutAttempt(claim: Claim): Promise<void> {
    const now = this.o.clock.now();
    try {
      await this.whileLeased(claim, () => this.o.requests.cancelClaimed(claim, now));
    } catch (err) {
      if (!(err instanceof VersionConflict)) throw err;
    }
  }

  /**
   * Runs a storage call for the claimed request of `claim` until it answers: a failure other than a version conflict
   * is reported once and tried again while the claim's lease lasts and the engine runs.
   */
  private async whileLeased<T>(claim: Claim, call: () => Promise<T>): Promise<T> {
    const claimed = claim.request;
    const leaseEnd = claimed.dueAt ?? Number.NEGATIVE_INFINITY;
    for (let failures = 1; ; failures++) {
      try {
        return await call();
      } catch (err) {
        const wait = backoffDelayMs(failures, STORAGE_RETRY, this.o.random ?? Math.random);
        if (err instanceof VersionConflict || this.hooks.stopped.aborted || this.o.clock.now() + wait >= leaseEnd) throw err;
        if (failures === 1) this.hooks.emit({ type: 'engine_error', error: `${String(err)} (request ${claimed.id}; trying again while its claim lasts)` });
        await this.o.clock.sleep(wait, this.hooks.stopped);
      }
    }
  }
}
