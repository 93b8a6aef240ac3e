import type { ApiKeyRecord, Project, ProjectChanges, SigningSecret } from '../../domain/project.js';
import type { AttemptRecord, StoredRequest } from '../../domain/request.js';
import { RELEASED_FROM, WOKEN_FROM, claimed, leaseReleased, woken, type Transition } from '../../domain/request-lifecycle/index.js';
import type { SchedulePatch, StoredSchedule } from '../../domain/schedule/schedule.js';
import type { ClaimResult, IdempotencyClaim, IdempotencyRecord } from '../../ports/idempotency.js';
import { VersionConflict, type RecordedState } from '../../ports/requests.js';
import { budgetWriteOps } from './budget-rows.js';
import { bulkActionWriteOps } from './bulk-action-rows.js';
import { statsWriteOps } from './stats-rows.js';
import { plainBytes } from './bytes.js';
import type { Connection } from './connection.js';
import { excerptPacks } from './excerpt-packs.js';
import {
  CLAIMABLE_SQL,
  INSERT_ATTEMPT,
  INSERT_FLOW_KEY,
  INSERT_REQUEST,
  REQUEST_SELECT_LIST,
  insertAttempt,
  insertFlowKeys,
  insertRequest,
  requestFromValues,
} from './request-rows.js';
import { INSERT_SCHEDULE, SCHEDULE_SELECT_LIST, scheduleFromValues, scheduleInsertValues, schedulePatchAssignments } from './schedule-rows.js';
import { statusList, transitionAssignments } from '../request-patch-columns.js';

// Every write the embedded backend makes, by name. They run on the writer thread, so arguments and results are
// plain data that survives a structured clone, and each op is synchronous: it runs inside a savepoint of the
// group transaction and is undone when it throws.


export const SELECT_LIVE_IDEMPOTENCY = `SELECT project_id, key, fingerprint, outcome, claimed_at, expires_at, plan
  FROM idempotency WHERE project_id = ? AND key = ? AND expires_at > ?`;

// Expired records are still in the table until purged; a claim replaces them in place.
const UPSERT_CLAIM = `INSERT INTO idempotency (project_id, key, fingerprint, outcome, claimed_at, expires_at, plan)
  VALUES (?, ?, ?, NULL, ?, ?, ?)
  ON CONFLICT (project_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, outcome = NULL,
    claimed_at = excluded.claimed_at, expires_at = excluded.expires_at, plan = excluded.plan
  WHERE idempotency.expires_at <= ?`;

// The limit is checked in the same statement that adds, so concurrent reservations can never overspend.
const RESERVE = `INSERT INTO usage (project_id, period, used) VALUES (?, ?, ?)
  ON CONFLICT (project_id, period) DO UPDATE SET used = used + excluded.used
  WHERE usage.used + excluded.used <= ?`;

// Counted, never refused: what a callback adds to its project's usage.
const COUNT_USAGE = `INSERT INTO usage (project_id, period, used) VALUES (?, ?, 1)
  ON CONFLICT (project_id, period) DO UPDATE SET used = used + 1`;

export interface UpdateArgs {
  readonly projectId: string;
  readonly id: string;
  readonly expectedVersion: number;
  readonly change: Transition;
}

export interface ScheduleUpdateArgs {
  readonly projectId: string;
  readonly id: string;
  readonly expectedVersion: number;
  readonly patch: SchedulePatch;
}

export const writeOps = {
  insertRequests(db: Connection, requests: readonly StoredRequest[]): void {
    const insert = db.statement(INSERT_REQUEST);
    const insertKey = db.statement(INSERT_FLOW_KEY);
    for (const r of requests) {
      insertRequest(insert, r);
      insertFlowKeys(insertKey, r);
    }
  },

  changeRequest(db: Connection, a: UpdateArgs): void {
    applyChange(db, a, 'version');
  },

  /**
   * The attempt, the change, and the callback the ending makes if any, in one transaction: a crash leaves all or
   * none. The callback counts in its month's usage without a limit: an ending is never refused.
   */
  recordAttempt(
    db: Connection,
    a: UpdateArgs & { readonly attempt: AttemptRecord; readonly callback: StoredRequest | null; readonly usagePeriod: string | null },
  ): RecordedState {
    // The conditional update goes first: on conflict the op stops before the attempt is stored.
    const [status, dueAt, version] = applyChange(db, a, 'status, due_at, version') as [RecordedState['status'], number | null, number];
    insertAttempt(db.statement(INSERT_ATTEMPT), excerptPacks(db), a.projectId, a.attempt);
    if (a.callback !== null && a.usagePeriod !== null) {
      insertRequest(db.statement(INSERT_REQUEST), a.callback);
      db.statement(COUNT_USAGE).run(a.callback.projectId, a.usagePeriod);
    }
    return { status, dueAt, version };
  },

  claimDue(db: Connection, a: { readonly now: number; readonly limit: number; readonly leaseUntil: number }): StoredRequest[] {
    const due = db
      .statement(`SELECT id FROM requests WHERE status IN ${CLAIMABLE_SQL} AND due_at <= ? ORDER BY due_at, id LIMIT ?`)
      .pluck()
      .all(a.now, a.limit) as string[];
    if (due.length === 0) return [];
    // All of them in one statement: one UPDATE per request cost about four times as much per claimed request.
    // RETURNING promises no order, so the claim order of the SELECT is restored afterwards.
    const { sql, values } = transitionAssignments(claimed(a.now, a.leaseUntil));
    const rows = db.rawStatement(`UPDATE requests SET ${sql}version = version + 1 WHERE id IN (SELECT value FROM json_each(?))
      RETURNING ${REQUEST_SELECT_LIST}`).all(...values, JSON.stringify(due));
    const order = new Map(due.map((id, i) => [id, i]));
    return rows.map(requestFromValues).sort((x, y) => order.get(x.id)! - order.get(y.id)!);
  },

  releaseLeases(db: Connection, a: { readonly now: number }): number {
    const { sql, values } = transitionAssignments(leaseReleased(a.now));
    return db.statement(`UPDATE requests SET ${sql}version = version + 1 WHERE status IN ${statusList(RELEASED_FROM)}`).run(...values).changes;
  },

  /** One statement for all of them, as `claimDue` claims: a resume may wake thousands of requests at once. */
  wakeHeld(db: Connection, a: { readonly ids: readonly string[]; readonly now: number }): number {
    const { sql, values } = transitionAssignments(woken(a.now));
    return db
      .statement(`UPDATE requests SET ${sql}version = version + 1 WHERE id IN (SELECT value FROM json_each(?))
        AND status IN ${statusList(WOKEN_FROM)} AND waiting_for IS NOT NULL AND due_at > ?`)
      .run(...values, JSON.stringify(a.ids), a.now).changes;
  },

  claimIdempotency(db: Connection, a: { readonly claims: readonly IdempotencyClaim[]; readonly now: number }): ClaimResult[] {
    // Check and insert run in one op, so no other claim can come between them.
    const select = db.rawStatement(SELECT_LIVE_IDEMPOTENCY);
    const existing = a.claims.map((c) => select.get(c.projectId, c.key, a.now));
    if (existing.some((row) => row !== undefined)) {
      return existing.map((row): ClaimResult => (row === undefined ? { claimed: true } : { claimed: false, existing: idempotencyFromValues(row) }));
    }
    const upsert = db.statement(UPSERT_CLAIM);
    for (const c of a.claims) upsert.run(c.projectId, c.key, c.fingerprint, c.claimedAt, c.expiresAt, c.plan, a.now);
    return a.claims.map((): ClaimResult => ({ claimed: true }));
  },

  takeOverIdempotency(db: Connection, a: { readonly claim: IdempotencyClaim; readonly staleBefore: number }): boolean {
    const c = a.claim;
    const sql = `UPDATE idempotency SET fingerprint = ?, claimed_at = ?, expires_at = ?, plan = ?
      WHERE project_id = ? AND key = ? AND outcome IS NULL AND claimed_at < ?`;
    return db.statement(sql).run(c.fingerprint, c.claimedAt, c.expiresAt, c.plan, c.projectId, c.key, a.staleBefore).changes === 1;
  },

  abandonIdempotency(db: Connection, a: { readonly projectId: string; readonly keys: readonly string[] }): void {
    const abandon = db.statement('UPDATE idempotency SET claimed_at = 0 WHERE project_id = ? AND key = ? AND outcome IS NULL');
    for (const key of a.keys) abandon.run(a.projectId, key);
  },

  completeIdempotency(db: Connection, a: { readonly projectId: string; readonly outcomes: ReadonlyArray<{ key: string; outcome: string }> }): void {
    const complete = db.statement('UPDATE idempotency SET outcome = ? WHERE project_id = ? AND key = ? AND outcome IS NULL');
    for (const o of a.outcomes) complete.run(o.outcome, a.projectId, o.key);
  },

  releaseIdempotency(db: Connection, a: { readonly projectId: string; readonly keys: readonly string[] }): void {
    const release = db.statement('DELETE FROM idempotency WHERE project_id = ? AND key = ? AND outcome IS NULL');
    for (const key of a.keys) release.run(a.projectId, key);
  },

  purgeIdempotency(db: Connection, a: { readonly now: number; readonly limit: number }): number {
    const sql = `DELETE FROM idempotency WHERE (project_id, key) IN
      (SELECT project_id, key FROM idempotency WHERE expires_at <= ? LIMIT ?)`;
    return db.statement(sql).run(a.now, a.limit).changes;
  },

  reserveUsage(db: Connection, a: { readonly projectId: string; readonly period: string; readonly count: number; readonly limit: number }): boolean {
    return db.statement(RESERVE).run(a.projectId, a.period, a.count, a.limit).changes === 1;
  },

  releaseUsage(db: Connection, a: { readonly projectId: string; readonly period: string; readonly count: number }): void {
    db.statement('UPDATE usage SET used = MAX(0, used - ?) WHERE project_id = ? AND period = ?').run(a.count, a.projectId, a.period);
  },

  insertSchedule(db: Connection, s: StoredSchedule): void {
    db.statement(INSERT_SCHEDULE).run(...scheduleInsertValues(s));
  },

  updateSchedule(db: Connection, a: ScheduleUpdateArgs): StoredSchedule {
    return scheduleFromValues(applySchedulePatch(db, a));
  },

  deleteSchedule(db: Connection, a: { readonly projectId: string; readonly id: string }): boolean {
    return db.statement('DELETE FROM schedules WHERE id = ? AND project_id = ?').run(a.id, a.projectId).changes === 1;
  },

  createProject(db: Connection, p: Project): void {
    db.statement(`INSERT INTO projects (id, name, monthly_allowance, schedule_allowance, retention_days, capture_response_bodies,
      created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`).run(p.id, p.name, p.monthlyAllowance, p.scheduleAllowance, p.retentionDays,
      p.captureResponseBodies ? 1 : 0, p.createdAt);
  },

  /** The changed project's row, or undefined when there is no such project. */
  updateProject(db: Connection, a: { readonly id: string; readonly changes: ProjectChanges }): Record<string, unknown> | undefined {
    const c = a.changes;
    return db.statement(`UPDATE projects SET name = COALESCE(?, name), monthly_allowance = COALESCE(?, monthly_allowance),
      schedule_allowance = COALESCE(?, schedule_allowance), retention_days = COALESCE(?, retention_days),
      capture_response_bodies = COALESCE(?, capture_response_bodies)
      WHERE id = ? RETURNING *`).get(c.name ?? null, c.monthlyAllowance ?? null, c.scheduleAllowance ?? null, c.retentionDays ?? null,
      c.captureResponseBodies === undefined ? null : c.captureResponseBodies ? 1 : 0, a.id) as
      | Record<string, unknown>
      | undefined;
  },

  createApiKey(db: Connection, k: ApiKeyRecord): void {
    db.statement('INSERT INTO api_keys (key_id, project_id, secret_hash, created_at, revoked_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(k.keyId, k.projectId, k.secretHash, k.createdAt, k.revokedAt, k.lastUsedAt);
  },

  recordKeyUse(db: Connection, a: { readonly keyId: string; readonly at: number }): void {
    db.statement('UPDATE api_keys SET last_used_at = ? WHERE key_id = ? AND (last_used_at IS NULL OR last_used_at < ?)').run(a.at, a.keyId, a.at);
  },

  revokeApiKey(db: Connection, a: { readonly keyId: string; readonly at: number }): boolean {
    // The first revocation time is kept: revoking again changes nothing but still reports the key as known.
    return db.statement('UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE key_id = ?').run(a.at, a.keyId).changes === 1;
  },

  rotateSigningSecret(db: Connection, a: { readonly secret: SigningSecret; readonly retireOthersAt: number }): void {
    const s = a.secret;
    db.statement('UPDATE signing_secrets SET retires_at = ? WHERE project_id = ? AND retires_at IS NULL').run(a.retireOthersAt, s.projectId);
    db.statement('INSERT INTO signing_secrets (project_id, secret, created_at, retires_at) VALUES (?, ?, ?, ?)')
      .run(s.projectId, s.secret, s.createdAt, s.retiresAt);
  },

  getOrCreateSecret(db: Connection, a: { readonly name: string; readonly candidate: Uint8Array }): Uint8Array {
    db.statement('INSERT OR IGNORE INTO secrets (name, value) VALUES (?, ?)').run(a.name, a.candidate);
    return plainBytes(db.statement('SELECT value FROM secrets WHERE name = ?').pluck().get(a.name) as Uint8Array)!;
  },

  ...budgetWriteOps,
  ...bulkActionWriteOps,
  ...statsWriteOps,
} satisfies Record<string, (db: Connection, args: never) => unknown>;

export type WriteOps = typeof writeOps;
export type WriteOpName = keyof WriteOps;
export type WriteArgs<N extends WriteOpName> = Parameters<WriteOps[N]>[1];
export type WriteResult<N extends WriteOpName> = ReturnType<WriteOps[N]>;

/**
 * Returns the updated row's `returning` columns as raw values. Throws VersionConflict so the op's savepoint undoes
 * everything it did.
 */
function applyChange(db: Connection, a: UpdateArgs, returning: string): unknown[] {
  const { sql: sets, values } = transitionAssignments(a.change);
  const sql = `UPDATE requests SET ${sets}version = version + 1
    WHERE id = ? AND project_id = ? AND version = ? RETURNING ${returning}`;
  const row = db.rawStatement(sql).get(...values, a.id, a.projectId, a.expectedVersion) as unknown[] | undefined;
  if (row === undefined) {
    throw new VersionConflict(`Request ${a.id} is not at version ${a.expectedVersion} in project ${a.projectId}.`);
  }
  return row;
}

/** As `applyChange`, for a schedule: returns the updated row as raw values, or throws VersionConflict. */
function applySchedulePatch(db: Connection, a: ScheduleUpdateArgs): unknown[] {
  const { sets, values } = schedulePatchAssignments(a.patch);
  // The timer is the indexed next_run_at: this one statement moves it with the row.
  const sql = `UPDATE schedules SET ${sets}version = version + 1
    WHERE id = ? AND project_id = ? AND version = ? RETURNING ${SCHEDULE_SELECT_LIST}`;
  const row = db.rawStatement(sql).get(...values, a.id, a.projectId, a.expectedVersion) as unknown[] | undefined;
  if (row === undefined) {
    throw new VersionConflict(`Schedule ${a.id} is not at version ${a.expectedVersion} in project ${a.projectId}.`);
  }
  return row;
}

export function idempotencyFromValues(v: unknown): IdempotencyRecord {
  const row = v as [string, string, string, string | null, number, number, string | null];
  return { projectId: row[0], key: row[1], fingerprint: row[2], outcome: row[3], claimedAt: row[4], expiresAt: row[5], plan: row[6] };
}
