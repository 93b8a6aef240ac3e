import type { Clock } from '../../domain/clock.js';
import type { PrometheusMetrics } from './prometheus-metrics.js';

/** Requests waiting, as far as the backend can tell cheaply. */
export interface BacklogSnapshot {
  /** Counts by state; null where the backend cannot count without reading all of its storage. */
  readonly counts: { readonly queued: number; readonly scheduled: number; readonly awaitingRetry: number } | null;
  /** The earliest due time among waiting requests; null when none waits. */
  readonly oldestDueAt: number | null;
}

export type BacklogReader = () => Promise<BacklogSnapshot>;

/** A reading is reused for at least this long: scrapes come every 15–60 s, and a backlog changes as fast as it likes. */
const DEFAULT_MAX_AGE_MS = 10_000;
/** A reading that took longer than this share of the time since the last one spaces the next one out. */
const MAX_SHARE_OF_TIME = 0.02;

/**
 * The latest backlog reading, read again only when it is older than `maxAgeMs`, and then by one read however
 * many scrapes ask at once, so scrapes cannot load storage: a reading that took 100 ms is reused for at least
 * 5 s (`MAX_SHARE_OF_TIME`), whatever `maxAgeMs` says. A failed read keeps the previous reading.
 */
export class CachedBacklog {
  private last: { snapshot: BacklogSnapshot; at: number; costMs: number } | null = null;
  private reading: Promise<BacklogSnapshot | null> | null = null;

  constructor(
    private readonly read: BacklogReader,
    private readonly clock: Clock,
    private readonly maxAgeMs = DEFAULT_MAX_AGE_MS,
  ) {}

  get(): Promise<BacklogSnapshot | null> {
    const last = this.last;
    const now = this.clock.now();
    if (last !== null && now - last.at < Math.max(this.maxAgeMs, last.costMs / MAX_SHARE_OF_TIME)) return Promise.resolve(last.snapshot);
    this.reading ??= this.read().then(
      (snapshot) => {
        const at = this.clock.now();
        this.last = { snapshot, at, costMs: at - now };
        this.reading = null;
        return snapshot;
      },
      () => {
        this.reading = null;
        return this.last?.snapshot ?? null;
      },
    );
    return this.reading;
  }
}

/**
 * `ferry_backlog_requests{state}` (when the backend can count) and `ferry_backlog_oldest_due_age_seconds`, both
 * computed when scraped from the cached reading. The age keeps growing between readings, as the oldest request's
 * wait does.
 */
export function registerBacklogGauges(metrics: PrometheusMetrics, backlog: CachedBacklog, clock: Clock, opts: { counts: boolean; scope: string }): void {
  if (opts.counts) {
    metrics.gauge(
      'ferry_backlog_requests',
      `Requests waiting, by state: queued (not attempted yet), scheduled (for later), awaiting_retry (attempted, another attempt to come). ${opts.scope}`,
      ['state'],
      async (gauge) => {
        const counts = (await backlog.get())?.counts;
        if (counts === null || counts === undefined) return;
        gauge.set({ state: 'queued' }, counts.queued);
        gauge.set({ state: 'scheduled' }, counts.scheduled);
        gauge.set({ state: 'awaiting_retry' }, counts.awaitingRetry);
      },
    );
  }
  metrics.gauge(
    'ferry_backlog_oldest_due_age_seconds',
    `How long the longest-waiting request has been due without being attempted; 0 when nothing due waits. ${opts.scope}`,
    [],
    async (gauge) => {
      const snapshot = await backlog.get();
      if (snapshot === null) return;
      const due = snapshot.oldestDueAt;
      gauge.set(due === null ? 0 : Math.max(0, clock.now() - due) / 1000);
    },
  );
}
