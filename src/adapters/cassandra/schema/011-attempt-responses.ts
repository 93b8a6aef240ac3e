import type { Migration } from './migration.js';

/**
 * What an attempt's destination answered (src/domain/delivery/response.ts) and why the attempt ended its request,
 * as attempt (clustering) columns of the request's partition; and the project setting that keeps or drops
 * response bodies (null, for projects created before it, reads as on).
 */
export const attemptResponses: Migration = {
  version: 11,
  name: 'attempt responses and final reasons',
  statements: [
    'ALTER TABLE requests ADD IF NOT EXISTS final_reason text',
    // A JSON array of [name, value] pairs; null when no response came.
    'ALTER TABLE requests ADD IF NOT EXISTS response_headers text',
    'ALTER TABLE requests ADD IF NOT EXISTS response_body blob',
    'ALTER TABLE requests ADD IF NOT EXISTS response_body_truncated boolean',
    'ALTER TABLE projects ADD IF NOT EXISTS capture_response_bodies boolean',
  ],
};
