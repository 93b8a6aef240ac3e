import type Database from 'better-sqlite3';

/**
 * The schema, one entry per version. Entries are append-only: a released entry never changes, a change of schema
 * is a new entry. Times are integer milliseconds since the epoch; STRICT tables make a wrongly typed bind fail
 * loudly instead of being stored as text.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE projects (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    monthly_allowance INTEGER NOT NULL,
    schedule_allowance INTEGER NOT NULL,
    retention_days INTEGER NOT NULL,
    created_at INTEGER NOT NULL
  ) STRICT;

  CREATE TABLE api_keys (
    key_id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    secret_hash BLOB NOT NULL,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
  ) STRICT;

  CREATE TABLE requests (
    id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    url TEXT NOT NULL,
    url_lower TEXT NOT NULL,
    method TEXT NOT NULL,
    headers TEXT NOT NULL,
    body BLOB,
    content_type TEXT,
    max_attempts INTEGER NOT NULL,
    timeout_seconds INTEGER NOT NULL,
    queue TEXT NOT NULL,
    metadata TEXT NOT NULL,
    source TEXT NOT NULL,
    replayed_from_request_id TEXT,
    schedule_id TEXT,
    status TEXT NOT NULL,
    scheduled_at INTEGER,
    due_at INTEGER,
    attempt_count INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    started_at INTEGER,
    completed_at INTEGER,
    cancelled_at INTEGER,
    cancel_requested_at INTEGER,
    version INTEGER NOT NULL
  ) STRICT;

  -- The list walks this index in order and stops after one page.
  CREATE INDEX requests_by_project_created ON requests (project_id, created_at DESC, id DESC);
  -- The status filter, and the search for hidden terminal history.
  CREATE INDEX requests_by_project_status ON requests (project_id, status, created_at DESC, id DESC);
  -- Only claimable rows, already in claim order: finished requests never weigh on the worker's scan.
  CREATE INDEX requests_due ON requests (due_at, id) WHERE status IN ('queued', 'scheduled', 'delivering');

  CREATE TABLE attempts (
    request_id TEXT NOT NULL,
    attempt_number INTEGER NOT NULL,
    project_id TEXT NOT NULL,
    status TEXT NOT NULL,
    response_status_code INTEGER,
    error_message TEXT,
    duration_ms INTEGER NOT NULL,
    started_at INTEGER NOT NULL,
    completed_at INTEGER NOT NULL,
    retry TEXT,
    PRIMARY KEY (request_id, attempt_number)
  ) STRICT, WITHOUT ROWID;

  CREATE TABLE idempotency (
    project_id TEXT NOT NULL,
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    outcome TEXT,
    claimed_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (project_id, key)
  ) STRICT, WITHOUT ROWID;

  CREATE INDEX idempotency_by_expiry ON idempotency (expires_at);

  CREATE TABLE usage (
    project_id TEXT NOT NULL,
    period TEXT NOT NULL,
    used INTEGER NOT NULL,
    PRIMARY KEY (project_id, period)
  ) STRICT, WITHOUT ROWID;

  CREATE TABLE secrets (
    name TEXT PRIMARY KEY,
    value BLOB NOT NULL
  ) STRICT;
  `,
  `
  -- Several secrets sign at once during a rotation; rowid orders secrets created in the same millisecond.
  CREATE TABLE signing_secrets (
    project_id TEXT NOT NULL,
    secret BLOB NOT NULL,
    created_at INTEGER NOT NULL,
    retires_at INTEGER
  ) STRICT;

  CREATE INDEX signing_secrets_by_project ON signing_secrets (project_id, created_at DESC);
  `,
  `
  -- The requests a claim's holder set out to create (see accept-plan.ts).
  ALTER TABLE idempotency ADD COLUMN plan TEXT;
  `,
  `
  -- Timing is JSON because its shape depends on its kind; headers are [name, value] pairs, in the caller's order
  -- and spelling, as for requests. The body is the JSON text's bytes, kept as bytes.
  CREATE TABLE schedules (
    id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    name TEXT NOT NULL,
    timing TEXT NOT NULL,
    status TEXT NOT NULL,
    url TEXT NOT NULL,
    headers TEXT NOT NULL,
    body BLOB,
    retry INTEGER NOT NULL,
    next_run_at INTEGER,
    last_run_at INTEGER,
    last_run_outcome TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    version INTEGER NOT NULL
  ) STRICT;

  -- IDs sort by creation time, so the newest-first list walks this index in order and stops after one page.
  CREATE INDEX schedules_by_project ON schedules (project_id, id DESC);
  -- This index is the schedules' timer: no timer is kept apart from the row, so moving next_run_at or pausing
  -- moves or removes the timer in the same write. Only active schedules with a next run are in it, in firing
  -- order, so paused ones never weigh on the firing loop's scan.
  CREATE INDEX schedules_due ON schedules (next_run_at, id) WHERE status = 'active' AND next_run_at IS NOT NULL;
  `,
  `
  -- A schedule's requests, newest first: the list walks it in order and stops after one page, however much else the
  -- project holds. Only requests a schedule created are in it, so requests sent through the API add nothing to it.
  CREATE INDEX requests_by_schedule ON requests (project_id, schedule_id, created_at DESC, id DESC) WHERE schedule_id IS NOT NULL;
  `,
  `
  -- When a key last authenticated a call: written at most once a minute per key, never once per call.
  ALTER TABLE api_keys ADD COLUMN last_used_at INTEGER;
  -- A project's keys, for the operator's listing.
  CREATE INDEX api_keys_by_project ON api_keys (project_id, created_at);
  `,
  `
  -- The occurrence a schedule fired before its latest: the last run while the latest one, fired ahead of its
  -- instant, is not a run yet (see src/domain/schedule/enqueued-ahead.ts).
  ALTER TABLE schedules ADD COLUMN previous_run_at INTEGER;
  ALTER TABLE schedules ADD COLUMN previous_run_outcome TEXT;
  `,
  `
  -- Flow control (src/domain/flow/). A request's flow keys as a JSON array, NULL for none (most requests), and the
  -- budget that last held it back as JSON, NULL when none did.
  ALTER TABLE requests ADD COLUMN flow_keys TEXT;
  ALTER TABLE requests ADD COLUMN waiting_for TEXT;
  -- The flow keys every occurrence of a schedule carries, as requests keep theirs.
  ALTER TABLE schedules ADD COLUMN flow_keys TEXT;

  -- The budgets of queues and flow keys. updated_at is set by a change of limits or pause only, so a row a request
  -- created by using its queue (noted_at alone) is never among the changes delivering processes poll for.
  CREATE TABLE budgets (
    project_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    rate_limit INTEGER,
    rate_period_ms INTEGER,
    rate_burst INTEGER,
    concurrency INTEGER,
    adaptive INTEGER NOT NULL DEFAULT 1,
    paused INTEGER NOT NULL DEFAULT 0,
    updated_at INTEGER,
    noted_at INTEGER,
    PRIMARY KEY (project_id, kind, name)
  ) STRICT, WITHOUT ROWID;

  CREATE INDEX budgets_changed ON budgets (updated_at) WHERE updated_at IS NOT NULL;
  `,
  `
  -- A queue's requests in list order: the queue filter walks it and stops after one page, however few of the
  -- project's requests are in that queue.
  CREATE INDEX requests_by_queue ON requests (project_id, queue, created_at DESC, id DESC);
  -- Each flow key a request names, in list order, written with the request (flow keys never change): the flow_key
  -- filter walks one key's rows instead of reading every request's JSON (see test/bench/README.md for both).
  CREATE TABLE request_flow_keys (
    project_id TEXT NOT NULL,
    flow_key TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    request_id TEXT NOT NULL,
    PRIMARY KEY (project_id, flow_key, created_at, request_id)
  ) STRICT, WITHOUT ROWID;
  INSERT INTO request_flow_keys (project_id, flow_key, created_at, request_id)
    SELECT r.project_id, k.value, r.created_at, r.id FROM requests r, json_each(r.flow_keys) k WHERE r.flow_keys IS NOT NULL;
  `,
  `
  -- What an attempt's destination answered (src/domain/delivery/response.ts), and why the attempt ended its
  -- request. response_headers is a JSON array of [name, value] pairs, NULL when no response came.
  ALTER TABLE attempts ADD COLUMN final_reason TEXT;
  ALTER TABLE attempts ADD COLUMN response_headers TEXT;
  ALTER TABLE attempts ADD COLUMN response_body_truncated INTEGER;
  -- The body excerpt's bytes as read, for attempts that captured one. A table of its own with rowids: a row of the
  -- WITHOUT ROWID attempts table keeps about 1 KB in its page and spilled a 2 KiB excerpt to an overflow page of
  -- its own (4.7 KB written per attempt); here a row of up to about 4 KB stays in the page.
  CREATE TABLE attempt_bodies (
    request_id TEXT NOT NULL,
    attempt_number INTEGER NOT NULL,
    body BLOB NOT NULL,
    PRIMARY KEY (request_id, attempt_number)
  ) STRICT;
  -- Whether attempts keep the first bytes of response bodies; on unless the operator turns it off.
  ALTER TABLE projects ADD COLUMN capture_response_bodies INTEGER NOT NULL DEFAULT 1;
  `,
  `
  -- Bulk actions (src/domain/bulk-action.ts): the columns reads select by and the conditional update checks, the
  -- rest as JSON. The partial index finds the running ones, a handful, among all that ever ran.
  CREATE TABLE bulk_actions (
    project_id TEXT NOT NULL,
    id TEXT NOT NULL,
    state TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    version INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (project_id, id)
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX bulk_actions_running ON bulk_actions (state) WHERE state = 'running';
  `,
  `
  -- The overview's per-minute counts (src/domain/stats.ts): each process's totals for a project's minute, written
  -- whole at every flush, summed over processes on read. Minutes older than a day are dropped through the index.
  CREATE TABLE stats_minutes (
    project_id TEXT NOT NULL,
    minute INTEGER NOT NULL,
    process_id TEXT NOT NULL,
    accepted INTEGER NOT NULL,
    delivered INTEGER NOT NULL,
    failed INTEGER NOT NULL,
    retried INTEGER NOT NULL,
    callbacks INTEGER NOT NULL,
    PRIMARY KEY (project_id, minute, process_id)
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX stats_minutes_by_minute ON stats_minutes (minute);
  `,
  `
  -- The status code of the request's last attempt's response, written with each attempt (NULL before the first
  -- and when the last one got no response), taken from the attempts already recorded.
  ALTER TABLE requests ADD COLUMN last_status_code INTEGER;
  UPDATE requests SET last_status_code = (SELECT a.response_status_code FROM attempts a WHERE a.request_id = requests.id
    ORDER BY a.attempt_number DESC LIMIT 1) WHERE attempt_count > 0;
  -- The response_status_code filter walks one code's requests in list order and stops after one page. Requests not
  -- answered yet are not in it, so an accept writes nothing here; an attempt moves its request's entry.
  CREATE INDEX requests_by_last_status ON requests (project_id, last_status_code, created_at DESC, id DESC)
    WHERE last_status_code IS NOT NULL;
  `,
  `
  -- Callbacks (src/domain/request-lifecycle/callbacks.ts): where a request's ending is reported, as JSON text
  -- {"on_success", "on_failure"}, NULL for none; on a callback, the request it reports on; on the original, the
  -- callbacks created for its ending, a JSON array of IDs, NULL until one is. A schedule's request template keeps
  -- callbacks too, for its occurrences.
  ALTER TABLE requests ADD COLUMN callbacks TEXT;
  ALTER TABLE requests ADD COLUMN callback_for_request_id TEXT;
  ALTER TABLE requests ADD COLUMN callback_request_ids TEXT;
  ALTER TABLE schedules ADD COLUMN callbacks TEXT;
  `,
  `
  -- 1 when the excerpt is stored deflated (raw deflate), as a build of this schema wrote them; now written 0
  -- (src/adapters/embedded/excerpt-bytes.ts).
  ALTER TABLE attempt_bodies ADD COLUMN deflated INTEGER NOT NULL DEFAULT 0;
  `,
  `
  -- A schedule's request template: queue, per-attempt timeout and metadata of every occurrence's request (NULL for
  -- the defaults: queue default, 50 s, none). Its policy and pause reason, and its run state (counters, recent runs,
  -- the occurrence buffered under buffer_one, the failure streak, backfilled ranges), as JSON text
  -- (src/domain/schedule/policy.ts, runs.ts); NULL reads as the default policy and an empty state.
  ALTER TABLE schedules ADD COLUMN queue TEXT;
  ALTER TABLE schedules ADD COLUMN timeout_seconds INTEGER;
  ALTER TABLE schedules ADD COLUMN metadata TEXT;
  ALTER TABLE schedules ADD COLUMN policy TEXT;
  ALTER TABLE schedules ADD COLUMN pause_reason TEXT;
  ALTER TABLE schedules ADD COLUMN runs TEXT;
  `,
  `
  -- Body excerpts in packs (src/adapters/embedded/excerpt-packs.ts): the excerpts of one group commit side by side
  -- in one row, each attempt naming its pack and the excerpt's offset and length in it. Excerpts written before
  -- stay in attempt_bodies and are read from there.
  CREATE TABLE attempt_body_packs (
    id INTEGER PRIMARY KEY,
    bytes BLOB NOT NULL
  ) STRICT;
  ALTER TABLE attempts ADD COLUMN body_pack INTEGER;
  ALTER TABLE attempts ADD COLUMN body_offset INTEGER;
  ALTER TABLE attempts ADD COLUMN body_length INTEGER;
  `,
];

/**
 * Brings the file to the latest schema. The version is read again under the write lock, so processes that open
 * the same new file at once apply each migration exactly once.
 */
export function migrate(db: Database.Database, migrations: readonly string[] = MIGRATIONS): number {
  db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL) STRICT');
  const apply = db.transaction(() => {
    const row = db.prepare('SELECT MAX(version) AS version FROM schema_version').get() as { version: number | null };
    const current = row.version ?? 0;
    if (current > migrations.length) {
      throw new Error(`The database has schema version ${current}, newer than this build knows (${migrations.length}).`);
    }
    for (let version = current + 1; version <= migrations.length; version++) {
      db.exec(migrations[version - 1]!);
      db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(version);
    }
    return migrations.length;
  });
  return apply.immediate();
}
