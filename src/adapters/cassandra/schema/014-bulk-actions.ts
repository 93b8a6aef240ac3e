import type { Migration } from './migration.js';

/**
 * Bulk actions (`BulkActionStore`): one partition per project, newest first, the selection and counts as JSON text;
 * and the running ones of every project in one small partition (a handful per project at most), which the
 * processes that run them read every second or so.
 */
export const bulkActions: Migration = {
  version: 14,
  name: 'bulk actions',
  statements: [
    `CREATE TABLE IF NOT EXISTS bulk_actions (
      project_id text,
      id text,
      state text,
      version int,
      body text,
      PRIMARY KEY ((project_id), id)
    ) WITH CLUSTERING ORDER BY (id DESC)`,
    `CREATE TABLE IF NOT EXISTS bulk_actions_running (
      bucket int,
      project_id text,
      id text,
      PRIMARY KEY ((bucket), project_id, id)
    )`,
  ],
};
