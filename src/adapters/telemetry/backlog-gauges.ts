import type { Clock } from '../../domain/clock.js';
import { CachedReading } from './cached-reading.js';
import type { PrometheusMetrics } from './prometheus-metrics.js';

/** Requests waiting, as far as the backend can tell cheaply. */
export interface BacklogSnapshot {
  /** Counts by state; null where the backend cannot count without reading all of its storage. */
  readonly counts: { readonly queued: number; readonly scheduled: number; readonly awaitingRetry: number } | null;
  /** The earliest due time among waiting requests; null when none waits. */
  readonly oldestDueAt: number | null;
}

export type BacklogReader = () => Promise<BacklogSnapshot>;

/** The latest backlog reading, read again only when it is old (see `CachedReading`). */
export class CachedBacklog extends CachedReading<BacklogSnapshot> {}

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
