import type { Migration } from './migration.js';

/**
 * A schedule's request template gains the queue, per-attempt timeout and metadata of every occurrence's request;
 * the schedule gains its policy, its pause reason and its run state (counters, recent runs, the occurrence buffered
 * under buffer_one, the failure streak, backfilled ranges), JSON text as the embedded backend keeps them
 * (src/adapters/schedule-json-columns.ts). Unset reads as the defaults.
 */
export const schedulePolicy: Migration = {
  version: 18,
  name: 'schedule-policy',
  statements: [
    'ALTER TABLE schedules ADD IF NOT EXISTS queue text',
    'ALTER TABLE schedules ADD IF NOT EXISTS timeout_seconds int',
    'ALTER TABLE schedules ADD IF NOT EXISTS metadata text',
    'ALTER TABLE schedules ADD IF NOT EXISTS policy text',
    'ALTER TABLE schedules ADD IF NOT EXISTS pause_reason text',
    'ALTER TABLE schedules ADD IF NOT EXISTS runs text',
  ],
};
