import type { Clock } from '../../domain/clock.js';
import { backoffDelayMs, type BackoffConfig } from '../../domain/delivery/backoff.js';
import { isTerminal, type StoredRequest } from '../../domain/request.js';
import type { HeldClaims } from './held-claims.js';
import type { DueSoon } from './due-soon.js';
import { patched, type RequestChanges } from './request-changes.js';
import { takeUpTo, type InFlight } from './request-pool.js';
import type { RequestRows } from './request-rows.js';
import type { TimerRemovals } from './timer-removals.js';
import type { TimerFloors } from './timer-floors.js';
import { EMPTY_BUCKET_AGE_MS, FIRST_BUCKET, LAST_BUCKET, ShardDueTimers, earliestOf, inClaimOrder, leaseTimers, splitByFloor } from './timer-scan.js';
import { TIMER_BUCKET_MS, bucketStart, compareTimers, matchesTimer, type Timer, type TimerTable } from './timers.js';

/** A claimed request, and the shard epoch it was claimed under (see `RequestChanges.apply`). */
export interface Claimed {
  readonly request: StoredRequest;
  readonly basis: number;
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
/** Timers read at a time past those of held claims when looking for the next due time. */
const HELD_SKIP_PAGE = 64;
/** How soon a stored claim whose fate is unknown is looked at again (see `undoUnseen`). */
const UNDO_BACKOFF: BackoffConfig = { baseMs: 1_000, capMs: 5_000 };

/**
 * How many listed buckets per shard `nextDueAt` looks at: its horizon. More than the empty buckets a shard may
 * list before its first due timer (those younger than `EMPTY_BUCKET_AGE_MS`, plus the current one).
 */
export const NEXT_DUE_BUCKETS = EMPTY_BUCKET_AGE_MS / TIMER_BUCKET_MS + 6;

/**
 * How long a timer that no longer matches its request is left alone. A change writes its new timer before the
 * request itself, so for a moment a fresh timer looks stale; one this far past due is surely abandoned.
 */
const STALE_TIMER_AGE_MS = TIMER_BUCKET_MS;

/**
 * Due work: finds it through the timers and takes it, held in this process or with a write to the request. Only
 * the shard's owner claims, so claims exclude each other within the process (`claiming`), not in storage.
 */
export class RequestClaims {
  /** Timers a claim of this process is reading or storing: a second claim of one of them passes over it. */
  private readonly claiming = new Set<string>();
  /** When the timers were last scanned for due work (see `claimDue`). */
  private scannedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly rows: RequestRows,
    private readonly timers: TimerTable,
    private readonly changes: RequestChanges,
    private readonly inFlight: InFlight,
    private readonly removals: TimerRemovals,
    private readonly held: HeldClaims,
    private readonly floors: TimerFloors,
    private readonly clock: Clock,
    /** The owner's working set: requests it may claim without reading (see `WorkingSet`). */
    private readonly dueSoon: DueSoon,
    /**
     * True while this process is writing request `id` as accepted (its timer may be seen before it) or writing a
     * change of it (what a claim would read is about to be outdated).
     */
    private readonly beingWritten: (id: string) => boolean,
  ) {}

  /** Claimed requests, each with the shard epoch it was claimed under (see `RequestChanges.apply`). */
  async claimDue(now: number, limit: number, leaseUntil: number, shards: readonly number[]): Promise<Claimed[]> {
    if (limit <= 0) return [];
    const pageSize = Math.min(Math.max(limit, 16), 500);
    const scan = () => inClaimOrder(shards.map((shard) => new ShardDueTimers(this.timers, this.floors, this.inFlight, shard, now, pageSize)));
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
    return taken.sort((a, b) => compareTimers(a.timer, b.timer)).map(({ request, basis }) => ({ request, basis }));
  }

  /** `scan`, noting when it was started. */
  private async *scanning(scan: () => AsyncGenerator<Timer>, now: number): AsyncGenerator<Timer> {
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
    const leases = leaseTimers(this.timers, shards, LEASE_PAGE);
    const { taken, failure } = await takeUpTo(leases, Infinity, RELEASE_CONCURRENCY, (timer) => this.release(timer, now));
    if (failure !== null) throw failure.error;
    return taken.length;
  }

  /**
   * Claims the request of `timer`: held in this process when it can be (see `HeldClaims`), otherwise stored at
   * once. An expired lease is always taken over with a stored claim, which fences the worker that held it.
   */
  private async claim(timer: Timer, now: number, leaseUntil: number): Promise<(Claimed & { timer: Timer }) | null> {
    // By timer, not by request: a request's stale timer, read at once beside its live one, must not block it. Two
    // different timers of one request never both match the state a claim reads (see `matchesTimer`).
    const key = `${timer.requestId}@${timer.dueAt}`;
    if (this.passOver(timer) || this.claiming.has(key)) return null;
    this.claiming.add(key);
    try {
      return await this.claimOnce(timer, now, leaseUntil);
    } finally {
      this.claiming.delete(key);
    }
  }

  private async claimOnce(timer: Timer, now: number, leaseUntil: number): Promise<(Claimed & { timer: Timer }) | null> {
    const basis = this.changes.basis(timer.shard);
    if (basis === null) return null;
    const asOf = this.timers.deletionTime();
    const current = await this.current(timer, now, asOf, basis, 'claiming a request');
    // A concurrent claim of this process may have taken it during the read, or a change of it may have landed.
    if (current === null || this.held.holds(current.id) || this.held.outdated(current)) return null;
    const patch = { status: 'delivering', dueAt: leaseUntil, updatedAt: now, startedAt: current.startedAt ?? now } as const;
    if (current.status !== 'delivering' && this.held.accepting) {
      const claimed = patched(current, patch);
      this.held.hold({ stored: current, claimed, patch, basis });
      return { timer, request: claimed, basis };
    }
    const claimed = await this.changes.apply(current, patch, asOf, basis, 'claiming a request').catch((err: unknown) => {
      this.inFlight.background(() => this.undoUnseen(patched(current, patch), basis));
      throw err;
    });
    return claimed === null ? null : { timer, request: claimed, basis };
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
        const asOf = this.timers.deletionTime();
        const seen = await this.rows.request(claimed.id, 'undoing a claim');
        if (seen !== null && seen.version === claimed.version && seen.status === 'delivering' && seen.dueAt === claimed.dueAt) {
          await this.changes.apply(seen, { dueAt: this.clock.now() }, asOf, basis, 'undoing a claim');
        }
        return;
      } catch {
        // Storage still away: look again later, while the lease lasts.
      }
    }
  }

  private async release(timer: Timer, now: number): Promise<StoredRequest | null> {
    // Already due now: released by this very call (its new lease timer is scanned too) or by one just before.
    if (timer.dueAt === now) return null;
    const basis = this.changes.basis(timer.shard);
    if (basis === null) return null;
    const asOf = this.timers.deletionTime();
    const current = await this.current(timer, now, asOf, basis, 'releasing a lease');
    if (current === null || current.status !== 'delivering') return null;
    return this.changes.apply(current, { dueAt: now }, asOf, basis, 'releasing a lease');
  }

  /**
   * The request of `timer` if the timer still stands for it; drops the timer when it is surely stale. The stale
   * timer of an ended request may be all that is left of a retention rewrite that failed or was cut short by a
   * crash, so that rewrite is made (again) before the timer goes.
   */
  private async current(timer: Timer, now: number, asOf: number, basis: number, during: string): Promise<StoredRequest | null> {
    const mine = this.dueSoon.take(timer.requestId);
    // Written by this process while it held the shard, and held without a break since: nobody else changed it.
    if (mine !== undefined && mine.basis === basis && matchesTimer(mine.request, timer)) return mine.request;
    const r = await this.rows.request(timer.requestId, during);
    if (r !== null && matchesTimer(r, timer)) return r;
    if (timer.dueAt >= now - STALE_TIMER_AGE_MS) return null;
    if (r !== null && isTerminal(r.status)) this.changes.endedLongAgo(r, timer, asOf, basis);
    else this.removals.remove(timer, asOf);
    return null;
  }

  /**
   * The earliest timer among the first listed buckets of a shard, leaving out those of claims this process holds
   * (their requests are being delivered). A timer being removed is not left out: passing over it here (reading
   * on through its bucket) cost more reads than the short look it may cause. When all of those buckets are empty, the time a claim may drop the first
   * of them: the claim then brings later timers within reach (and claims any due ones itself, as its scan is not
   * limited to these buckets). Buckets are read from their floors, as a claim's scan reads them (see `TimerFloors`).
   */
  private async nextDueIn(shard: number): Promise<number | null> {
    const buckets = await this.timers.buckets(shard, FIRST_BUCKET, LAST_BUCKET, NEXT_DUE_BUCKETS, 'finding the next due time');
    if (buckets.length === 0) return null;
    const { floored, unknown } = splitByFloor(this.floors, shard, buckets, this.floors.now());
    const earliest = await earliestOf(this.timers, this.floors, shard, unknown, 'finding the next due time');
    let anyTimer = earliest.size > 0;
    for (const bucket of buckets) {
      const first = earliest.get(bucket);
      if (first === undefined && !floored.has(bucket)) continue;
      if (first !== undefined && !this.held.holds(first.requestId)) return first.dueAt;
      const { unheld, any } = await this.firstUnheld(shard, bucket);
      anyTimer ||= any;
      if (unheld !== undefined) return unheld.dueAt;
    }
    return anyTimer ? null : bucketStart(buckets[0]! + 1) + EMPTY_BUCKET_AGE_MS;
  }

  /**
   * Timers of claims this process holds, of requests it is writing, and timers it is removing: none has work for
   * a claim yet or any more.
   */
  private passOver(timer: Timer): boolean {
    return this.held.holds(timer.requestId) || this.beingWritten(timer.requestId) || this.removals.pending(timer);
  }

  /** The first timer of a bucket that a claim would not pass over, read from the bucket's floor; and whether it holds any. */
  private async firstUnheld(shard: number, bucket: number): Promise<{ unheld: Timer | undefined; any: boolean }> {
    const start = this.floors.start(shard, bucket);
    for (let after = start; ; ) {
      const seenAt = this.floors.now();
      const page = await this.timers.due(shard, bucket, after, Number.MAX_SAFE_INTEGER, HELD_SKIP_PAGE, 'finding the next due time');
      if (after === start) this.floors.saw(shard, bucket, start, seenAt, page[0], Number.MAX_SAFE_INTEGER);
      const unheld = page.find((t) => !this.passOver(t));
      if (unheld !== undefined || page.length < HELD_SKIP_PAGE) return { unheld, any: page.length > 0 || after !== start };
      after = page.at(-1)!;
    }
  }
}

/** `first`, then `second` if given; `second` is not started unless `first` runs out. */
async function* chain<T>(first: Iterable<T> | AsyncIterable<T>, second: Iterable<T> | AsyncIterable<T> = []): AsyncGenerator<T> {
  yield* first;
  yield* second;
}
