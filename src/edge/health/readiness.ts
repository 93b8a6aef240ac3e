import type { Clock } from '../../domain/clock.js';

/** One dependency the process needs to take work: resolves when it can, rejects with the reason when it cannot. */
export interface ReadinessCheck {
  /** How the check is named in reports: `storage`, `kafka`. */
  readonly name: string;
  probe(): Promise<void>;
}

/** What one check found: `timeout` when the probe did not answer in time, `failed` when it rejected. */
export type CheckState = 'ok' | 'timeout' | 'failed';

export interface ReadinessReport {
  /** True when every check is `ok` and the process is not draining. */
  readonly ready: boolean;
  readonly draining: boolean;
  /** Every check by name, in the order given. */
  readonly checks: ReadonlyArray<{ readonly name: string; readonly state: CheckState }>;
}

export interface ReadinessOptions {
  /** A probe that has not answered after this long counts as failing. Default 1500 ms. */
  readonly timeoutMs?: number;
  /** How long an answer is reused before the check is probed again. Default 1000 ms. */
  readonly cacheMs?: number;
  /** Told when a check's state changes, with the probe's own reason when it failed: for the service log. */
  readonly onCheckChanged?: (name: string, state: CheckState, reason: string | null) => void;
}

interface Outcome {
  readonly state: CheckState;
  readonly reason: string | null;
}

/**
 * One check's probe, bounded and cached: a probe storm costs storage at most one probe per cache period, and a
 * probe that hangs is never joined by a second one. Until it settles, the check keeps answering `timeout`.
 */
class BoundedCheck {
  private last: { readonly outcome: Outcome; readonly at: number } | null = null;
  /** The answer of the probe under way, shared by every caller until it comes or its time is up. */
  private round: Promise<Outcome> | null = null;
  /** The probe under way, which may outlive its time limit. */
  private running: Promise<Outcome> | null = null;

  constructor(
    private readonly check: ReadinessCheck,
    private readonly clock: Clock,
    private readonly timeoutMs: number,
    private readonly cacheMs: number,
    private readonly changed: (outcome: Outcome) => void,
  ) {}

  current(): Promise<Outcome> {
    const last = this.last;
    if (last !== null && this.clock.now() - last.at < this.cacheMs) return Promise.resolve(last.outcome);
    if (this.round !== null) return this.round;
    // A probe past its time limit is still under way: it stays a timeout until it settles.
    if (this.running !== null && last !== null) return Promise.resolve(last.outcome);
    const probe = this.probe();
    this.running = probe;
    this.round = new Promise<Outcome>((resolve) => {
      const timer = this.clock.setTimer(() => {
        this.round = null;
        const outcome = this.timedOut();
        this.remember(outcome);
        resolve(outcome);
      }, this.timeoutMs);
      void probe.then((outcome) => {
        timer.cancel();
        this.running = null;
        this.round = null;
        this.remember(outcome);
        resolve(outcome);
      });
    });
    return this.round;
  }

  private async probe(): Promise<Outcome> {
    try {
      await this.check.probe();
      return { state: 'ok', reason: null };
    } catch (err) {
      return { state: 'failed', reason: err instanceof Error ? err.message : String(err) };
    }
  }

  private timedOut(): Outcome {
    return { state: 'timeout', reason: `no answer within ${this.timeoutMs} ms` };
  }

  private remember(outcome: Outcome): void {
    // The first answer is news only when it is bad.
    const before = this.last?.outcome.state ?? 'ok';
    this.last = { outcome, at: this.clock.now() };
    if (before !== outcome.state) this.changed(outcome);
  }
}

/**
 * Whether this process should be sent work: its dependencies answer and it is not shutting down. Liveness needs
 * none of this; any answer at all shows that the event loop runs.
 */
export class Readiness {
  private readonly checks: ReadonlyArray<{ readonly name: string; readonly check: BoundedCheck }>;
  private drainingSince: number | null = null;
  private readonly drainListeners = new Set<() => void>();

  constructor(
    checks: readonly ReadinessCheck[],
    private readonly clock: Clock,
    options: ReadinessOptions = {},
  ) {
    const timeoutMs = options.timeoutMs ?? 1_500;
    const cacheMs = options.cacheMs ?? 1_000;
    this.checks = checks.map((c) => ({
      name: c.name,
      check: new BoundedCheck(c, clock, timeoutMs, cacheMs, (o) => options.onCheckChanged?.(c.name, o.state, o.reason)),
    }));
  }

  get draining(): boolean {
    return this.drainingSince !== null;
  }

  /** From now on the process reports itself not ready, whatever its checks say; there is no way back. */
  startDraining(): void {
    if (this.drainingSince !== null) return;
    this.drainingSince = this.clock.now();
    for (const listener of [...this.drainListeners]) listener();
  }

  /** Every check's state, each answered within the time limit (so the whole report is too). */
  async report(): Promise<ReadinessReport> {
    const states = await Promise.all(this.checks.map(async (c) => ({ name: c.name, state: (await c.check.current()).state })));
    return { ready: !this.draining && states.every((s) => s.state === 'ok'), draining: this.draining, checks: states };
  }

  /**
   * Resolves after `ms`, at once when draining begins, or when `signal` aborts: how a watcher waits before it
   * looks again, so that the start of a drain reaches it without delay.
   */
  async pause(ms: number, signal: AbortSignal): Promise<void> {
    if (this.draining || signal.aborted) return;
    const woken = new AbortController();
    const wake = (): void => woken.abort();
    this.drainListeners.add(wake);
    signal.addEventListener('abort', wake, { once: true });
    try {
      await this.clock.sleep(ms, woken.signal);
    } finally {
      this.drainListeners.delete(wake);
      signal.removeEventListener('abort', wake);
    }
  }
}
