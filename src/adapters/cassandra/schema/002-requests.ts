import type { Migration } from './migration.js';

/** Requests with their attempts, the per-project list in day buckets, and due-work timers per shard. */
export const requests: Migration = {
  version: 2,
  name: 'requests',
  statements: [
    // A request and its attempts share a partition: the request's fields are static columns, each attempt is a
    // row. Recording an attempt and moving the request on is then one write in one partition.
    `CREATE TABLE IF NOT EXISTS requests (
      id text,
      attempt_number int,
      project_id text static,
      url text static,
      method text static,
      headers text static,
      body blob static,
      content_type text static,
      max_attempts int static,
      timeout_seconds int static,
      queue text static,
      metadata text static,
      source text static,
      replayed_from_request_id text static,
      schedule_id text static,
      status text static,
      scheduled_at bigint static,
      due_at bigint static,
      attempt_count int static,
      created_at bigint static,
      updated_at bigint static,
      started_at bigint static,
      completed_at bigint static,
      cancelled_at bigint static,
      cancel_requested_at bigint static,
      version int static,
      attempt_status text,
      response_status_code int,
      error_message text,
      duration_ms int,
      attempt_started_at bigint,
      attempt_completed_at bigint,
      retry text,
      PRIMARY KEY (id, attempt_number)
    )`,
    // The project's list, newest first, one partition per project and UTC day of creation. The immutable fields
    // the list filters on are copied here, so most filters are applied before a request is fetched.
    `CREATE TABLE IF NOT EXISTS requests_by_project (
      project_id text,
      day int,
      created_at bigint,
      id text,
      url_lower text,
      method text,
      source text,
      PRIMARY KEY ((project_id, day), created_at, id)
    ) WITH CLUSTERING ORDER BY (created_at DESC, id DESC)`,
    // Which days of a project have requests, newest first: the list visits only those partitions.
    `CREATE TABLE IF NOT EXISTS project_days (
      project_id text,
      day int,
      PRIMARY KEY (project_id, day)
    ) WITH CLUSTERING ORDER BY (day DESC)`,
    // Due work: one row per (request, due time), in partitions of one shard and one time bucket. A timer is a
    // hint checked against the request's own row before any claim, so a stale timer is harmless. `lease` marks
    // the timer of a delivering request (its lease running out), so releasing leases reads only those requests.
    `CREATE TABLE IF NOT EXISTS timers (
      shard int,
      bucket bigint,
      due_at bigint,
      request_id text,
      lease boolean,
      PRIMARY KEY ((shard, bucket), due_at, request_id)
    )`,
    // Which buckets of a shard may still hold timers, oldest first: the scan visits only those partitions.
    `CREATE TABLE IF NOT EXISTS timer_buckets (
      shard int,
      bucket bigint,
      PRIMARY KEY (shard, bucket)
    )`,
    // The fencing record of each shard: a new owner raises the epoch with a conditional write.
    `CREATE TABLE IF NOT EXISTS shard_owners (
      shard int PRIMARY KEY,
      epoch bigint,
      owner text,
      since bigint
    )`,
  ],
};
