import type { Migration } from './migration.js';

/**
 * The occurrence a schedule fired before its latest: it reads as the last run while the latest one, fired ahead of
 * its instant, is not a run yet, and becomes the last run again when that one is withdrawn.
 */
export const previousRun: Migration = {
  version: 8,
  name: 'previous run',
  statements: [
    'ALTER TABLE schedules ADD IF NOT EXISTS previous_run_at bigint',
    'ALTER TABLE schedules ADD IF NOT EXISTS previous_run_outcome text',
  ],
};
