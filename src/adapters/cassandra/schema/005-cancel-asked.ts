import type { Migration } from './migration.js';

/**
 * A cancel asked for by anyone but the request's deliverer (the API, the scheduler). The deliverer's cells carry its
 * owner timestamps, far above any clock-based one, so a cancel cannot write them: it writes this cell of its own,
 * readers merge it in, and the deliverer makes the cancel final at its next change.
 */
export const cancelAsked: Migration = {
  version: 5,
  name: 'cancel asked',
  statements: ['ALTER TABLE requests ADD IF NOT EXISTS cancel_asked_at bigint static'],
};
