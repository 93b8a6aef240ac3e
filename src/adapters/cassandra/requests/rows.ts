import { types } from 'cassandra-driver';
import type {
  AttemptRecord,
  CapturedResponse,
  FinalReason,
  HeaderEntry,
  HttpMethod,
  RequestSource,
  RequestStatus,
  RetryDecision,
  StoredRequest,
} from '../../../domain/request.js';
import { cancelAsRead, statusAsRead } from '../../../domain/request-lifecycle/index.js';
import {
  callbackIdsColumn,
  callbackIdsFromColumn,
  callbacksColumn,
  callbacksFromColumn,
  flowKeysColumn,
  flowKeysFromColumn,
  waitingForColumn,
  waitingForFromColumn,
} from '../../request-json-columns.js';
import { blob, millis, timestampValue, type CassandraSession, type Statement } from '../session.js';

/** The request's own (static) columns, as read back by `requestFromRow`. Without `body`, which is written first. */
export const REQUEST_COLUMNS = [
  'id', 'project_id', 'url', 'method', 'headers', 'content_type', 'max_attempts', 'timeout_seconds', 'queue',
  'metadata', 'source', 'replayed_from_request_id', 'schedule_id', 'status', 'scheduled_at', 'due_at',
  'attempt_count', 'created_at', 'updated_at', 'started_at', 'completed_at', 'cancelled_at', 'cancel_requested_at',
  'version', 'flow_keys', 'waiting_for', 'last_status_code', 'callbacks', 'callback_for_request_id', 'callback_request_ids',
] as const;

export const ATTEMPT_COLUMNS = [
  'attempt_number', 'attempt_status', 'response_status_code', 'error_message', 'duration_ms', 'attempt_started_at',
  'attempt_completed_at', 'retry', 'final_reason', 'response_headers', 'response_body', 'response_body_truncated',
] as const;

/**
 * Limits for unlogged batches of whole requests (rows with bodies) and their list entries. Eight requests touch
 * at most about ten partitions per batch, Cassandra's default threshold for warning about unlogged batches;
 * 512 KiB of bodies stays well under the batch size the cluster must allow. At most 4,096 requests or 64 MiB of
 * bodies wait. Callers choose how many writes run at once.
 */
export const REQUEST_BATCHES = {
  itemsPerWrite: 8,
  bytesPerWrite: 512 * 1024,
  maxWaiting: 4096,
  maxWaitingBytes: 64 * 1024 * 1024,
} as const;

/** UTC days since the epoch: the list's partitions. */
const DAY_MS = 86_400_000;

export function dayOf(createdAt: number): number {
  return Math.floor(createdAt / DAY_MS);
}

/** Lower-cased once at write time, so the list's URL search compares plain strings. */
export function lowerUrl(url: string): string {
  return url.toLowerCase();
}

/**
 * Two views of a request. The deliverer's (`request`) is its own state, with a cancel asked for by others as
 * `cancelRequestedAt`, which its next change makes final. Everyone else's (`requestAsRead`) is what the cancel makes
 * of it at once (see `cancelAsRead`).
 */
export class RequestRows {
  private readonly selectRequest: string;
  private readonly selectRequests: string;
  private readonly selectStatus: string;
  private readonly selectAttempts: string;

  constructor(private readonly session: CassandraSession) {
    const requests = session.table('requests');
    // Any row of the partition carries the static columns; the first is enough.
    this.selectRequest = `SELECT ${REQUEST_COLUMNS.join(', ')}, cancel_asked_at, body FROM ${requests} WHERE id = ? LIMIT 1`;
    this.selectRequests = `SELECT ${REQUEST_COLUMNS.join(', ')}, cancel_asked_at, body FROM ${requests} WHERE id IN ? PER PARTITION LIMIT 1`;
    this.selectStatus = `SELECT project_id, status, cancel_asked_at FROM ${requests} WHERE id = ? LIMIT 1`;
    this.selectAttempts = `SELECT project_id, attempt_count, ${ATTEMPT_COLUMNS.join(', ')} FROM ${requests} WHERE id = ?`;
  }

  /** The deliverer's view of the request with this ID in any project, or null; a partition holding only a body is no request yet. */
  async request(id: string, during: string): Promise<StoredRequest | null> {
    const row = (await this.session.read(this.selectRequest, [id], during)).first();
    return row === null || row['project_id'] === null ? null : requestFromRow(row);
  }

  /**
   * `request` of several IDs in one read, those that exist: one read of a few partitions costs the node less than a
   * read of each (see the timer bucket listings). Keep `ids` few: the coordinator holds every answer at once.
   */
  async requests(ids: readonly string[], during: string): Promise<StoredRequest[]> {
    if (ids.length === 0) return [];
    const rows = (await this.session.read(this.selectRequests, [ids], during)).rows;
    return rows.filter((row) => row['project_id'] !== null).map(requestFromRow);
  }

  /** The request as everyone but its deliverer sees it, or null. */
  async requestAsRead(id: string, during: string): Promise<StoredRequest | null> {
    return (await this.requestViews(id, during))?.asRead ?? null;
  }

  /** Both views of the request, from one read: its deliverer's (`own`) and everyone else's (`asRead`); or null. */
  async requestViews(id: string, during: string): Promise<{ own: StoredRequest; asRead: StoredRequest } | null> {
    const row = (await this.session.read(this.selectRequest, [id], during)).first();
    if (row === null || row['project_id'] === null) return null;
    const own = requestFromRow(row);
    return { own, asRead: cancelAsRead(own, millis(row['cancel_asked_at'])) };
  }

  /** Only the status as read, without the body: for checks over many requests. */
  async status(id: string, during: string): Promise<RequestStatus | null> {
    const row = (await this.session.read(this.selectStatus, [id], during)).first();
    if (row === null || row['project_id'] === null) return null;
    return statusAsRead(row['status'] as RequestStatus, millis(row['cancel_asked_at']));
  }

  /**
   * Attempts oldest first (the clustering order); empty unless the request belongs to `projectId`. An attempt
   * numbered past the request's count is left out: only an owner that lost the shard can have written it (each
   * owner's record counts its attempt with it), and the shard's new owner writes over it if it gets that far.
   */
  async attempts(projectId: string, id: string, during: string): Promise<AttemptRecord[]> {
    const rows = (await this.session.read(this.selectAttempts, [id], during)).rows;
    if (rows[0]?.['project_id'] !== projectId) return [];
    const count = (rows[0]['attempt_count'] as number | null) ?? 0;
    // A partition without attempts still answers one row: its static columns, with no attempt number.
    return rows
      .filter((row) => row['attempt_number'] !== null && (row['attempt_number'] as number) <= count)
      .map((row) => attemptFromRow(id, row));
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
    // The deliverer takes a cancel asked for by others as requested of it.
    cancelRequestedAt: millis(row['cancel_requested_at']) ?? millis(row['cancel_asked_at']),
    version: row['version'] as number,
    flowKeys: flowKeysFromColumn(row['flow_keys'] as string | null),
    waitingFor: waitingForFromColumn(row['waiting_for'] as string | null),
    lastStatusCode: (row['last_status_code'] as number | null) ?? null,
    callbacks: callbacksFromColumn(row['callbacks'] as string | null),
    callbackForRequestId: row['callback_for_request_id'] as string | null,
    callbackRequestIds: callbackIdsFromColumn(row['callback_request_ids'] as string | null),
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
    finalReason: row['final_reason'] as FinalReason | null,
    response: responseFromRow(row),
  };
}

function responseFromRow(row: types.Row): CapturedResponse | null {
  const headers = row['response_headers'] as string | null;
  if (headers === null) return null;
  const body = row['response_body'] as Buffer | null;
  return {
    headers: JSON.parse(headers) as HeaderEntry[],
    body: body === null ? null : new Uint8Array(body),
    bodyTruncated: row['response_body_truncated'] === true,
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
    params: body === null ? requestValues(r) : [...requestValues(r), blob(body)],
  };
}

/**
 * A callback created by the change that ends its request (`RequestChanges.apply`): every static column and its
 * body, at the owner timestamp of that change, so that a write of the same ending by an owner that lost the shard
 * never wins over the new owner's.
 */
export function insertCallback(session: CassandraSession, r: StoredRequest, stamp: bigint): Statement {
  const columns = [...REQUEST_COLUMNS, 'body'];
  return {
    query: `INSERT INTO ${session.table('requests')} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')}) USING TIMESTAMP ?`,
    params: [...requestValues(r), r.body === null ? types.unset : blob(r.body), timestampValue(stamp)],
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
    flowKeysColumn(r.flowKeys), waitingForColumn(r.waitingFor), r.lastStatusCode, callbacksColumn(r.callbacks), r.callbackForRequestId,
    callbackIdsColumn(r.callbackRequestIds),
  ];
  return values.map((v) => v ?? types.unset);
}

/** The body goes into the partition on its own, ahead of the request: see `CassandraRequestStore.insertMany`. */
export function insertBody(session: CassandraSession, id: string, body: Uint8Array): Statement {
  return {
    query: `UPDATE ${session.table('requests')} SET body = ? WHERE id = ?`,
    params: [blob(body), id],
  };
}

/**
 * The columns of a list entry in `requests_by_project`: its key, the immutable fields the list filters on, and the
 * last attempt's status code, which each attempt changes (see `listEntryStatusCode`).
 */
export const LIST_ENTRY_COLUMNS = [
  'project_id', 'day', 'created_at', 'id', 'url_lower', 'method', 'source', 'schedule_id', 'queue', 'flow_keys', 'last_status_code',
] as const;

/**
 * The values of `LIST_ENTRY_COLUMNS`, in order; absent ones are left unset, so nothing writes a tombstone, but for
 * a status code an attempt may have written before (see `lastStatusCodeValue`).
 */
export function listEntryValues(r: StoredRequest): unknown[] {
  const values = [r.projectId, dayOf(r.createdAt), r.createdAt, r.id, lowerUrl(r.url), r.method, r.source, r.scheduleId, r.queue, flowKeysColumn(r.flowKeys)];
  return [...values.map((v) => v ?? types.unset), lastStatusCodeValue(r)];
}

/**
 * The entry's `last_status_code` as `r` has it: null (a tombstone over an earlier attempt's code) once an attempt
 * ran without a response, unset while none ran, so a new entry writes no tombstone.
 */
function lastStatusCodeValue(r: StoredRequest): number | null | typeof types.unset {
  return r.lastStatusCode ?? (r.attemptCount > 0 ? null : types.unset);
}

/**
 * The status code of the attempt just recorded on `next`, into its list entry, at the change's owner timestamp:
 * the entry's key never changes, so the list finds it where it was, with the new code. A null is written only over
 * a code this process knew of (`before`); the end of the request writes the whole entry again (`RequestExpiry`).
 */
export function listEntryStatusCode(session: CassandraSession, next: StoredRequest, before: StoredRequest, stamp: bigint): Statement | null {
  if (next.lastStatusCode === null && before.lastStatusCode === null) return null;
  return {
    query: `UPDATE ${session.table('requests_by_project')} USING TIMESTAMP ? SET last_status_code = ?
      WHERE project_id = ? AND day = ? AND created_at = ? AND id = ?`,
    params: [timestampValue(stamp), next.lastStatusCode, next.projectId, dayOf(next.createdAt), next.createdAt, next.id],
  };
}

/** The list entry of a new request, with the immutable fields the list filters on. */
export function insertListEntry(session: CassandraSession, r: StoredRequest): Statement {
  return {
    query: `INSERT INTO ${session.table('requests_by_project')} (${LIST_ENTRY_COLUMNS.join(', ')})
      VALUES (${LIST_ENTRY_COLUMNS.map(() => '?').join(', ')})`,
    params: listEntryValues(r),
  };
}

export function insertProjectDay(session: CassandraSession, projectId: string, day: number): Statement {
  return { query: `INSERT INTO ${session.table('project_days')} (project_id, day) VALUES (?, ?)`, params: [projectId, day] };
}

/**
 * An attempt row, at the owner timestamp of the change it comes with; nulls are written as nulls, so recording an
 * attempt again leaves nothing of the old one.
 */
export function insertAttempt(session: CassandraSession, a: AttemptRecord, stamp: bigint): Statement {
  return {
    query: `INSERT INTO ${session.table('requests')} (id, ${ATTEMPT_COLUMNS.join(', ')}) VALUES (?, ${ATTEMPT_COLUMNS.map(() => '?').join(', ')}) USING TIMESTAMP ?`,
    params: [...attemptValues(a), timestampValue(stamp)],
  };
}

/** The request ID, then the values of `ATTEMPT_COLUMNS` in order. */
export function attemptValues(a: AttemptRecord): unknown[] {
  return [
    a.requestId, a.attemptNumber, a.status, a.responseStatusCode, a.errorMessage, a.durationMs, a.startedAt,
    a.completedAt, a.retry === null ? null : JSON.stringify(a.retry), a.finalReason,
    a.response === null ? null : JSON.stringify(a.response.headers),
    a.response?.body == null ? null : blob(a.response.body),
    a.response === null ? null : a.response.bodyTruncated,
  ];
}
