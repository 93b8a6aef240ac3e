import { factorAt, FULL_RATE, pushedBack, succeeded, type AdaptiveRate } from './adaptive-rate.js';
import { NO_LIMITS, type BudgetLimits, type BudgetState, type HoldReason, type RateLimit } from './budgets.js';
import { earliestStart, emissionIntervalMs, FRESH_SCHEDULE, reserved, tokensAt, type RateSchedule } from './rate-schedule.js';

/** A promised start or a hold is forgotten this long after its time if its request never came back (cancelled). */
const FORGET_AFTER_MS = 60_000;
/** At most this many requests of one budget are promised a start; later ones come back unpromised (see `promise`). */
const MAX_PROMISES = 100_000;
/**
 * At most this many held requests of one budget are remembered (to be counted, and woken by a resume); later ones
 * still wait, but are not counted and come back on their own (see `admission.ts`).
 */
const MAX_HELD = 100_000;
/** The running mean of exchange durations gives this weight to the newest one. */
const DURATION_WEIGHT = 0.2;
const FIRST_DURATION_MS = 1_000;

/**
 * One budget as a delivering process holds it: its limits, the rate schedule with the starts it promised, the
 * attempts in flight, and the requests it holds back. `share` is the part of the limits this process enforces (1 on
 * one process; less when several processes deliver the budget's requests, see the distributed notes).
 */
export class Budget {
  private limits: BudgetLimits = NO_LIMITS;
  private share = 1;
  /** Starts planned: the ones made and the ones promised. Held requests are handed back due at their promise. */
  private schedule: RateSchedule = FRESH_SCHEDULE;
  /**
   * Starts made, on the same bucket: a promise is a plan, and its request may come back late (a claim takes a
   * moment, more under load); many promised requests coming back late together must still start no faster than
   * the rate and burst allow, so every start is also measured against what really started.
   */
  private meter: RateSchedule = FRESH_SCHEDULE;
  private adaptive: AdaptiveRate = FULL_RATE;
  private periodIndex = 0;
  private periodStarts = 0;
  private meanDurationMs = FIRST_DURATION_MS;
  inFlight = 0;
  paused = false;
  /** Requests promised a start, and when; made at the first promise (most budgets never promise, and keys are many). */
  private promised: Map<string, number> | null = null;
  /** Requests held back (handed back to storage until `until`), and why. */
  private held: Map<string, { reason: HoldReason; until: number }> | null = null;

  /**
   * Applies stored limits and pause; `share` as above. A changed rate starts a fresh schedule. Answers the requests
   * held back by the pause when this resumes it, so they can be made due at once.
   */
  configure(limits: BudgetLimits, paused: boolean, share = 1): string[] {
    if (!sameRate(limits.rate, this.limits.rate)) {
      // A new rate starts a fresh bucket, as a new configuration would.
      this.promised = null;
      this.schedule = this.meter = FRESH_SCHEDULE;
    } else if (share !== this.share) this.forgetPromises();
    const resumed = this.paused && !paused;
    this.limits = limits;
    this.paused = paused;
    this.share = share;
    if (!resumed || this.held === null) return [];
    const woken: string[] = [];
    for (const [id, h] of this.held) {
      if (h.reason !== 'paused') continue;
      woken.push(id);
      this.held.delete(id);
    }
    return woken;
  }

  get configured(): boolean {
    return this.limits.rate !== null || this.limits.concurrency !== null || this.paused;
  }

  /** The rate this process admits at `now` (after `share` and any slow-down), or null without a rate. */
  rateAt(now: number): RateLimit | null {
    const rate = this.limits.rate;
    if (rate === null) return null;
    const scale = this.share * this.factor(now);
    return { limit: rate.limit * scale, periodMs: rate.periodMs, burst: Math.max(1, Math.floor(rate.burst * scale)) };
  }

  /** Attempts this process lets be in flight at `now`, or null without a concurrency limit. */
  concurrencyAt(now: number): number | null {
    const c = this.limits.concurrency;
    return c === null ? null : Math.max(1, Math.floor(c * this.share * this.factor(now)));
  }

  concurrencyFull(now: number): boolean {
    const c = this.concurrencyAt(now);
    return c !== null && this.inFlight >= c;
  }

  /**
   * When the request may start as far as the rate goes: its promised time, or the schedule's earliest; and never
   * before the starts really made allow.
   */
  startAt(requestId: string, now: number): number {
    const rate = this.rateAt(now);
    if (rate === null) return now;
    const promise = this.promised?.get(requestId);
    const planned = promise !== undefined ? Math.max(now, promise) : earliestStart(this.schedule, rate, now);
    return Math.max(planned, earliestStart(this.meter, rate, now));
  }

  /**
   * Promises the request a start at `at` (≥ `startAt`). Past `MAX_PROMISES` the request is not remembered and will
   * ask again when it comes back, after the promised ones: the order holds, only the memory is bounded.
   */
  promise(requestId: string, at: number, now: number): void {
    const rate = this.rateAt(now);
    if (rate === null || this.promised?.has(requestId) === true) return;
    this.schedule = reserved(this.schedule, rate, at);
    this.promised ??= new Map();
    if (this.promised.size < MAX_PROMISES) this.promised.set(requestId, at);
  }

  hold(requestId: string, reason: HoldReason, until: number): void {
    this.held ??= new Map();
    if (this.held.size < MAX_HELD || this.held.has(requestId)) this.held.set(requestId, { reason, until });
  }

  /** An attempt of the request starts at `now`: it takes its promised start, or the next one now. */
  started(requestId: string, now: number): void {
    this.held?.delete(requestId);
    const rate = this.rateAt(now);
    if (rate !== null) {
      if (this.promised?.delete(requestId) !== true) this.schedule = reserved(this.schedule, rate, now);
      this.meter = reserved(this.meter, rate, now);
    }
    const index = this.limits.rate === null ? 0 : Math.floor(now / this.limits.rate.periodMs);
    if (index !== this.periodIndex) {
      this.periodIndex = index;
      this.periodStarts = 0;
    }
    this.periodStarts++;
    this.inFlight++;
  }

  /** The attempt's exchange ended after `durationMs`. */
  finished(durationMs: number): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    this.meanDurationMs += DURATION_WEIGHT * (durationMs - this.meanDurationMs);
  }

  /**
   * A destination answered 429 or 503. Promises made at the old rate are dropped (their requests ask again when
   * they come back) and the bucket is emptied.
   */
  pushedBack(now: number): void {
    if (!this.limits.adaptive || (this.limits.rate === null && this.limits.concurrency === null)) return;
    const before = this.adaptive;
    this.adaptive = pushedBack(this.adaptive, now);
    if (this.adaptive === before) return;
    // The bucket starts empty at the lower rate: the next start is one interval away, not a burst.
    this.promised = null;
    const rate = this.rateAt(now);
    this.schedule = rate === null ? FRESH_SCHEDULE : { tat: now + rate.burst * emissionIntervalMs(rate) };
    this.meter = this.schedule;
  }

  succeeded(now: number): void {
    this.adaptive = succeeded(this.adaptive, now);
  }

  /** How long a request held for concurrency should stay away: its turn among those held, at the mean duration. */
  concurrencyWaitMs(now: number): number {
    const c = this.concurrencyAt(now) ?? 1;
    let heldForIt = 0;
    for (const h of this.held?.values() ?? []) if (h.reason === 'concurrency' && h.until > now) heldForIt++;
    return Math.ceil((heldForIt + 1) / c) * this.meanDurationMs;
  }

  state(now: number): BudgetState {
    const waiting = { rate: 0, concurrency: 0, paused: 0 };
    for (const h of this.held?.values() ?? []) if (h.until + FORGET_AFTER_MS > now) waiting[h.reason]++;
    const rate = this.rateAt(now);
    const sameWindow = rate !== null && Math.floor(now / rate.periodMs) === this.periodIndex;
    return {
      inFlight: this.inFlight,
      startedInPeriod: rate === null ? null : sameWindow ? this.periodStarts : 0,
      waiting,
      admittedRate: rate === null ? null : round2(rate.limit),
    };
  }

  /** Starts the bucket can take now without waiting; for metrics and tests. */
  tokensAt(now: number): number | null {
    const rate = this.rateAt(now);
    return rate === null ? null : Math.min(tokensAt(this.schedule, rate, now), tokensAt(this.meter, rate, now));
  }

  /** Forgets promises and holds whose requests never came back; true when nothing is left to remember. */
  sweep(now: number): boolean {
    const promised = this.promised;
    const held = this.held;
    if (promised !== null) for (const [id, at] of promised) if (at + FORGET_AFTER_MS < now) promised.delete(id);
    if (held !== null) for (const [id, h] of held) if (h.until + FORGET_AFTER_MS < now) held.delete(id);
    if (promised?.size === 0) this.promised = null;
    if (held?.size === 0) this.held = null;
    return !this.configured && this.inFlight === 0 && this.promised === null && this.held === null;
  }

  private factor(now: number): number {
    return this.limits.adaptive ? factorAt(this.adaptive, now) : 1;
  }

  private forgetPromises(): void {
    this.promised = null;
    this.schedule = this.meter;
  }
}

function sameRate(a: RateLimit | null, b: RateLimit | null): boolean {
  return a === b || (a !== null && b !== null && a.limit === b.limit && a.periodMs === b.periodMs && a.burst === b.burst);
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
