import type { TimerHandle } from '../../domain/clock.js';
import type { Claim, ShardScope } from '../../ports/requests.js';
import { ClaimWork, HAND_BACK_DELAY_MS, type ClaimWorkOptions } from './claim-work.js';
import type { DeliveryEvent } from './events.js';
import { ConcurrencyLimits } from './limits.js';
import { WaitingRoom } from './waiting-room.js';
import { ConnectionWarmUp } from './warm-up.js';
import { hostOf } from './claimed.js';

export interface DeliveryEngineOptions extends ClaimWorkOptions {
  readonly maxInFlight: number;
  readonly maxPerHost: number;
  readonly maxPerQueue: number;
  /** Longest sleep between looks at the store when nothing is known to be due. */
  readonly idlePollMs: number;
  /**
   * The shards whose work this engine may claim, asked before every claim; omitted means all work in storage
   * (one delivering process). An empty scope claims nothing, e.g. while a rebalance is under way.
   */
  readonly shards?: () => ShardScope;
  readonly onEvent?: (event: DeliveryEvent) => void;
}

/** A claim may outlive the longest attempt (5 minutes) by this much before another worker may take it over. */
const LEASE_MS = 6 * 60_000;
/** A claimed request that finds its host or queue busy this long is handed back so it does not hold a slot. */
const HAND_BACK_AFTER_MS = 2_000;
/**
 * A store may report work due that a claim then finds gone: the timer of a request whose outcome just landed
 * lingers until its removal does. The next look comes this soon, doubling while looks keep finding nothing.
 */
const EMPTY_LOOK_RETRY_MS = 10;
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
  /** What each claimed request goes through once it has a slot. */
  private readonly work: ClaimWork;

  constructor(private readonly o: DeliveryEngineOptions) {
    const gate = o.budgets;
    // A queue whose configuration sets a concurrency is bounded by its budget instead of the process-wide per-queue
    // bound: the budget hands a request over its limit back at once, where the waiting room would keep it claimed
    // (for up to 2 s) and let a busy queue fill the room that other queues' work is claimed into.
    const queueBound = gate === undefined ? undefined : (queue: string): number | null => (gate.queueConcurrency(...splitQueueKey(queue)) === null ? null : Number.MAX_SAFE_INTEGER);
    this.limits = new ConcurrencyLimits(o.maxInFlight, o.maxPerHost, o.maxPerQueue, undefined, queueBound);
    this.claimBatch = Math.max(1, Math.min(64, Math.floor(o.maxInFlight / 8)));
    gate?.whenResumed((ids) => void this.wakeHeld(ids));
    this.work = new ClaimWork(o, {
      dueAgainAt: (dueAt) => this.dueAgainAt(dueAt),
      emit: (event) => this.emit(event),
      stopped: this.stopped.signal,
      aborting: () => this.aborting,
    });
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
    await Promise.all(this.waiting.takeAll().map((w) => this.work.handBack(w.claim, 0)));
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
          this.track(this.work.holdBack(w.claim, admission));
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
        this.work.deliver(w.claim, exchanged, budgets)
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
    for (const w of stale) this.track(this.work.handBack(w.claim, HAND_BACK_DELAY_MS));
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

  private emit(event: DeliveryEvent): void {
    this.o.onEvent?.(event);
  }
}

/** The waiting room's queue key (`projectId/queue`) as its two parts; project IDs hold no `/`. */
function splitQueueKey(key: string): [projectId: string, queue: string] {
  const slash = key.indexOf('/');
  return [key.slice(0, slash), key.slice(slash + 1)];
}
