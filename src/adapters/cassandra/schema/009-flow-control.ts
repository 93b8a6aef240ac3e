import type { Migration } from './migration.js';

/**
 * Flow control (`src/domain/flow/`): a request's flow keys and the budget that last held it back, as JSON text in
 * static columns of its partition (left unset when it has none, as most requests have none); the budgets; and a log of their changes for delivering processes to poll.
 */
export const flowControl: Migration = {
  version: 9,
  name: 'flow control',
  statements: [
    'ALTER TABLE requests ADD IF NOT EXISTS flow_keys text static',
    'ALTER TABLE requests ADD IF NOT EXISTS waiting_for text static',
    // One partition per project and kind, in name order: a page of the list is one slice of one partition. Limits and
    // pause are separate cells, so a change of either leaves the other as it is without a read. `updated_at` is
    // written by those changes only; a queue merely used writes `noted_at` alone (see `CassandraBudgetStore`).
    `CREATE TABLE IF NOT EXISTS budgets (
      project_id text,
      kind text,
      name text,
      rate_limit int,
      rate_period_ms int,
      rate_burst int,
      concurrency int,
      adaptive boolean,
      paused boolean,
      updated_at bigint,
      noted_at bigint,
      PRIMARY KEY ((project_id, kind), name)
    )`,
    // Which budgets changed when, one partition per minute of `updated_at`: a poll for changes reads the minutes
    // since its last poll, never the budgets of every project. Changes are rare (an API call each), so one partition
    // a minute for the whole deployment is small; a day of them is kept.
    `CREATE TABLE IF NOT EXISTS budget_changes (
      minute bigint,
      updated_at bigint,
      project_id text,
      kind text,
      name text,
      PRIMARY KEY (minute, updated_at, project_id, kind, name)
    ) WITH default_time_to_live = 86400`,
  ],
};
