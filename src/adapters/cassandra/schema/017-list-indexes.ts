import type { Migration } from './migration.js';

/** The columns an index row copies from its request's list entry: what the list filters on besides the index's key. */
const ENTRY_COLUMNS = `created_at bigint,
      id text,
      url_lower text,
      method text,
      source text,
      schedule_id text,
      queue text,
      flow_keys text`;

/**
 * The list's indexes: a request's list entry again, once under its last attempt's status code, once under its
 * queue and once under each of its flow keys, in partitions of one project, key and UTC day of creation, newest
 * first as the list is. A filter on one of them reads only the requests that have it, instead of walking every
 * entry of the project. The code's row moves with each attempt that changes it; the others are written with the
 * request and never change. See README.md, "Lists".
 */
export const listIndexes: Migration = {
  version: 17,
  name: 'list indexes',
  statements: [
    `CREATE TABLE IF NOT EXISTS requests_by_status_code (
      project_id text,
      status_code int,
      day int,
      ${ENTRY_COLUMNS},
      PRIMARY KEY ((project_id, status_code, day), created_at, id)
    ) WITH CLUSTERING ORDER BY (created_at DESC, id DESC)`,
    `CREATE TABLE IF NOT EXISTS requests_by_queue (
      project_id text,
      queue_name text,
      day int,
      ${ENTRY_COLUMNS},
      PRIMARY KEY ((project_id, queue_name, day), created_at, id)
    ) WITH CLUSTERING ORDER BY (created_at DESC, id DESC)`,
    `CREATE TABLE IF NOT EXISTS requests_by_flow_key (
      project_id text,
      flow_key text,
      day int,
      ${ENTRY_COLUMNS},
      PRIMARY KEY ((project_id, flow_key, day), created_at, id)
    ) WITH CLUSTERING ORDER BY (created_at DESC, id DESC)`,
  ],
};
