import type { Migration } from './migration.js';

/**
 * The schedule that created a request, copied into its list entry so a schedule's requests are told apart without
 * fetching each request. Entries written before this version have none: the list reads those of recurring
 * requests from the request itself.
 */
export const listSchedule: Migration = {
  version: 6,
  name: 'list schedule',
  statements: ['ALTER TABLE requests_by_project ADD IF NOT EXISTS schedule_id text'],
};
