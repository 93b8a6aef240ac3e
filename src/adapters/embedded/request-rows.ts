import type Database from 'better-sqlite3';
import type { AttemptRecord, FinalReason, HeaderEntry, HttpMethod, RequestSource, RequestStatus, RetryDecision, StoredRequest } from '../../domain/request.js';
import { CLAIMED_FROM } from '../../domain/request-lifecycle/index.js';
import {
  callbackIdsColumn,
  callbackIdsFromColumn,
  callbacksColumn,
  callbacksFromColumn,
  flowKeysColumn,
  flowKeysFromColumn,
  waitingForColumn,
  waitingForFromColumn,
} from '../request-json-columns.js';
import { statusList } from '../request-patch-columns.js';
import { plainBytes } from './bytes.js';
import { excerptFromStorage } from './excerpt-bytes.js';
import type { ExcerptPacks } from './excerpt-packs.js';

// Rows cross the driver as positional values: binding by name and reading keyed row objects cost a property
// lookup or creation per column for every row.

/** Statuses `claimDue` takes; spelled as the partial index `requests_due` spells them, so queries can use it. */
export const CLAIMABLE_SQL = statusList(CLAIMED_FROM);

/** Columns read back into a request, in the order of `RequestValues`. */
const READ_COLUMNS = [
  'id', 'project_id', 'url', 'method', 'headers', 'body', 'content_type', 'max_attempts', 'timeout_seconds',
  'queue', 'metadata', 'source', 'replayed_from_request_id', 'schedule_id', 'status', 'scheduled_at', 'due_at',
  'attempt_count', 'created_at', 'updated_at', 'started_at', 'completed_at', 'cancelled_at', 'cancel_requested_at',
  'version', 'flow_keys', 'waiting_for', 'last_status_code', 'callbacks', 'callback_for_request_id', 'callback_request_ids',
] as const;

/** A `requests` row read in raw mode with `REQUEST_SELECT_LIST`. */
type RequestValues = [
  id: string, project_id: string, url: string, method: string, headers: string, body: Uint8Array | null,
  content_type: string | null, max_attempts: number, timeout_seconds: number, queue: string, metadata: string,
  source: string, replayed_from_request_id: string | null, schedule_id: string | null, status: string,
  scheduled_at: number | null, due_at: number | null, attempt_count: number, created_at: number, updated_at: number,
  started_at: number | null, completed_at: number | null, cancelled_at: number | null,
  cancel_requested_at: number | null, version: number, flow_keys: string | null, waiting_for: string | null,
  last_status_code: number | null,
  callbacks: string | null, callback_for_request_id: string | null, callback_request_ids: string | null,
];

/** For SELECT and RETURNING of statements whose rows go through `requestFromValues`, prepared in raw mode. */
export const REQUEST_SELECT_LIST = READ_COLUMNS.join(', ');

export const INSERT_REQUEST = `INSERT INTO requests (url_lower, ${REQUEST_SELECT_LIST})
  VALUES (${['url_lower', ...READ_COLUMNS].map(() => '?').join(', ')})`;

/** Lower-cased once at write time so the URL search needs no per-row function call. */
export function lowerUrl(url: string): string {
  return url.toLowerCase();
}

/** Runs `INSERT_REQUEST` for one request. Fields without a column type of their own go as JSON text. */
export function insertRequest(insert: Database.Statement, r: StoredRequest): void {
  insert.run(
    lowerUrl(r.url), r.id, r.projectId, r.url, r.method,
    // An array of pairs keeps order, spelling and repeated names exactly as given.
    JSON.stringify(r.headers),
    r.body, r.contentType, r.maxAttempts, r.timeoutSeconds, r.queue, JSON.stringify(r.metadata), r.source,
    r.replayedFromRequestId, r.scheduleId, r.status, r.scheduledAt, r.dueAt, r.attemptCount, r.createdAt,
    r.updatedAt, r.startedAt, r.completedAt, r.cancelledAt, r.cancelRequestedAt, r.version,
    flowKeysColumn(r.flowKeys), waitingForColumn(r.waitingFor), r.lastStatusCode, callbacksColumn(r.callbacks), r.callbackForRequestId,
    callbackIdsColumn(r.callbackRequestIds),
  );
}

/** One row of `request_flow_keys`, per key a request names; bound in the order of `insertFlowKeys`. */
export const INSERT_FLOW_KEY = 'INSERT INTO request_flow_keys (project_id, flow_key, created_at, request_id) VALUES (?, ?, ?, ?)';

/** Runs `INSERT_FLOW_KEY` for each of a request's flow keys; most requests name none and write nothing here. */
export function insertFlowKeys(insert: Database.Statement, r: StoredRequest): void {
  for (const key of r.flowKeys) insert.run(r.projectId, key, r.createdAt, r.id);
}

export function requestFromValues(v: unknown): StoredRequest {
  const row = v as RequestValues;
  return {
    id: row[0],
    projectId: row[1],
    url: row[2],
    method: row[3] as HttpMethod,
    headers: JSON.parse(row[4]) as HeaderEntry[],
    body: plainBytes(row[5]),
    contentType: row[6],
    maxAttempts: row[7],
    timeoutSeconds: row[8],
    queue: row[9],
    metadata: JSON.parse(row[10]) as Record<string, string>,
    source: row[11] as RequestSource,
    replayedFromRequestId: row[12],
    scheduleId: row[13],
    status: row[14] as RequestStatus,
    scheduledAt: row[15],
    dueAt: row[16],
    attemptCount: row[17],
    createdAt: row[18],
    updatedAt: row[19],
    startedAt: row[20],
    completedAt: row[21],
    cancelledAt: row[22],
    cancelRequestedAt: row[23],
    version: row[24],
    flowKeys: flowKeysFromColumn(row[25]),
    waitingFor: waitingForFromColumn(row[26]),
    lastStatusCode: row[27],
    callbacks: callbacksFromColumn(row[28]),
    callbackForRequestId: row[29],
    callbackRequestIds: callbackIdsFromColumn(row[30]),
  };
}

export const INSERT_ATTEMPT = `INSERT INTO attempts (request_id, attempt_number, project_id, status, response_status_code,
  error_message, duration_ms, started_at, completed_at, retry, final_reason, response_headers,
  response_body_truncated, body_pack, body_offset, body_length) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** The attempt's row; its body excerpt, when it captured one, goes to the group's pack. */
export function insertAttempt(insert: Database.Statement, packs: ExcerptPacks, projectId: string, a: AttemptRecord): void {
  const r = a.response;
  const place = r?.body == null ? null : packs.place(r.body);
  insert.run(
    a.requestId, a.attemptNumber, projectId, a.status, a.responseStatusCode, a.errorMessage, a.durationMs,
    a.startedAt, a.completedAt, a.retry === null ? null : JSON.stringify(a.retry), a.finalReason,
    r === null ? null : JSON.stringify(r.headers), r === null ? null : r.bodyTruncated ? 1 : 0,
    place?.pack ?? null, place?.offset ?? null, place?.length ?? null,
  );
}

/**
 * For statements whose rows go through `attemptFromValues`, prepared in raw mode. The excerpt is cut from its pack,
 * or read from `attempt_bodies` for attempts recorded before packs. An empty excerpt is spelled out: `substr` of a
 * pack that holds only empty excerpts is NULL, not an empty value.
 */
export const ATTEMPT_SELECT_LIST =
  'a.request_id, a.attempt_number, a.status, a.response_status_code, a.error_message, a.duration_ms, a.started_at, a.completed_at, a.retry, ' +
  "a.final_reason, a.response_headers, coalesce(CASE a.body_length WHEN 0 THEN x'' ELSE substr(p.bytes, a.body_offset + 1, a.body_length) END, b.body), " +
  'a.response_body_truncated, b.deflated';

/** Where `ATTEMPT_SELECT_LIST` reads from: an attempt (`a`), its excerpt's pack (`p`) or older excerpt row (`b`). */
export const ATTEMPT_SOURCE =
  'attempts a LEFT JOIN attempt_body_packs p ON p.id = a.body_pack ' +
  'LEFT JOIN attempt_bodies b ON a.body_pack IS NULL AND b.request_id = a.request_id AND b.attempt_number = a.attempt_number';

type AttemptValues = [
  request_id: string, attempt_number: number, status: string, response_status_code: number | null,
  error_message: string | null, duration_ms: number, started_at: number, completed_at: number, retry: string | null,
  final_reason: string | null, response_headers: string | null, response_body: Uint8Array | null,
  response_body_truncated: number | null, deflated: number | null,
];

export function attemptFromValues(v: unknown): AttemptRecord {
  const row = v as AttemptValues;
  return {
    requestId: row[0],
    attemptNumber: row[1],
    status: row[2] as AttemptRecord['status'],
    responseStatusCode: row[3],
    errorMessage: row[4],
    durationMs: row[5],
    startedAt: row[6],
    completedAt: row[7],
    retry: row[8] === null ? null : (JSON.parse(row[8]) as RetryDecision),
    finalReason: row[9] as FinalReason | null,
    response: row[10] === null ? null : { headers: JSON.parse(row[10]) as HeaderEntry[], body: excerptFromStorage(row[11], row[13]), bodyTruncated: row[12] === 1 },
  };
}
