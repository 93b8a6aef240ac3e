import { plainBytes } from './bytes.js';
import type { AttemptRecord, HeaderEntry, HttpMethod, RequestSource, RequestStatus, RetryDecision, StoredRequest } from '../../domain/request.js';

/** A `requests` row as SQLite returns it. */
export interface RequestRow {
  id: string;
  project_id: string;
  url: string;
  url_lower: string;
  method: string;
  headers: string;
  body: Uint8Array | null;
  content_type: string | null;
  max_attempts: number;
  timeout_seconds: number;
  queue: string;
  metadata: string;
  source: string;
  replayed_from_request_id: string | null;
  schedule_id: string | null;
  status: string;
  scheduled_at: number | null;
  due_at: number | null;
  attempt_count: number;
  created_at: number;
  updated_at: number;
  started_at: number | null;
  completed_at: number | null;
  cancelled_at: number | null;
  cancel_requested_at: number | null;
  version: number;
}

export const REQUEST_COLUMNS = [
  'id', 'project_id', 'url', 'url_lower', 'method', 'headers', 'body', 'content_type', 'max_attempts',
  'timeout_seconds', 'queue', 'metadata', 'source', 'replayed_from_request_id', 'schedule_id', 'status',
  'scheduled_at', 'due_at', 'attempt_count', 'created_at', 'updated_at', 'started_at', 'completed_at',
  'cancelled_at', 'cancel_requested_at', 'version',
] as const satisfies ReadonlyArray<keyof RequestRow>;

/** Lower-cased once at write time so the URL search needs no per-row function call. */
export function lowerUrl(url: string): string {
  return url.toLowerCase();
}

export function requestToRow(r: StoredRequest): RequestRow {
  return {
    id: r.id,
    project_id: r.projectId,
    url: r.url,
    url_lower: lowerUrl(r.url),
    method: r.method,
    // An array of pairs keeps order, spelling and repeated names exactly as given.
    headers: JSON.stringify(r.headers),
    body: r.body,
    content_type: r.contentType,
    max_attempts: r.maxAttempts,
    timeout_seconds: r.timeoutSeconds,
    queue: r.queue,
    metadata: JSON.stringify(r.metadata),
    source: r.source,
    replayed_from_request_id: r.replayedFromRequestId,
    schedule_id: r.scheduleId,
    status: r.status,
    scheduled_at: r.scheduledAt,
    due_at: r.dueAt,
    attempt_count: r.attemptCount,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
    started_at: r.startedAt,
    completed_at: r.completedAt,
    cancelled_at: r.cancelledAt,
    cancel_requested_at: r.cancelRequestedAt,
    version: r.version,
  };
}

export function requestFromRow(row: RequestRow): StoredRequest {
  return {
    id: row.id,
    projectId: row.project_id,
    url: row.url,
    method: row.method as HttpMethod,
    headers: JSON.parse(row.headers) as HeaderEntry[],
    body: plainBytes(row.body),
    contentType: row.content_type,
    maxAttempts: row.max_attempts,
    timeoutSeconds: row.timeout_seconds,
    queue: row.queue,
    metadata: JSON.parse(row.metadata) as Record<string, string>,
    source: row.source as RequestSource,
    replayedFromRequestId: row.replayed_from_request_id,
    scheduleId: row.schedule_id,
    status: row.status as RequestStatus,
    scheduledAt: row.scheduled_at,
    dueAt: row.due_at,
    attemptCount: row.attempt_count,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    startedAt: row.started_at,
    completedAt: row.completed_at,
    cancelledAt: row.cancelled_at,
    cancelRequestedAt: row.cancel_requested_at,
    version: row.version,
  };
}

/** An `attempts` row as SQLite returns it. */
export interface AttemptRow {
  request_id: string;
  attempt_number: number;
  project_id: string;
  status: string;
  response_status_code: number | null;
  error_message: string | null;
  duration_ms: number;
  started_at: number;
  completed_at: number;
  retry: string | null;
}

export function attemptToRow(projectId: string, a: AttemptRecord): AttemptRow {
  return {
    request_id: a.requestId,
    attempt_number: a.attemptNumber,
    project_id: projectId,
    status: a.status,
    response_status_code: a.responseStatusCode,
    error_message: a.errorMessage,
    duration_ms: a.durationMs,
    started_at: a.startedAt,
    completed_at: a.completedAt,
    retry: a.retry === null ? null : JSON.stringify(a.retry),
  };
}

export function attemptFromRow(row: AttemptRow): AttemptRecord {
  return {
    requestId: row.request_id,
    attemptNumber: row.attempt_number,
    status: row.status as AttemptRecord['status'],
    responseStatusCode: row.response_status_code,
    errorMessage: row.error_message,
    durationMs: row.duration_ms,
    startedAt: row.started_at,
    completedAt: row.completed_at,
    retry: row.retry === null ? null : (JSON.parse(row.retry) as RetryDecision),
  };
}
