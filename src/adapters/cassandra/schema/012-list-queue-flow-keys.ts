import type { Migration } from './migration.js';

/**
 * A request's queue and flow keys (JSON text, as the request keeps them), copied into its list entry so the queue
 * and flow_key filters tell requests apart without fetching each one. Every request has a queue, so an entry
 * without one was written before this version: the list reads the request itself for those.
 */
export const listQueueFlowKeys: Migration = {
  version: 12,
  name: 'list queue and flow keys',
  statements: ['ALTER TABLE requests_by_project ADD IF NOT EXISTS queue text', 'ALTER TABLE requests_by_project ADD IF NOT EXISTS flow_keys text'],
};
