import type { Migration } from './migration.js';

/**
 * The status code of a request's last attempt's response (null before one, and when the last attempt got none): on
 * the request, and copied into its list entry in the same write as the attempt, so the `response_status_code`
 * filter tells requests apart without fetching each one. Requests attempted before this version have none.
 */
export const listLastStatusCode: Migration = {
  version: 16,
  name: 'last status code',
  statements: [
    'ALTER TABLE requests ADD IF NOT EXISTS last_status_code int static',
    'ALTER TABLE requests_by_project ADD IF NOT EXISTS last_status_code int',
  ],
};
