import type { Migration } from './migration.js';

/** Schedules, each project's list of them, and the timers of their next occurrences per shard. */
export const schedules: Migration = {
  version: 4,
  name: 'schedules',
  statements: [
    // One partition per schedule, changed only by conditional writes (`IF version = ?`), so every write to it goes
    // through Paxos and none can be shadowed by a plain write stamped by a clock that runs ahead. `change_id` names
    // the write that made the stored version: a conditional write whose answer was lost can tell that it landed.
    `CREATE TABLE IF NOT EXISTS schedules (
      id text PRIMARY KEY,
      project_id text,
      name text,
      timing text,
      status text,
      url text,
      headers text,
      body blob,
      retry int,
      next_run_at bigint,
      last_run_at bigint,
      last_run_outcome text,
      created_at bigint,
      updated_at bigint,
      version int,
      change_id text
    )`,
    // The project's list, newest (largest ID) first. Entries point at `schedules`; readers skip those that point at
    // nothing (a schedule whose insert failed after its entry was written).
    `CREATE TABLE IF NOT EXISTS schedules_by_project (
      project_id text,
      id text,
      PRIMARY KEY (project_id, id)
    ) WITH CLUSTERING ORDER BY (id DESC)`,
    // Next occurrences: one row per (schedule, due time), in partitions of one shard and one hour. A timer is a
    // hint checked against the schedule's row, so a stale one is harmless.
    `CREATE TABLE IF NOT EXISTS schedule_timers (
      shard int,
      bucket int,
      due_at bigint,
      schedule_id text,
      PRIMARY KEY ((shard, bucket), due_at, schedule_id)
    )`,
    // Which hours of a shard may still hold timers, oldest first: a scan visits only those partitions.
    `CREATE TABLE IF NOT EXISTS schedule_timer_buckets (
      shard int,
      bucket int,
      PRIMARY KEY (shard, bucket)
    )`,
  ],
};
