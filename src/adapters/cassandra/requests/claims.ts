import type { Clock } from '../../../domain/clock.js';
import { backoffDelayMs, type BackoffConfig } from '../../../domain/delivery/backoff.js';
import type { StoredRequest } from '../../../domain/request.js';
import { applied, claimed, isLeased, isTerminal, leaseReleased, type Transition } from '../../../domain/request-lifecycle/index.js';
import { takeUpTo, type InFlight } from '../shared/concurrency.js';
import { EMPTY_BUCKET_AGE_MS, compareTimers, type TimerEngine } from '../timers/engine.js';
import { CassandraClaim, type ClaimsOut } from './claim.js';
import type { ClaimChanges } from './claim-changes.js';
import type { DueSoon } from './due-soon.js';
import type { RequestRows } from './rows.js';
import { REQUEST_TIMERS, matchesTimer, type RequestTimer } from './timers.js';

/** What claims change requests through, as the shard's owner: `RequestChanges`. */
export interface OwnerChanges {
  /** The epoch to note with a request read or claimed now in `shard`; null when this process does not hold it. */
  basis(shard: number): number | null;
  /** `change` applied to `current`, read or claimed under `basis`; null, writing nothing, when the shard moved since. */
  apply(current: StoredRequest, change: Transition, asOf: number, basis: number, during: string): Promise<StoredRequest | null>;
  /** A request found ended behind a stale timer: its retention rewrite is made (again), then the timer dropped. */
  endedLongAgo(r: StoredRequest, timer: RequestTimer, asOf: number, basis: number): void;
}

/** Remembered work never keeps the timers unscanned longer than this (see `claimDue`). */
const SCAN_EVERY_MS = 1_000;

/**
 * How soon remembered work must be due for `nextDueAt` to answer with it without reading the timers: work in the
 * timers due sooner still is found by the claim's own scan, at most `SCAN_EVERY_MS` later.
 */
const REMEMBERED_ENOUGH_MS = 100;

/** Claims (a read, and for a claim stored at once a write) running at once in one `claimDue`. */
const CLAIM_CONCURRENCY = 16;
const RELEASE_CONCURRENCY = 16;
const LEASE_PAGE = 200;
/** Timers read at a time when looking for the next due time (past those of held claims). */
const NEXT_DUE_PAGE = 64;
/** How soon a stored claim whose fate is unknown is looked at again (see `undoUnseen`). */
const UNDO_BACKOFF: BackoffConfig = { baseMs: 1_000, capMs: 5_000 };

/**
 * How many listed buckets per shard `nextDueAt` looks at: its horizon. More than the empty buckets a shard may
 * list before its first due timer (those younger than `EMPTY_BUCKET_AGE_MS`, plus the current one).
 */
export const NEXT_DUE_BUCKETS = EMPTY_BUCKET_AGE_MS / REQUEST_TIMERS.buckets.ms + 6;

/**
 * How long a timer that no longer matches its request is left alone. A change writes its new timer before the
 * request itself, so for a moment a fresh timer looks stale; one this far past due is surely abandoned.
 */
const STALE_TIMER_AGE_MS = 60_000;

/**
 * Due work: finds it through the timers and takes it, held in this process or with a write to the request. Only
 * the shard's owner claims, so claims exclude each other within the process, not in storage: a claim passes over
 * the timers another claim is reading (`claiming`), and those of requests whose claims are in hand here (see
 * `ClaimsOut`).
 */
export class RequestClaims {
  /** Timers a claim of this process is reading or storing: a second claim of one of them passes over it. */
  private readonly claiming = new Set<string>();
  /** When the timers were last scanned for due work (see `claimDue`). */
  private scannedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly rows: RequestRows,
    private readonly timers: TimerEngine<RequestTimer>,
    private readonly changes: OwnerChanges,
    private readonly inFlight: InFlight,
    /** The claims handed out and not changed yet. */
    private readonly out: ClaimsOut,
    /** Holds claims, and knows whether a new one may be held. */
    private readonly held: ClaimChanges,
    private readonly clock: Clock,
    /** The owner's working set: requests it may claim without reading (see `WorkingSet`). */
    private readonly dueSoon: DueSoon,
    /**
     * True while this process is writing request `id` as accepted: its timer may be seen before it.
     */
    private readonly beingAccepted: (id: string) => boolean,
  ) {}

  /** Claims of due requests, in due order, each handed out (see `ClaimsOut`). */
  async claimDue(now: number, limit: number, leaseUntil: number, shards: readonly number[]): Promise<CassandraClaim[]> {
    if (limit <= 0) return [];
    const pageSize = Math.min(Math.max(limit, 16), 500);
    const scan = () => this.timers.scan(shards, { throughBucket: this.timers.buckets.of(now), dueBy: now, forget: true }, pageSize);
    const remembered = this.dueSoon.due(now, new Set(shards), limit);
    // Remembered work alone when there is some, the timers when there is none; but the timers first at least every
    // `SCAN_EVERY_MS`, so a steady stream of remembered work keeps retries and work accepted elsewhere waiting no
    // longer than that. A scan of a busy shard reads past the tombstones of the work just done, so it is not made
    // for what memory already answers.
    const scanFirst = now - this.scannedAt >= SCAN_EVERY_MS;
    const due = scanFirst ? chain(this.scanning(scan, now), remembered) : remembered.length > 0 ? chain(remembered) : this.scanning(scan, now);
    const { taken, failure } = await takeUpTo(due, limit, CLAIM_CONCURRENCY, (timer) => this.claim(timer, now, leaseUntil));
    // Claims already made stand: their requests would otherwise wait out the lease.
    if (failure !== null && taken.length === 0) throw failure.error;
    return taken.sort((a, b) => compareTimers(a.timer, b.timer)).map(({ claim }) => claim);
  }

  /**
   * Runs `work`, a change of the request of `timer` made without a claim (a wake, see `HeldWakes`), as a claim of
   * that timer runs: no claim of it starts meanwhile. Null, without running it, when a claim of the timer is under
   * way or a claim of the request is out here: the request is that claim's to change.
   */
  async asClaimOf<T>(timer: RequestTimer, work: () => Promise<T>): Promise<T | null> {
    const key = `${timer.id}@${timer.dueAt}`;
    if (this.claiming.has(key) || this.out.isOut(timer.id)) return null;
    this.claiming.add(key);
    try {
      return await work();
    } finally {
      this.claiming.delete(key);
    }
  }

  /** `scan`, noting when it was started. */
  private async *scanning(scan: () => AsyncGenerator<RequestTimer>, now: number): AsyncGenerator<RequestTimer> {
    this.scannedAt = now;
    yield* scan();
  }

  async nextDueAt(shards: readonly number[]): Promise<number | null> {
    // Remembered work due within a moment answers at once: the claim that follows scans the timers when due to.
    const remembered = this.dueSoon.earliest();
    if (remembered !== null && remembered <= this.clock.now() + REMEMBERED_ENOUGH_MS) return remembered;
    const earliest = await Promise.all(shards.map((shard) => this.nextDueIn(shard)));
    const times = [...earliest, remembered].filter((t) => t !== null);
    return times.length === 0 ? null : Math.min(...times);
  }

  async releaseLeases(now: number, shards: readonly number[]): Promise<number> {
    const leases = this.timers.marked(shards, LEASE_PAGE);
    const { taken, failure } = await takeUpTo(leases, Infinity, RELEASE_CONCURRENCY, (timer) => this.release(timer, now));
    if (failure !== null) throw failure.error;
    return taken.length;
  }

  /**
   * Claims the request of `timer`: held in this process when it can be (see `ClaimChanges`), otherwise stored at
   * once. An expired lease is always taken over with a stored claim, which fences the worker that held it.
   */
  private async claim(timer: RequestTimer, now: number, leaseUntil: number): Promise<{ claim: CassandraClaim; timer: RequestTimer } | null> {
    // By timer, not by request: a request's stale timer, read at once beside its live one, must not block it. Two
    // different timers of one request never both match the state a claim reads (see `matchesTimer`).
    const key = `${timer.id}@${timer.dueAt}`;
    if (this.passOver(timer) || this.claiming.has(key)) return null;
    this.claiming.add(key);
    try {
      return await this.claimOnce(timer, now, leaseUntil);
    } finally {
      this.claiming.delete(key);
    }
  }

  private async claimOnce(timer: RequestTimer, now: number, leaseUntil: number): Promise<{ claim: CassandraClaim; timer: RequestTimer } | null> {
    const basis = this.changes.basis(timer.shard);
    if (basis === null) return null;
    const asOf = this.timers.stamp();
    const current = await this.current(timer, now, basis, 'claiming a request');
    // A claim of this process may have been made, or a change of one begun, during the read.
    if (current === null || this.out.inHand(current.id)) return null;
    const change = claimed(now, leaseUntil);
    // An expired lease is taken over with a stored claim: it fences the worker that held it.
    if (!isLeased(current.status) && this.held.holding) {
      const claim = new CassandraClaim(applied(current, change), basis, { status: current.status, dueAt: current.dueAt }, true);
      this.held.hold(claim);
      return { timer, claim };
    }
    const request = await this.changes.apply(current, change, asOf, basis, 'claiming a request').catch((err: unknown) => {
      this.inFlight.background(() => this.undoUnseen(applied(current, change), basis));
      throw err;
    });
    if (request === null) return null;
    const claim = new CassandraClaim(request, basis, null, false);
    this.out.handOut(claim);
    return { timer, claim };
  }

  /**
   * A stored claim that failed may have landed all the same (the answer was lost, and so was the read that would
   * have told). No worker holds it, so once storage answers, a claim found as it was written is made due at once,
   * as a released lease is; otherwise the request would wait out the lease.
   */
  private async undoUnseen(claimed: StoredRequest, basis: number): Promise<void> {
    const signal = this.inFlight.closingSignal;
    for (let tries = 1; !signal.aborted && this.clock.now() < (claimed.dueAt ?? 0); tries++) {
      await this.clock.sleep(backoffDelayMs(tries, UNDO_BACKOFF, Math.random), signal);
      if (signal.aborted) return;
      try {
        const asOf = this.timers.stamp();
        const seen = await this.rows.request(claimed.id, 'undoing a claim');
        if (seen !== null && seen.version === claimed.version && isLeased(seen.status) && seen.dueAt === claimed.dueAt) {
          await this.changes.apply(seen, leaseReleased(this.clock.now()), asOf, basis, 'undoing a claim');
        }
        return;
      } catch {
        // Storage still away: look again later, while the lease lasts.
      }
    }
  }

  private async release(timer: RequestTimer, now: number): Promise<StoredRequest | null> {
    // Already due now: released by this very call (its new lease timer is scanned too) or by one just before.
    if (timer.dueAt === now) return null;
    const basis = this.changes.basis(timer.shard);
    if (basis === null) return null;
    const asOf = this.timers.stamp();
    const current = await this.current(timer, now, basis, 'releasing a lease');
    if (current === null || !isLeased(current.status)) return null;
    const released = await this.changes.apply(current, leaseReleased(now), asOf, basis, 'releasing a lease');
    // A claim of it still out here, from before, can record nothing over the next claim.
    if (released !== null) this.out.fence(released.id);
    return released;
  }

  /**
   * The request of `timer` if the timer still stands for it; drops the timer when it is surely stale. The stale
   * timer of an ended request may be all that is left of a retention rewrite that failed or was cut short by a
   * crash, so that rewrite is made (again) before the timer goes. Like every deletion a scan decides on, the
   * timer's is dated a minute back (`sweepStamp`).
   */
  private async current(timer: RequestTimer, now: number, basis: number, during: string): Promise<StoredRequest | null> {
    const mine = this.dueSoon.take(timer.id);
    // Written by this process while it held the shard, and held without a break since: nobody else changed it.
    if (mine !== undefined && mine.basis === basis && matchesTimer(mine.request, timer)) return mine.request;
    const r = await this.rows.request(timer.id, during);
    if (r !== null && matchesTimer(r, timer)) return r;
    if (timer.dueAt >= now - STALE_TIMER_AGE_MS) return null;
    if (r !== null && isTerminal(r.status)) this.changes.endedLongAgo(r, timer, this.timers.sweepStamp(), basis);
    else this.timers.remove(timer, this.timers.sweepStamp());
    return null;
  }

  /**
   * The earliest timer among the first `NEXT_DUE_BUCKETS` listed buckets of a shard, leaving out those of claims
   * this process has in hand (their requests are being delivered). A timer being removed or written is not left out:
   * passing over it here (reading on through its bucket) cost more reads than the short look it may cause. When all
   * of those buckets are empty, the time a claim may drop the first of them: the claim then brings later timers
   * within reach (and claims any due ones itself, as its scan is not limited to these buckets). Buckets are read
   * from their floors, as a claim's scan reads them.
   */
  private async nextDueIn(shard: number): Promise<number | null> {
    const limits = { throughBucket: this.timers.buckets.last, dueBy: Number.MAX_SAFE_INTEGER, forget: false, buckets: NEXT_DUE_BUCKETS };
    const scan = this.timers.shardScan(shard, limits, NEXT_DUE_PAGE);
    let anyTimer = false;
    for await (const timer of scan) {
      if (!this.out.inHand(timer.id)) return timer.dueAt;
      anyTimer = true;
    }
    const first = scan.firstBucket;
    return first === undefined || anyTimer ? null : this.timers.buckets.start(first + 1) + EMPTY_BUCKET_AGE_MS;
  }

  /**
   * Timers of claims this process has in hand, of requests it is writing as accepted, and timers it is removing:
   * none has work for a claim yet or any more.
   */
  private passOver(timer: RequestTimer): boolean {
    return this.out.inHand(timer.id) || this.beingAccepted(timer.id) || this.timers.pending(timer);
  }
}

/** `first`, then `second` if given; `second` is not started unless `first` runs out. */
async function* chain<T>(first: Iterable<T> | AsyncIterable<T>, second: Iterable<T> | AsyncIterable<T> = []): AsyncGenerator<T> {
  yield* first;
  yield* second;
}
