import type { BulkActionBatches } from '../../app/bulk-action-batches.js';
import type { BulkAction, SkipReason } from '../../domain/bulk-action.js';
import type { Clock } from '../../domain/clock.js';
import type { BulkActionStore, RunningBulkAction } from '../../ports/bulk-actions.js';
import type { ProjectStore } from '../../ports/projects.js';
import type { PlacementLog } from '../placement/work-placement.js';
import { BulkPace, DEFAULT_PACE, QuietLateness, type LoadDelay } from './bulk-pace.js';

export interface BulkRunnerOptions {
  /** Requests acted on per batch: progress is stored after each. */
  readonly batchSize: number;
  /** The pause after each batch, so that the API's own writes and reads keep their pace (see README.md). */
  readonly pauseMs: number;
  /** How often the running actions are looked for, beside the wake-ups of actions created here. */
  readonly pollMs: number;
  /** How long a batch that failed waits before it is tried again. */
  readonly retryMs: number;
}

export interface BulkRunnerParts {
  readonly store: BulkActionStore;
  readonly batches: BulkActionBatches;
  readonly projects: ProjectStore;
  readonly clock: Clock;
  /** Whether this process runs the action with this ID now (the owner of its shard; every action, embedded). */
  readonly owns: (bulkId: string) => boolean;
  readonly log: PlacementLog;
  readonly options: BulkRunnerOptions;
  /** The main thread's delay since the last call (see `BulkPace`); none: the configured pause only. */
  readonly loadDelay?: LoadDelay;
}

/**
 * Runs the bulk actions this process owns, each a batch at a time: after every batch its counts and position are
 * stored over the version they were read at, so a restart (or the next owner) resumes after the last stored
 * batch; a batch done again after a crash finds the replays it made (their item keys) and cancels what is
 * cancelled already, so no request is acted on twice. A cancel of the action moves its version: the next store of
 * progress fails, the runner reads it again and stops.
 */
export class BulkActionRunner {
  private readonly active = new Set<string>();
  private readonly stopping = new AbortController();
  private readonly runs = new Set<Promise<void>>();
  private looking: Promise<void> | null = null;
  private readonly quiet = new QuietLateness();
  private lookAgain = false;
  private started = false;

  constructor(private readonly p: BulkRunnerParts) {}

  start(): void {
    this.started = true;
    void this.poll();
  }

  /** Looks for running actions now: one was created, or this process may have gained shards. */
  wake(): void {
    if (!this.started || this.stopping.signal.aborted) return;
    if (this.looking !== null) {
      this.lookAgain = true;
      return;
    }
    this.looking = this.look().finally(() => {
      this.looking = null;
      if (this.lookAgain) {
        this.lookAgain = false;
        this.wake();
      }
    });
  }

  /** Stops starting batches; a batch under way finishes (its progress is stored) before this resolves. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.looking;
    await Promise.all([...this.runs]);
  }

  private async poll(): Promise<void> {
    const { clock, options } = this.p;
    while (!this.stopping.signal.aborted) {
      // The baseline the pace compares with: read only while no action of this process adds to it.
      if (this.active.size === 0 && this.p.loadDelay !== undefined) this.quiet.observe(this.p.loadDelay());
      this.wake();
      await clock.sleep(options.pollMs, this.stopping.signal);
    }
  }

  private async look(): Promise<void> {
    let running: RunningBulkAction[];
    try {
      running = await this.p.store.running();
    } catch (err) {
      this.p.log('warn', 'listing running bulk actions failed', { error: String(err) });
      return;
    }
    for (const entry of running) {
      if (this.active.has(entry.id) || !this.p.owns(entry.id) || this.stopping.signal.aborted) continue;
      this.active.add(entry.id);
      const run = this.run(entry).finally(() => {
        this.active.delete(entry.id);
        this.runs.delete(run);
      });
      this.runs.add(run);
    }
  }

  private async run(entry: RunningBulkAction): Promise<void> {
    const { store, batches, projects, clock, options, log } = this.p;
    const signal = this.stopping.signal;
    const pace = new BulkPace({ ...DEFAULT_PACE, minPauseMs: options.pauseMs }, this.p.loadDelay ?? (() => 0), this.quiet);
    while (!signal.aborted && this.p.owns(entry.id)) {
      try {
        const action = await store.get(entry.projectId, entry.id);
        if (action === null || action.state !== 'running') return;
        const project = await projects.getProject(entry.projectId);
        if (project === null) return;
        const outcome = await batches.run(project, action, options.batchSize);
        const now = clock.now();
        const skipped = { ...action.skipped };
        for (const [reason, n] of Object.entries(outcome.skipped) as Array<[SkipReason, number]>) skipped[reason] = (skipped[reason] ?? 0) + n;
        const next: BulkAction = {
          ...action,
          done: action.done + outcome.done,
          skipped,
          position: outcome.position,
          updatedAt: now,
          ...(outcome.finished ? { state: 'completed' as const, completedAt: now } : {}),
          version: action.version + 1,
        };
        // Not stored: cancelled, or another process stored this batch first; what is stored now decides.
        if (!(await store.update(next, action.version))) continue;
        if (outcome.finished) {
          log('info', 'bulk action completed', { bulk_action_id: next.id, done: next.done, matched: next.matched });
          return;
        }
        await clock.sleep(pace.next(), signal);
      } catch (err) {
        log('warn', 'a bulk action batch failed; it is tried again', { bulk_action_id: entry.id, error: String(err) });
        await clock.sleep(options.retryMs, signal);
      }
    }
  }
}
