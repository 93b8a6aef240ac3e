import type { Migration } from './migration.js';

/**
 * The overview's per-minute counts (src/domain/stats.ts): a partition per project and UTC day, a row per minute and
 * process holding that process's totals, which it overwrites at every flush (a plain write, safe to repeat, unlike a
 * counter's increment). A read sums the processes of a day or two. Every write lasts 25 hours, so nothing is ever
 * deleted and expired cells need not wait the usual ten days for repairs.
 */
export const stats: Migration = {
  version: 15,
  name: 'stats minutes',
  statements: [
    `CREATE TABLE IF NOT EXISTS stats_minutes (
      project_id text,
      day int,
      minute bigint,
      process_id text,
      accepted int,
      delivered int,
      failed int,
      retried int,
      callbacks int,
      PRIMARY KEY ((project_id, day), minute, process_id)
    ) WITH default_time_to_live = 90000 AND gc_grace_seconds = 3600`,
  ],
};
