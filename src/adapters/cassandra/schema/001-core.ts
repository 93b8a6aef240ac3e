import type { Migration } from './migration.js';

/** Projects, keys, signing secrets, server secrets, usage and idempotency records. */
export const core: Migration = {
  version: 1,
  name: 'core',
  statements: [
    `CREATE TABLE IF NOT EXISTS projects (
      id text PRIMARY KEY,
      name text,
      monthly_allowance bigint,
      schedule_allowance int,
      retention_days int,
      created_at bigint
    )`,
    `CREATE TABLE IF NOT EXISTS api_keys (
      key_id text PRIMARY KEY,
      project_id text,
      secret_hash blob,
      created_at bigint,
      revoked_at bigint
    )`,
    // One partition per project: rotation retires the other secrets and adds the new one in one write.
    `CREATE TABLE IF NOT EXISTS signing_secrets (
      project_id text,
      created_at bigint,
      secret blob,
      retires_at bigint,
      PRIMARY KEY (project_id, created_at, secret)
    ) WITH CLUSTERING ORDER BY (created_at DESC, secret ASC)`,
    `CREATE TABLE IF NOT EXISTS server_secrets (
      name text PRIMARY KEY,
      value blob
    )`,
    // Read-modify-write under a condition (counters cannot be conditional), so no overspend under concurrency.
    `CREATE TABLE IF NOT EXISTS usage (
      project_id text,
      period text,
      used bigint,
      PRIMARY KEY (project_id, period)
    )`,
    // One partition per key: claims of different keys never contend in Paxos. Rows expire after 24 hours.
    `CREATE TABLE IF NOT EXISTS idempotency_keys (
      project_id text,
      key text,
      fingerprint text,
      outcome text,
      claimed_at bigint,
      expires_at bigint,
      PRIMARY KEY ((project_id, key))
    ) WITH default_time_to_live = 86400`,
  ],
};
