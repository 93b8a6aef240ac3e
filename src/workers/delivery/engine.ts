import type { Clock, TimerHandle } from '../../domain/clock.js';
import type { Admission, NamedBudget } from '../../domain/flow/admission.js';
import { backoffDelayMs, type BackoffConfig } from '../../domain/delivery/backoff.js';
import { decideAttempt, type RetryConfig } from '../../domain/delivery/policy.js';
import { settleAttempt } from '../../domain/request-lifecycle/index.js';
import type { DeliveryTransport } from '../../ports/delivery-transport.js';
import { VersionConflict, type Claim, type RequestStore, type ShardScope } from '../../ports/requests.js';
import type { BudgetGate } from './budget-gate.js';
import type { DeliveryEvent } from './events.js';
import { ConcurrencyLimits } from './limits.js';
import { WaitingRoom } from './waiting-room.js';
import { ConnectionWarmUp } from './warm-up.js';
import { outboundRequest } from './outbound.js';
import type { ProjectDelivery } from './project-delivery.js';
import { hostOf } from './claimed.js';
import type { WaitingFor } from '../../domain/flow/budgets.js';

export interface DeliveryEngineOptions {
  readonly requests: RequestStore;
  readonly transport: DeliveryTransport;
  readonly clock: Clock;
  /** What delivery needs of a project: its active signing secrets and whether response bodies are captured. */
  readonly projectDelivery: (projectId: string) => Promise<ProjectDelivery>;
  readonly retry: RetryConfig;
  readonly maxInFlight: number;
  readonly maxPerHost: number;
  readonly maxPerQueue: number;
  /** Longest sleep between looks at the store when nothing is known to be due. */
  readonly idlePollMs: number;
  readonly userAgent: string;
  readonly random?: () => number;
  /**
   * The shards whose work this engine may claim, asked before every claim; omitted means all work in storage
   * (one delivering process). An empty scope claims nothing, e.g. while a rebalance is under way.
   */
  readonly shards?: () => ShardScope;
  /** The deployment's shard count, which places a callback on its request's shard; 1 (the default) without shards. */
  readonly shardCount?: number;
  /**
   * The flow-control budgets every attempt must fit (its queue's and its flow keys'); omitted, only the global,
   * per-host and per-queue slots bound delivery.
   */
  readonly budgets?: BudgetGate;
  readonly onEvent?: (event: DeliveryEvent) => void;
}

/** A claim may outlive the longest attempt (5 minutes) by this much before another worker may take it over. */
const LEASE_MS = 6 * 60_000;
/** A claimed request that finds its host or queue busy this long is handed back so it does not hold a slot. */
const HAND_BACK_AFTER_MS = 2_000;
const HAND_BACK_DELAY_MS = 1_000;
/**
 * A store may report work due that a claim then finds gone: the timer of a request whose outcome just landed
 * lingers until its removal does. The next look comes this soon, doubling while looks keep finding nothing.
 */
const EMPTY_LOOK_RETRY_MS = 10;
/**
 * A storage call for a claimed request that fails (storage unreachable, say) is tried again after this backoff
 * (200–400 ms at first, up to 5 s; jittered, so the attempts caught by one outage do not all come back at once),
 * for as long as the claim's lease lasts: giving up would leave the request claimed and unsent, or sent and
 * without its outcome, until the lease ran out.
 */
const STORAGE_RETRY: BackoffConfig = { baseMs: 400, capMs: 5_000 };
/** Requests made due in one store call when a budget resumes. */
const WAKE_BATCH = 500;

/**
 * Delivers due requests: claims them from the store (at most as many as there are free slots, so memory stays
 * bounded whatever the backlog), sends each attempt within the global, per-host and per-queue limits, and
 * records every outcome through the claim it came with (see `RequestStore`). A crash at any point leaves the
 * request claimable again.
 */
export class DeliveryEngine {
  private readonly limits: ConcurrencyLimits;
  private readonly waiting = new WaitingRoom();
  private readonly settled = new Set<Promise<void>>();
  private timer: TimerHandle | undefined;
  /** When the armed timer fires; +Infinity when none is armed. */
  private timerAt = Number.POSITIVE_INFINITY;
  /**
   * Whether the last look at the store found more due work than free slots. Only then can a finished attempt let
   * more work start; otherwise the armed timer (the next due time) already stands for everything known.
   */
  private starved = false;
  /** The earliest work this engine made due while a look was under way; that look may have missed it. */
  private ownDueAt = Number.POSITIVE_INFINITY;
  /** Whether this look was started by the timer armed for a known due time: it need not ask for one first. */
  private dueNow = false;
  /** Looks in a row that expected due work and claimed none (see `EMPTY_LOOK_RETRY_MS`). */
  private emptyLooks = 0;
  private ticking = false;
  private again = false;
  /** Set once the shutdown grace ran out: attempts in flight were aborted, and none may start after them. */
  private aborting = false;
  /** Aborted when the engine stops; it also ends the waits between storage retries at once. */
  private readonly stopped = new AbortController();

  /** Free slots worth a claim of their own when attempts finish. */
  private readonly claimBatch: number;
  /** Opens connections ahead of known due work; undefined when the store or the transport cannot. */
  private readonly warmUp: ConnectionWarmUp | undefined;

  constructor(private readonly o: DeliveryEngineOptions) {
    const gate = o.budgets;
    // A queue whose configuration sets a concurrency is bounded by its budget instead of the process-wide per-queue
    // bound: the budget hands a request over its limit back at once, where the waiting room would keep it claimed
    // (for up to 2 s) and let a busy queue fill the room that other queues' work is claimed into.
    const queueBound = gate === undefined ? undefined : (queue: string): number | null => (gate.queueConcurrency(...splitQueueKey(queue)) === null ? null : Number.MAX_SAFE_INTEGER);
    this.limits = new ConcurrencyLimits(o.maxInFlight, o.maxPerHost, o.maxPerQueue, undefined, queueBound);
    this.claimBatch = Math.max(1, Math.min(64, Math.floor(o.maxInFlight / 8)));
    gate?.whenResumed((ids) => void this.wakeHeld(ids));
    this.warmUp = ConnectionWarmUp.possible(o.requests, o.transport)
      ? new ConnectionWarmUp({ ...o, onError: (err) => this.emit({ type: 'engine_error', error: `${String(err)} (opening connections ahead)` }) })
      : undefined;
  }

  start(): void {
    this.wake();
  }

  private get stopping(): boolean {
    return this.stopped.signal.aborted;
  }

  /** Looks for due work now, e.g. because a request was just accepted. */
  wake(): void {
    if (this.stopping) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.disarm();
    this.ownDueAt = Number.POSITIVE_INFINITY;
    this.ticking = true;
    void this.tick().finally(() => {
      this.ticking = false;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  /**
   * Stops claiming, lets attempts in flight finish within `graceMs`, then aborts the rest; unfinished and
   * waiting requests are handed back to the store, due at once, for the next process.
   */
  async stop(graceMs: number): Promise<void> {
    this.stopped.abort();
    this.disarm();
    this.warmUp?.stop();
    await Promise.all(this.waiting.takeAll().map((w) => this.handBack(w.claim, 0)));
    const deadline = this.o.clock.setTimer(() => {
      this.aborting = true;
      this.o.transport.abortInFlight();
    }, graceMs);
    while (this.settled.size > 0) await Promise.all([...this.settled]);
    deadline.cancel();
  }

  private async tick(): Promise<void> {
    try {
      this.handBackStale();
      const scope = this.o.shards?.();
      if (scope !== undefined && scope.length === 0) {
        this.schedule(this.o.idlePollMs);
        return;
      }
      const now = this.o.clock.now();
      const dueNow = this.dueNow;
      this.dueNow = false;
      const next = dueNow ? now : await this.o.requests.nextDueAt(scope);
      this.warmUp?.expect(next);
      const free = this.freeSlots();
      if (next !== null && next <= now && free > 0) {
        const claimed = await this.o.requests.claimDue(now, free, now + LEASE_MS, scope);
        this.starved = claimed.length >= free;
        for (const c of claimed) this.enqueue(c);
        this.dispatch();
        // Look again at once: more may have fallen due (or, when the due time was only assumed, to learn the next
        // one); finishing attempts also wake the engine.
        if (claimed.length < free && (claimed.length > 0 || dueNow)) this.again = true;
        // A backlog: what just started leaves room for more to be claimed to wait for a slot, ready when one frees.
        else if (this.starved && this.freeSlots() >= this.claimBatch) this.again = true;
        else if (claimed.length === 0) this.schedule(Math.min(this.o.idlePollMs, EMPTY_LOOK_RETRY_MS * 2 ** Math.min(this.emptyLooks++, 16)));
        else this.schedule(this.o.idlePollMs);
        if (claimed.length > 0) this.emptyLooks = 0;
        return;
      }
      this.starved = next !== null && next <= now;
      if (!this.starved) this.emptyLooks = 0;
      const dueSoon = next !== null && free > 0 && next - now <= this.o.idlePollMs;
      this.schedule(dueSoon ? next - now : this.o.idlePollMs, dueSoon);
    } catch (err) {
      this.emit({ type: 'engine_error', error: String(err) });
      this.schedule(this.o.idlePollMs);
    }
  }

  private freeSlots(): number {
    return this.limits.claimable(this.waiting.size);
  }

  /** Arms the next look in `ms`; `forDue` says work is known to be due by then. */
  private schedule(ms: number, forDue = false): void {
    if (this.stopping) return;
    this.timer?.cancel();
    const now = this.o.clock.now();
    const own = this.ownDueAt - now < ms;
    const wait = Math.max(0, own ? this.ownDueAt - now : ms);
    this.timerAt = now + wait;
    this.timer = this.o.clock.setTimer(() => {
      this.dueNow = forDue || own;
      this.wake();
    }, wait);
  }

  private disarm(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
  }

  /** Work this engine itself made due at `dueAt` (a retry, a hand-back): looks for it then at the latest. */
  private dueAgainAt(dueAt: number | null): void {
    if (dueAt === null || this.stopping) return;
    const now = this.o.clock.now();
    if (dueAt <= now) this.wake();
    else if (this.ticking) this.ownDueAt = Math.min(this.ownDueAt, dueAt);
    else if (dueAt < this.timerAt) this.schedule(dueAt - now, true);
  }

  private enqueue(claim: Claim): void {
    const r = claim.request;
    this.waiting.add({ claim, host: hostOf(r.url), queue: `${r.projectId}/${r.queue}`, since: this.o.clock.now() });
  }

  /**
   * Starts every waiting request whose host and queue have a free slot, oldest claim first, when its budgets admit
   * it; one they hold back is handed back, due when they will (see `src/domain/flow/`), so it takes no slot meanwhile.
   */
  private dispatch(): void {
    for (let w = this.waiting.next(this.limits); w !== undefined; w = this.waiting.next(this.limits)) {
      const { host, queue } = w;
      const gate = this.o.budgets;
      const budgets = gate?.budgetsOf(w.claim.request);
      const startedAt = this.o.clock.now();
      if (gate !== undefined && budgets !== undefined) {
        const admission = gate.admit(w.claim.request, budgets, startedAt);
        if (!admission.start) {
          this.track(this.holdBack(w.claim, admission));
          continue;
        }
        gate.started(w.claim.request.id, budgets, startedAt);
      }
      this.limits.start(host, queue);
      let exchanging = true;
      // Called once: when the destination has answered, or at the end when no exchange took place. Its slots are
      // free from then on; the request stays claimed (in the store and here) until its outcome is written.
      const exchanged = (): void => {
        if (!exchanging) return;
        exchanging = false;
        this.limits.exchanged(host, queue);
        if (budgets !== undefined) gate?.exchanged(budgets, this.o.clock.now() - startedAt);
        if (!this.stopping) {
          this.dispatch();
          this.claimMoreIfStarved();
        }
      };
      this.track(
        this.deliver(w.claim, exchanged, budgets)
          .catch((err: unknown) => this.emit({ type: 'engine_error', error: String(err) }))
          .finally(() => {
            exchanged();
            this.limits.recorded();
            if (!this.stopping) this.claimMoreIfStarved();
          }),
      );
    }
  }

  /**
   * Claims in batches: one claim per finished attempt would be one store write per delivery. Without a backlog the
   * next due time is armed already, and a look at the store now would find nothing.
   */
  private claimMoreIfStarved(): void {
    if (!this.starved) return;
    const free = this.freeSlots();
    if (free >= this.claimBatch || (free > 0 && this.limits.inFlight === 0 && this.limits.recording === 0)) this.wake();
  }

  private handBackStale(): void {
    const stale = this.waiting.takeWaitingSince(this.o.clock.now() - HAND_BACK_AFTER_MS);
    for (const w of stale) this.track(this.handBack(w.claim, HAND_BACK_DELAY_MS));
  }

  /** Work on a claimed request (an attempt and its record, a hand-back) that `stop` waits for. */
  private track(work: Promise<void>): void {
    const done = work.finally(() => this.settled.delete(done));
    this.settled.add(done);
  }

  /** Makes the requests a resumed budget held back due now, and looks for them. */
  private async wakeHeld(ids: readonly string[]): Promise<void> {
    try {
      for (let i = 0; i < ids.length; i += WAKE_BATCH) await this.o.requests.wakeHeld(ids.slice(i, i + WAKE_BATCH), this.o.clock.now());
      this.wake();
    } catch (err) {
      // They come back on their own when their recheck falls due (a minute at most).
      this.emit({ type: 'engine_error', error: `${String(err)} (waking requests a resumed budget held)` });
    }
  }

  /** Hands back a request its budgets hold back, due when they will admit it, saying which one holds it. */
  private async holdBack(claim: Claim, held: Exclude<Admission, { start: true }>): Promise<void> {
    const r = claim.request;
    this.emit({ type: 'attempt_held', requestId: r.id, projectId: r.projectId, queue: r.queue, reason: held.waitingFor.reason });
    await this.handBack(claim, Math.max(0, held.until - this.o.clock.now()), held.waitingFor);
  }

  private async handBack(claim: Claim, delayMs: number, waitingFor: WaitingFor | null = null): Promise<void> {
    const now = this.o.clock.now();
    try {
      await this.whileLeased(claim, () => this.o.requests.handBack(claim, now, now + delayMs, waitingFor));
      this.dueAgainAt(now + delayMs);
    } catch (err) {
      // A conflict means someone else moved the request on (a cancel, a new owner); nothing to give back.
      if (!(err instanceof VersionConflict)) this.emit({ type: 'engine_error', error: String(err) });
    }
  }

  /** Delivers one claimed request; `exchanged` is called when the attempt's exchange ends (not when none is sent). */
  private async deliver(claim: Claim, exchanged: () => void, budgets: readonly NamedBudget[] | undefined): Promise<void> {
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
      this.emit({ type: 'engine_error', error: String(err) });
      await this.handBack(claim, HAND_BACK_DELAY_MS);
      return;
    }
    if (this.aborting) {
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
    this.emit({ type: 'attempt_started', requestId: claimed.id, attemptNumber, at: now, dueAt: attemptNumber === 1 ? (claimed.scheduledAt ?? claimed.createdAt) : null, queue: claimed.queue });
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
        this.dueAgainAt(recorded.dueAt);
        this.emit({
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
          this.emit({ type: 'claim_lost', requestId: claim.request.id });
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
        if (err instanceof VersionConflict || this.stopping || this.o.clock.now() + wait >= leaseEnd) throw err;
        if (failures === 1) this.emit({ type: 'engine_error', error: `${String(err)} (request ${claimed.id}; trying again while its claim lasts)` });
        await this.o.clock.sleep(wait, this.stopped.signal);
      }
    }
  }

  private emit(event: DeliveryEvent): void {
    this.o.onEvent?.(event);
  }
}

/** The waiting room's queue key (`projectId/queue`) as its two parts; project IDs hold no `/`. */
function splitQueueKey(key: string): [projectId: string, queue: string] {
  const slash = key.indexOf('/');
  return [key.slice(0, slash), key.slice(slash + 1)];
}
