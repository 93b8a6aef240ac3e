/**
 * How long a bulk action waits between batches: as little as its configured pause while the process keeps up, more
 * while it does not. A bulk replay of 100,000 requests is work the process makes for itself, all at once: the
 * replays' inserts and then their deliveries compete with the API for the same two threads. Measured with the
 * configured pause alone, the API's accept p99 went from 15 ms idle to about a second under an unlimited replay
 * (test/bench/README.md#bulk-replay); the API's pace is the one users see, so the bulk action gives way.
 *
 * The signal is the main thread's lateness (how late its timers run: every accept, claim and recorded attempt
 * passes through it, so an accept waits about as long) over the last batch and its pause, against what it is while
 * no bulk action runs (`QuietLateness`): the target is `quietFactor` times that, and at least `targetDelayMs`. The
 * API's own pace differs by backend and machine (an idle embedded accept's p99 is 6–8 ms here, a distributed one's
 * tens of milliseconds), and the aim is that an action costs the API a fraction of it, not a fixed amount. The batch
 * (`FERRY_BULK_BATCH_SIZE`, 50) and the pause (`FERRY_BULK_PAUSE_MS`) set the pace while the process keeps up, each
 * batch's replays written 20 at a time (test/bench/README.md#bulk-replay). Above the target the
 * pause doubles, up to `maxPauseMs`; at or below it the pause shrinks by a fifth, down to `minPauseMs`: backing
 * off quickly and coming back gradually, so the action settles at what the process can do beside its other work
 * rather than oscillating.
 */
export interface BulkPaceOptions {
  readonly minPauseMs: number;
  readonly maxPauseMs: number;
  /** The least lateness the pace tolerates, whatever the quiet lateness. */
  readonly targetDelayMs: number;
  /** The target as a multiple of the lateness while no bulk action runs. */
  readonly quietFactor: number;
}

/** How late the main thread ran, in milliseconds (a high percentile), since the previous call. */
export type LoadDelay = () => number;

export const DEFAULT_PACE: Omit<BulkPaceOptions, 'minPauseMs'> = { maxPauseMs: 5_000, targetDelayMs: 4, quietFactor: 2 };

/** The main thread's lateness while this process runs no bulk action: a moving average of what `LoadDelay` reads. */
export class QuietLateness {
  private average: number | null = null;

  observe(lateness: number): void {
    this.average = this.average === null ? lateness : 0.8 * this.average + 0.2 * lateness;
  }

  get ms(): number {
    return this.average ?? 0;
  }
}

export class BulkPace {
  private pauseMs: number;

  constructor(
    private readonly options: BulkPaceOptions,
    private readonly delay: LoadDelay,
    private readonly quiet: QuietLateness = new QuietLateness(),
  ) {
    this.pauseMs = options.minPauseMs;
  }

  /** The pause before the next batch, from the delay seen since the last one. */
  next(): number {
    const { minPauseMs, maxPauseMs, targetDelayMs, quietFactor } = this.options;
    if (this.delay() > Math.max(targetDelayMs, quietFactor * this.quiet.ms)) this.pauseMs = Math.min(maxPauseMs, Math.max(2 * this.pauseMs, 50));
    else this.pauseMs = Math.max(minPauseMs, Math.floor(this.pauseMs * 0.8));
    return this.pauseMs;
  }
}
