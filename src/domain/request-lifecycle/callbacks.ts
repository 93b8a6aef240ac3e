/**
 * Callbacks: when a request with `callbacks` ends, Ferry reports the ending to the URL named for it, as an ordinary
 * request of its own (`source` `callback`). `on_success` reports a request that succeeded, `on_failure` one that
 * failed, whatever the final reason. A cancelled request reports nothing: a cancel is the caller's own decision,
 * not an outcome of delivery. Only the deliverer's settling of an attempt ends a request `succeeded` or `failed`, so
 * only `settleAttempt` makes callbacks, and the store writes the callback in the same write as the ending.
 *
 * Exactly one per ending: the callback's ID is derived from the original's (`callbackRequestId`), so every write of
 * that ending (repeated, or by an owner that lost the shard) lands on one callback. A callback has no callbacks of
 * its own, so a failed callback reports nothing.
 */
import { bodyText } from '../delivery/response.js';
import { callbackRequestId } from '../ids.js';
import type { AttemptRecord, CapturedResponse, StoredRequest } from '../request.js';
import { DEFAULT_QUEUE, DEFAULT_TIMEOUT_SECONDS } from '../validation/limits.js';
import { accepted } from './transitions.js';

/** Attempts a callback gets: the first and two retries. */
export const CALLBACK_MAX_ATTEMPTS = 3;

/** The content type of a callback's body. */
export const CALLBACK_CONTENT_TYPE = 'application/json';

/** The ending a callback reports, as its body says it. */
export interface CallbackReport {
  readonly request_id: string;
  readonly status: 'succeeded' | 'failed';
  readonly attempt_count: number;
  readonly created_at: string;
  readonly completed_at: string;
  readonly schedule_id: string | null;
  readonly metadata: Readonly<Record<string, string>>;
  readonly last_response: ReportedResponse | null;
}

/** The last attempt's `response`, as the API shows it, with its status code. */
export interface ReportedResponse {
  readonly status_code: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | null;
  readonly body_encoding: 'utf8' | 'base64' | null;
  readonly body_truncated: boolean;
}

/**
 * The callback for `r` ending `status` at `completedAt` with `last` as its last attempt; null when the request
 * names no URL for that ending. `shardCount` places the callback on the original's shard.
 */
export function callbackFor(
  r: StoredRequest,
  status: 'succeeded' | 'failed',
  last: AttemptRecord,
  completedAt: number,
  shardCount: number,
): StoredRequest | null {
  const url = status === 'succeeded' ? r.callbacks?.onSuccess : r.callbacks?.onFailure;
  if (url === undefined || url === null) return null;
  const report: CallbackReport = {
    request_id: r.id,
    status,
    attempt_count: last.attemptNumber,
    created_at: new Date(r.createdAt).toISOString(),
    completed_at: new Date(completedAt).toISOString(),
    schedule_id: r.scheduleId,
    metadata: r.metadata,
    last_response: reportedResponse(last.responseStatusCode, last.response),
  };
  const who = { id: callbackRequestId(r.id, shardCount), projectId: r.projectId, source: 'callback' as const, replayedFromRequestId: null, scheduleId: null, callbackForRequestId: r.id };
  const definition = {
    url,
    method: 'POST' as const,
    headers: [],
    body: new TextEncoder().encode(JSON.stringify(report)),
    contentType: CALLBACK_CONTENT_TYPE,
    maxAttempts: CALLBACK_MAX_ATTEMPTS,
    timeoutSeconds: DEFAULT_TIMEOUT_SECONDS,
    queue: DEFAULT_QUEUE,
    flowKeys: [],
    metadata: {},
    callbacks: null,
  };
  return accepted(who, definition, null, completedAt);
}

function reportedResponse(statusCode: number | null, response: CapturedResponse | null): ReportedResponse | null {
  if (statusCode === null || response === null) return null;
  const body = response.body === null ? null : bodyText(response.body);
  // Repeated names read as one, joined as RFC 9110 reads them: as the API shows an attempt's response.
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  return {
    status_code: statusCode,
    headers,
    body: body?.text ?? null,
    body_encoding: body?.encoding ?? null,
    body_truncated: response.bodyTruncated,
  };
}

/** A replay of a callback is again a callback for the same request, without callbacks (the definition has none). */
export function replayedCallbackFor(r: Pick<StoredRequest, 'source' | 'callbackForRequestId'>): string | null {
  return r.source === 'callback' ? r.callbackForRequestId : null;
}
