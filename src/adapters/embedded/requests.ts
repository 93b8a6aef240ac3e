import { TERMINAL_STATUSES, type AttemptRecord, type StoredRequest } from '../../domain/request.js';
import { VersionConflict, type RequestListQuery, type RequestPatch, type RequestStore } from '../../ports/requests.js';
import type { EmbeddedDatabase } from './database.js';
import {
  REQUEST_COLUMNS,
  attemptFromRow,
  attemptToRow,
  lowerUrl,
  requestFromRow,
  requestToRow,
  type AttemptRow,
  type RequestRow,
} from './request-rows.js';

const TERMINAL_SQL = sqlList([...TERMINAL_STATUSES]);
const CLAIMABLE_SQL = sqlList(['queued', 'scheduled', 'delivering']);

const INSERT_REQUEST = `INSERT INTO requests (${REQUEST_COLUMNS.join(', ')})
  VALUES (${REQUEST_COLUMNS.map((c) => `@${c}`).join(', ')})`;

const INSERT_ATTEMPT = `INSERT INTO attempts (request_id, attempt_number, project_id, status, response_status_code,
  error_message, duration_ms, started_at, completed_at, retry)
  VALUES (@request_id, @attempt_number, @project_id, @status, @response_status_code, @error_message, @duration_ms,
  @started_at, @completed_at, @retry)`;

/** Patchable fields and their columns, in a fixed order so each patch shape compiles to one cached statement. */
const PATCH_COLUMNS = {
  status: 'status',
  dueAt: 'due_at',
  attemptCount: 'attempt_count',
  updatedAt: 'updated_at',
  startedAt: 'started_at',
  completedAt: 'completed_at',
  cancelledAt: 'cancelled_at',
  cancelRequestedAt: 'cancel_requested_at',
} as const satisfies Record<keyof Required<RequestPatch>, string>;

export class EmbeddedRequestStore implements RequestStore {
  constructor(private readonly db: EmbeddedDatabase) {}

  async insertMany(requests: readonly StoredRequest[]): Promise<void> {
    if (requests.length === 0) return;
    const rows = requests.map(requestToRow);
    await this.db.write(() => {
      const insert = this.db.statement(INSERT_REQUEST);
      for (const row of rows) insert.run(row);
    });
  }

  async get(projectId: string, id: string): Promise<StoredRequest | null> {
    const row = this.db.read(
      () => this.db.statement('SELECT * FROM requests WHERE id = ? AND project_id = ?').get(id, projectId) as RequestRow | undefined,
    );
    return row === undefined ? null : requestFromRow(row);
  }

  async list(q: RequestListQuery): Promise<StoredRequest[]> {
    // SQLite reads a negative LIMIT as no limit at all.
    if (q.limit <= 0) return [];
    const where = ['project_id = @projectId', `(status NOT IN ${TERMINAL_SQL} OR created_at >= @cutoff)`];
    const params: Record<string, string | number> = { projectId: q.projectId, cutoff: q.terminalCutoff, limit: q.limit };
    const filter = (clause: string, name: string, value: string | number | undefined) => {
      if (value === undefined) return;
      where.push(clause);
      params[name] = value;
    };
    filter('status = @status', 'status', q.status);
    filter('id = @id', 'id', q.id);
    const urlPattern = q.urlContains === undefined ? undefined : `%${escapeLike(lowerUrl(q.urlContains))}%`;
    filter(`url_lower LIKE @url ESCAPE '\\'`, 'url', urlPattern);
    filter('method = @method', 'method', q.method);
    filter('source = @source', 'source', q.source);
    filter('created_at >= @from', 'from', q.from);
    filter('created_at < @to', 'to', q.to);
    if (q.after !== undefined) {
      filter('(created_at, id) < (@afterCreatedAt, @afterId)', 'afterCreatedAt', q.after.createdAt);
      params.afterId = q.after.id;
    }
    const sql = `SELECT * FROM requests WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT @limit`;
    const rows = this.db.read(() => this.db.statement(sql).all(params) as RequestRow[]);
    return rows.map(requestFromRow);
  }

  async hasTerminalBefore(projectId: string, cutoff: number): Promise<boolean> {
    const sql = `SELECT 1 FROM requests WHERE project_id = ? AND status IN ${TERMINAL_SQL} AND created_at < ? LIMIT 1`;
    return this.db.read(() => this.db.statement(sql).get(projectId, cutoff) !== undefined);
  }

  update(projectId: string, id: string, expectedVersion: number, patch: RequestPatch): Promise<StoredRequest> {
    return this.db.write(() => this.applyPatch(projectId, id, expectedVersion, patch));
  }

  async recordAttempt(
    projectId: string,
    id: string,
    expectedVersion: number,
    attempt: AttemptRecord,
    patch: RequestPatch,
  ): Promise<StoredRequest> {
    if (attempt.requestId !== id) throw new Error(`Attempt of ${attempt.requestId} recorded on request ${id}.`);
    const row = attemptToRow(projectId, attempt);
    return this.db.write(() => {
      // The conditional update goes first: on conflict the write stops before the attempt is stored.
      const updated = this.applyPatch(projectId, id, expectedVersion, patch);
      this.db.statement(INSERT_ATTEMPT).run(row);
      return updated;
    });
  }

  async claimDue(now: number, limit: number, leaseUntil: number): Promise<StoredRequest[]> {
    if (limit <= 0) return [];
    return this.db.write(() => {
      const due = this.db
        .statement(`SELECT id FROM requests WHERE status IN ${CLAIMABLE_SQL} AND due_at <= ? ORDER BY due_at, id LIMIT ?`)
        .pluck()
        .all(now, limit) as string[];
      const claim = this.db.statement(`UPDATE requests SET status = 'delivering', due_at = @leaseUntil,
        updated_at = @now, started_at = COALESCE(started_at, @now), version = version + 1
        WHERE id = @id RETURNING *`);
      return due.map((id) => requestFromRow(claim.get({ id, now, leaseUntil }) as RequestRow));
    });
  }

  async listAttempts(projectId: string, requestId: string): Promise<AttemptRecord[]> {
    const sql = 'SELECT * FROM attempts WHERE request_id = ? AND project_id = ? ORDER BY attempt_number';
    const rows = this.db.read(() => this.db.statement(sql).all(requestId, projectId) as AttemptRow[]);
    return rows.map(attemptFromRow);
  }

  /** Runs inside a write; throws VersionConflict so the surrounding savepoint undoes the whole write. */
  private applyPatch(projectId: string, id: string, expectedVersion: number, patch: RequestPatch): StoredRequest {
    const params: Record<string, string | number | null> = { projectId, id, expectedVersion };
    const sets: string[] = [];
    for (const [field, column] of Object.entries(PATCH_COLUMNS) as Array<[keyof RequestPatch, string]>) {
      const value = patch[field];
      if (value === undefined) continue;
      sets.push(`${column} = @${field}`);
      params[field] = value;
    }
    sets.push('version = version + 1');
    const sql = `UPDATE requests SET ${sets.join(', ')}
      WHERE id = @id AND project_id = @projectId AND version = @expectedVersion RETURNING *`;
    const row = this.db.statement(sql).get(params) as RequestRow | undefined;
    if (row === undefined) {
      throw new VersionConflict(`Request ${id} is not at version ${expectedVersion} in project ${projectId}.`);
    }
    return requestFromRow(row);
  }
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function sqlList(values: readonly string[]): string {
  return `(${values.map((v) => `'${v}'`).join(', ')})`;
}
