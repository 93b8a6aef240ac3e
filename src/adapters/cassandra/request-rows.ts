import { types } from 'cassandra-driver';
import type {
  AttemptRecord,
  HeaderEntry,
  HttpMethod,
  RequestSource,
  RequestStatus,
  RetryDecision,
  StoredRequest,
} from '../../domain/request.js';
import { millis, type CassandraSession, type Statement } from './session.js';

/** The request's own (static) columns, as read back by `requestFromRow`. Without `body`, which is written first. */
export const REQUEST_COLUMNS = [
  'id', 'project_id', 'url', 'method', 'headers', 'content_type', 'max_attempts', 'timeout_seconds', 'queue',
  'metadata', 'source', 'replayed_from_request_id', 'schedule_id', 'status', 'scheduled_at', 'due_at',
  'attempt_count', 'created_at', 'updated_at', 'started_at', 'completed_at', 'cancelled_at', 'cancel_requested_at',
  'version',
] as const;

export const ATTEMPT_COLUMNS = [
  'attempt_number', 'attempt_status', 'response_status_code', 'error_message', 'duration_ms', 'attempt_started_at',
  'attempt_completed_at', 'retry',
] as const;

/** UTC days since the epoch: the list's partitions. */
const DAY_MS = 86_400_000;

export function dayOf(createdAt: number): number {
  return Math.floor(createdAt / DAY_MS);
}

/** Lower-cased once at write time, so the list's URL search compares plain strings. */
export function lowerUrl(url: string): string {
  return url.toLowerCase();
}

/** Reads requests by ID: the static columns of the partition, never its attempt rows. */
export class RequestRows {
  private readonly selectRequest: string;
  private readonly selectStatus: string;
  private readonly selectAttempts: string;

  constructor(private readonly session: CassandraSession) {
    const requests = session.table('requests');
    // Any row of the partition carries the static columns; the first is enough.
    this.selectRequest = `SELECT ${REQUEST_COLUMNS.join(', ')}, body FROM ${requests} WHERE id = ? LIMIT 1`;
    this.selectStatus = `SELECT project_id, status FROM ${requests} WHERE id = ? LIMIT 1`;
    this.selectAttempts = `SELECT project_id, ${ATTEMPT_COLUMNS.join(', ')} FROM ${requests} WHERE id = ?`;
  }

  /** The request with this ID in any project, or null; a partition holding only a body is no request yet. */
  async request(id: string, during: string, consistency?: number): Promise<StoredRequest | null> {
    const row = (
      consistency === undefined
        ? await this.session.read(this.selectRequest, [id], during)
        : await this.session.execute(this.selectRequest, [id], during, { idempotent: true, consistency })
    ).first();
    return row === null || row['project_id'] === null ? null : requestFromRow(row);
  }

  /** Only the status, without the body: for checks over many requests. */
  async status(id: string, during: string): Promise<RequestStatus | null> {
    const row = (await this.session.read(this.selectStatus, [id], during)).first();
    return row === null || row['project_id'] === null ? null : (row['status'] as RequestStatus);
  }

  /** Attempts oldest first (the clustering order); empty unless the request belongs to `projectId`. */
  async attempts(projectId: string, id: string, during: string): Promise<AttemptRecord[]> {
    const rows = (await this.session.read(this.selectAttempts, [id], during)).rows;
    if (rows[0]?.['project_id'] !== projectId) return [];
    // A partition without attempts still answers one row: its static columns, with no attempt number.
    return rows.filter((row) => row['attempt_number'] !== null).map((row) => attemptFromRow(id, row));
  }
}

function requestFromRow(row: types.Row): StoredRequest {
  const body = row['body'] as Buffer | null;
  return {
    id: row['id'] as string,
    projectId: row['project_id'] as string,
    url: row['url'] as string,
    method: row['method'] as HttpMethod,
    headers: JSON.parse(row['headers'] as string) as HeaderEntry[],
    // A copy: a view would keep the driver's whole response frame alive and is a Buffer, not a plain array.
    body: body === null ? null : new Uint8Array(body),
    contentType: row['content_type'] as string | null,
    maxAttempts: row['max_attempts'] as number,
    timeoutSeconds: row['timeout_seconds'] as number,
    queue: row['queue'] as string,
    metadata: JSON.parse(row['metadata'] as string) as Record<string, string>,
    source: row['source'] as RequestSource,
    replayedFromRequestId: row['replayed_from_request_id'] as string | null,
    scheduleId: row['schedule_id'] as string | null,
    status: row['status'] as RequestStatus,
    scheduledAt: millis(row['scheduled_at']),
    dueAt: millis(row['due_at']),
    attemptCount: row['attempt_count'] as number,
    createdAt: millis(row['created_at'])!,
    updatedAt: millis(row['updated_at'])!,
    startedAt: millis(row['started_at']),
    completedAt: millis(row['completed_at']),
    cancelledAt: millis(row['cancelled_at']),
    cancelRequestedAt: millis(row['cancel_requested_at']),
    version: row['version'] as number,
  };
}

function attemptFromRow(requestId: string, row: types.Row): AttemptRecord {
  const retry = row['retry'] as string | null;
  return {
    requestId,
    attemptNumber: row['attempt_number'] as number,
    status: row['attempt_status'] as AttemptRecord['status'],
    responseStatusCode: row['response_status_code'] as number | null,
    errorMessage: row['error_message'] as string | null,
    durationMs: row['duration_ms'] as number,
    startedAt: millis(row['attempt_started_at'])!,
    completedAt: millis(row['attempt_completed_at'])!,
    retry: retry === null ? null : (JSON.parse(retry) as RetryDecision),
  };
}

/**
 * Writes the static columns of a new request, with its body when given (a body written on its own beforehand is
 * left as it is). Absent values stay unset: a new partition needs no tombstones.
 */
export function insertRequest(session: CassandraSession, r: StoredRequest, body: Uint8Array | null = null): Statement {
  const columns = body === null ? REQUEST_COLUMNS : [...REQUEST_COLUMNS, 'body'];
  return {
    query: `INSERT INTO ${session.table('requests')} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
    params: body === null ? requestValues(r) : [...requestValues(r), bodyValue(body)],
  };
}

/** Values of `REQUEST_COLUMNS`, in order; absent ones are left unset, so nothing writes a tombstone. */
export function requestValues(r: StoredRequest): unknown[] {
  const values = [
    r.id, r.projectId, r.url, r.method,
    // An array of pairs keeps order, spelling and repeated names exactly as given.
    JSON.stringify(r.headers),
    r.contentType, r.maxAttempts, r.timeoutSeconds, r.queue, JSON.stringify(r.metadata), r.source,
    r.replayedFromRequestId, r.scheduleId, r.status, r.scheduledAt, r.dueAt, r.attemptCount, r.createdAt,
    r.updatedAt, r.startedAt, r.completedAt, r.cancelledAt, r.cancelRequestedAt, r.version,
  ];
  return values.map((v) => v ?? types.unset);
}

/** The body goes into the partition on its own, ahead of the request: see `CassandraRequestStore.insertMany`. */
export function insertBody(session: CassandraSession, id: string, body: Uint8Array): Statement {
  return {
    query: `UPDATE ${session.table('requests')} SET body = ? WHERE id = ?`,
    params: [bodyValue(body), id],
  };
}

/** The body as the driver takes it: a view of the same bytes, not a copy. */
export function bodyValue(body: Uint8Array): Buffer {
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/** The list entry of a new request, with the immutable fields the list filters on. */
export function insertListEntry(session: CassandraSession, r: StoredRequest): Statement {
  return {
    query: `INSERT INTO ${session.table('requests_by_project')} (project_id, day, created_at, id, url_lower, method, source)
      VALUES (?, ?, ?, ?, ?, ?, ?)`,
    params: [r.projectId, dayOf(r.createdAt), r.createdAt, r.id, lowerUrl(r.url), r.method, r.source],
  };
}

export function insertProjectDay(session: CassandraSession, projectId: string, day: number): Statement {
  return { query: `INSERT INTO ${session.table('project_days')} (project_id, day) VALUES (?, ?)`, params: [projectId, day] };
}

/** An attempt row; nulls are written as nulls, so recording an attempt again leaves nothing of the old one. */
export function insertAttempt(session: CassandraSession, a: AttemptRecord): Statement {
  return {
    query: `INSERT INTO ${session.table('requests')} (id, ${ATTEMPT_COLUMNS.join(', ')}) VALUES (?, ${ATTEMPT_COLUMNS.map(() => '?').join(', ')})`,
    params: attemptValues(a),
  };
}

/** The request ID, then the values of `ATTEMPT_COLUMNS` in order. */
export function attemptValues(a: AttemptRecord): unknown[] {
  return [
    a.requestId, a.attemptNumber, a.status, a.responseStatusCode, a.errorMessage, a.durationMs, a.startedAt,
    a.completedAt, a.retry === null ? null : JSON.stringify(a.retry),
  ];
}
