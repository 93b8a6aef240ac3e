import type { Migration } from './migration.js';

/**
 * A schedule's flow keys; and how each delivering process's budgets stand (`BudgetStateBoard`): one partition per budget, one row per process
 * that publishes it, so a read of a budget's state is one small partition. Every row is written with a time to live
 * and published again every second or two, so a process that stops drops out on its own. Nothing is ever deleted,
 * so expired cells need not be kept for repairs the usual ten days (`gc_grace_seconds`): an hour lets compaction
 * drop them soon, and a read of a budget whose processes came and went passes few of them.
 */
export const budgetStates: Migration = {
  version: 10,
  name: 'budget states, schedule flow keys',
  statements: [
    // The flow keys every occurrence of a schedule carries, as JSON text like a request's.
    'ALTER TABLE schedules ADD IF NOT EXISTS flow_keys text',
    `CREATE TABLE IF NOT EXISTS budget_states (
      project_id text,
      kind text,
      name text,
      process_id text,
      in_flight int,
      started_in_period int,
      waiting_rate int,
      waiting_concurrency int,
      waiting_paused int,
      admitted_rate double,
      PRIMARY KEY ((project_id, kind, name), process_id)
    ) WITH gc_grace_seconds = 3600`,
  ],
};
