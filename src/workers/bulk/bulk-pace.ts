/**
 * How long a bulk action waits between batches: as little as its configured pause while the process keeps up, more
 * while it does not. A bulk replay of 100,000 requests is work the process makes for itself, all at once: the
 * replays' inserts and then their deliveries compete with the API for the same two threads. Measured with the
 * configured pause alone, the API's accept p99 went from 15 ms idle to about a second under an unlimited replay
 * (test/bench/README.md#bulk-replay); the API's pace is the one users see, so the bulk action gives way.
 *
 * The signal is the main thread's lateness (how late its timers run: every accept, claim and recorded attempt
 * passes through it, so an accept waits about as long) over the last batch and its pause. The target is a few
 * milliseconds: an idle accept's p99 is 6–8 ms here, and the API should not wait much more than that. The batch
 * (`FERRY_BULK_BATCH_SIZE`, 50) and the pause (`FERRY_BULK_PAUSE_MS`) set the pace while the process keeps up, each
 * batch's replays written 20 at a time (test/bench/README.md#bulk-replay). Above `targetDelayMs` the
 * pause doubles, up to `maxPauseMs`; at or below it the pause shrinks by a fifth, down to `minPauseMs`: backing
 * off quickly and coming back gradually, so the action settles at what the process can do beside its other work
 * rather than oscillating.
 */
export interface BulkPaceOptions {
  readonly minPauseMs: number;
  readonly maxPauseMs: number;
  readonly targetDelayMs: number;
}

/** How late the main thread ran, in milliseconds (a high percentile), since the previous call. */
export type LoadDelay = () => number;

export const DEFAULT_PACE: Omit<BulkPaceOptions, 'minPauseMs'> = { maxPauseMs: 5_000, targetDelayMs: 4 };

export class BulkPace {
  private pauseMs: number;

  constructor(
    private readonly options: BulkPaceOptions,
    private readonly delay: LoadDelay,
  ) {
    this.pauseMs = options.minPauseMs;
  }

  /** The pause before the next batch, from the delay seen since the last one. */
  next(): number {
    const { minPauseMs, maxPauseMs, targetDelayMs } = this.options;
    if (this.delay() > targetDelayMs) this.pauseMs = Math.min(maxPauseMs, Math.max(2 * this.pauseMs, 50));
    else this.pauseMs = Math.max(minPauseMs, Math.floor(this.pauseMs * 0.8));
    return this.pauseMs;
  }
}
