import type { Clock, TimerHandle } from '../../domain/clock.js';
import type { AttemptOutcome } from '../../domain/delivery/outcome.js';
import { admit, type Admission, type NamedBudget } from '../../domain/flow/admission.js';
import { Budget } from '../../domain/flow/budget.js';
import { IDLE_STATE, type BudgetConfig, type BudgetKind, type BudgetState } from '../../domain/flow/budgets.js';
import type { StoredRequest } from '../../domain/request.js';
import type { BudgetStates, BudgetStore, PublishedBudgetState } from '../../ports/budgets.js';

export interface BudgetGateOptions {
  readonly budgets: BudgetStore;
  readonly clock: Clock;
  /**
   * The part of a budget's limits this process enforces (1 when it delivers alone); asked whenever a budget is
   * configured and every time the configurations are read again. See the distributed notes.
   */
  readonly shareOf?: (kind: BudgetKind, projectId: string, name: string) => number;
  readonly onError?: (error: unknown) => void;
}

/** How often a delivering process reads the budgets changed since its last look: a change anywhere holds within this. */
export const BUDGET_POLL_MS = 500;
/**
 * Each look reads back this far before the last one: a change stamped by another process whose clock runs behind
 * this one's is not missed. Changes read twice are applied twice, which changes nothing.
 */
const CLOCK_SKEW_MS = 10_000;
/** Budgets that count nothing any more and have no configuration are forgotten this often. */
const SWEEP_MS = 30_000;

/**
 * The flow-control budgets as this delivering process enforces them (`src/domain/flow/`): the stored
 * configurations, read at start and then every `BUDGET_POLL_MS`, and a live `Budget` for every queue and flow key
 * with work here. The delivery engine asks it before each attempt starts (`admit`), tells it when attempts start
 * and end, and what destinations answered; the API reads the live state through it (`stateOf`).
 */
export class BudgetGate implements BudgetStates {
  private readonly live = new Map<string, Budget>();
  private readonly configs = new Map<string, BudgetConfig>();
  private readSince = 0;
  private onResumed: ((requestIds: string[]) => void) | undefined;
  private timer: TimerHandle | undefined;
  private lastSweep = 0;
  private stopped = false;

  constructor(private readonly o: BudgetGateOptions) {}

  /** Reads every stored configuration, then keeps reading changes until `stop`. */
  async start(): Promise<void> {
    await this.poll();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
  }

  /** Who makes due at once the requests a pause held back here, when it is resumed (the delivery engine). */
  whenResumed(wake: (requestIds: string[]) => void): void {
    this.onResumed = wake;
  }

  /** A configuration changed in this process (through the API): it holds here at once, not at the next read. */
  changed(config: BudgetConfig): void {
    const key = keyOf(config.projectId, config.kind, config.name);
    const known = this.configs.get(key);
    if (known !== undefined && (known.updatedAt ?? 0) > (config.updatedAt ?? 0)) return;
    this.configs.set(key, config);
    this.apply(key, config);
  }

  private apply(key: string, config: BudgetConfig): void {
    const woken = this.live.get(key)?.configure(config, config.paused, this.shareOf(config.kind, config.projectId, config.name)) ?? [];
    if (woken.length > 0) this.onResumed?.(woken);
  }

  /** The budgets of a request, in the order they are asked: its queue, then its flow keys. */
  budgetsOf(r: Pick<StoredRequest, 'projectId' | 'queue' | 'flowKeys'>): NamedBudget[] {
    const list: NamedBudget[] = [{ kind: 'queue', name: r.queue, budget: this.budget(r.projectId, 'queue', r.queue) }];
    for (const key of r.flowKeys) list.push({ kind: 'flow_key', name: key, budget: this.budget(r.projectId, 'flow_key', key) });
    return list;
  }

  admit(r: StoredRequest, budgets: readonly NamedBudget[], now: number): Admission {
    return admit(budgets, r.id, now, r.waitingFor);
  }

  /** The attempt of `requestId` starts now under `budgets`. */
  started(requestId: string, budgets: readonly NamedBudget[], now: number): void {
    for (const b of budgets) b.budget.started(requestId, now);
  }

  /** Its exchange ended after `durationMs`. */
  exchanged(budgets: readonly NamedBudget[], durationMs: number): void {
    for (const b of budgets) b.budget.finished(durationMs);
  }

  /** What the destination answered: a 429 or 503 slows the budgets down, a success lets them climb back. */
  answered(budgets: readonly NamedBudget[], outcome: AttemptOutcome, now: number): void {
    if (outcome.kind !== 'response') return;
    const s = outcome.status;
    if (s === 429 || s === 503) for (const b of budgets) b.budget.pushedBack(now);
    else if (s >= 200 && s < 300) for (const b of budgets) b.budget.succeeded(now);
  }

  /** The concurrency a queue's configuration sets, if any (its budget then bounds it instead of the default). */
  queueConcurrency(projectId: string, queue: string): number | null {
    return this.configs.get(keyOf(projectId, 'queue', queue))?.concurrency ?? null;
  }

  /** Whether a budget limits rate or concurrency (a pause alone, or a queue only used, limits neither). */
  limited(projectId: string, kind: BudgetKind, name: string): boolean {
    const config = this.configs.get(keyOf(projectId, kind, name));
    return config !== undefined && (config.rate !== null || config.concurrency !== null);
  }

  stateOf(projectId: string, kind: BudgetKind, name: string): Promise<BudgetState> {
    const b = this.live.get(keyOf(projectId, kind, name));
    if (b !== undefined) return Promise.resolve(b.state(this.o.clock.now()));
    const config = this.configs.get(keyOf(projectId, kind, name));
    const rate = config?.rate ?? null;
    return Promise.resolve(rate === null ? IDLE_STATE : { ...IDLE_STATE, startedInPeriod: 0, admittedRate: rate.limit * this.shareOf(kind, projectId, name) });
  }

  /** The budgets with something to show (configured, in flight or holding requests back), with their state. */
  *active(): Iterable<PublishedBudgetState> {
    const now = this.o.clock.now();
    for (const [key, b] of this.live) {
      const state = b.state(now);
      if (!b.configured && state.inFlight === 0 && state.waiting.rate + state.waiting.concurrency + state.waiting.paused === 0) continue;
      const [projectId, kind, name] = key.split('\u0000') as [string, BudgetKind, string];
      yield { projectId, kind, name, state };
    }
  }

  /** Every live budget of a kind, for the metrics: project, name and state. */
  *states(kind: BudgetKind): Iterable<{ projectId: string; name: string; state: BudgetState }> {
    const now = this.o.clock.now();
    for (const [key, b] of this.live) {
      const [projectId, k, name] = key.split('\u0000') as [string, BudgetKind, string];
      if (k === kind) yield { projectId, name, state: b.state(now) };
    }
  }

  private budget(projectId: string, kind: BudgetKind, name: string): Budget {
    const key = keyOf(projectId, kind, name);
    let b = this.live.get(key);
    if (b === undefined) {
      b = new Budget();
      const config = this.configs.get(key);
      if (config !== undefined) b.configure(config, config.paused, this.shareOf(kind, projectId, name));
      this.live.set(key, b);
    }
    return b;
  }

  private shareOf(kind: BudgetKind, projectId: string, name: string): number {
    return this.o.shareOf?.(kind, projectId, name) ?? 1;
  }

  private async poll(): Promise<void> {
    const startedAt = this.o.clock.now();
    try {
      const changed = await this.o.budgets.changedSince(Math.max(0, this.readSince - CLOCK_SKEW_MS));
      for (const c of changed) this.changed(c);
      this.readSince = startedAt;
      // Shares follow the shards this process owns: apply them again to every configured budget.
      if (this.o.shareOf !== undefined) {
        for (const [key, c] of this.configs) this.apply(key, c);
      }
    } catch (err) {
      this.o.onError?.(err);
    }
    if (startedAt - this.lastSweep >= SWEEP_MS) this.sweep(startedAt);
    if (!this.stopped) this.timer = this.o.clock.setTimer(() => void this.poll(), BUDGET_POLL_MS);
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [key, b] of this.live) if (b.sweep(now)) this.live.delete(key);
  }
}

function keyOf(projectId: string, kind: BudgetKind, name: string): string {
  return `${projectId}\u0000${kind}\u0000${name}`;
}
