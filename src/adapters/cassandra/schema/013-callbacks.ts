import type { Migration } from './migration.js';

/**
 * Callbacks (src/domain/request-lifecycle/callbacks.ts), as static columns of the request's partition, JSON text
 * as the embedded backend keeps them: where the request's ending is reported (null for none); on a callback, the
 * request it reports on; on the original, the callbacks created for its ending (null until one is). A schedule's
 * request template keeps callbacks too, for its occurrences.
 */
export const callbacks: Migration = {
  version: 13,
  name: 'callbacks',
  statements: [
    'ALTER TABLE requests ADD IF NOT EXISTS callbacks text static',
    'ALTER TABLE requests ADD IF NOT EXISTS callback_for_request_id text static',
    'ALTER TABLE requests ADD IF NOT EXISTS callback_request_ids text static',
    'ALTER TABLE schedules ADD IF NOT EXISTS callbacks text',
  ],
};
