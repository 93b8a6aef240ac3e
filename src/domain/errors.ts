/**
 * The error catalogue: every error Ferry reports, with its HTTP status and its gRPC/Connect code. Every protocol
 * reports errors from this table and nothing else; the README lists it and a test keeps the two in step.
 */
export const ERROR_CATALOGUE = {
  MALFORMED_REQUEST: { status: 400, rpc: 'invalid_argument', summary: 'The HTTP request itself is malformed (request line, header syntax or framing).' },
  UNAUTHENTICATED: { status: 401, rpc: 'unauthenticated', summary: 'The API key is missing, malformed, unknown or revoked.' },
  NOT_FOUND: { status: 404, rpc: 'not_found', summary: 'No such resource in this project (also for malformed IDs and expired history).' },
  ROUTE_NOT_FOUND: { status: 404, rpc: 'unimplemented', summary: 'No route has this method and path.' },
  METHOD_NOT_ALLOWED: { status: 405, rpc: 'unimplemented', summary: 'The path exists but not with this method; the Allow header lists the methods it has.' },
  REQUEST_TIMEOUT: { status: 408, rpc: 'deadline_exceeded', summary: 'The request\'s headers or body took too long to arrive.' },
  IDEMPOTENCY_KEY_REUSED: { status: 409, rpc: 'already_exists', summary: 'The idempotency key was used before with different input.' },
  IDEMPOTENCY_KEY_IN_USE: { status: 409, rpc: 'aborted', summary: 'Another call with this idempotency key is still in progress; retry shortly.' },
  REQUEST_COMPLETED: { status: 409, rpc: 'failed_precondition', summary: 'The request already succeeded or failed and cannot be cancelled.' },
  REQUEST_ACTIVE: { status: 409, rpc: 'failed_precondition', summary: 'Only completed or cancelled requests can be replayed.' },
  SCHEDULE_ENDED: { status: 409, rpc: 'failed_precondition', summary: 'The schedule has ended (its run limit or the end of its timing) and cannot be resumed or triggered.' },
  SCHEDULE_OVERLAP: { status: 409, rpc: 'failed_precondition', summary: 'The schedule\'s overlap policy is skip or buffer_one and its previous occurrence\'s request is still active.' },
  PAYLOAD_TOO_LARGE: { status: 413, rpc: 'resource_exhausted', summary: 'A body or structured request is over its size limit.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, rpc: 'unimplemented', summary: 'The body\'s Content-Type or Content-Encoding is not one this path reads (request bodies take no content coding).' },
  INVALID_JSON: { status: 422, rpc: 'invalid_argument', summary: 'The body is not valid JSON or not of the expected JSON type.' },
  INVALID_PROTOBUF: { status: 422, rpc: 'invalid_argument', summary: 'A gRPC or Connect body is not one well-formed Protobuf message of the call\'s request type.' },
  UNKNOWN_FIELD: { status: 422, rpc: 'invalid_argument', summary: 'A JSON field or query parameter is not part of the API.' },
  INVALID_FIELD: { status: 422, rpc: 'invalid_argument', summary: 'A field has the wrong type or an invalid value.' },
  MISSING_FIELD: { status: 422, rpc: 'invalid_argument', summary: 'A required field or header is absent.' },
  INVALID_URL: { status: 422, rpc: 'invalid_argument', summary: 'The URL is malformed, too long, not HTTPS, or has credentials or a fragment.' },
  DESTINATION_NOT_ALLOWED: { status: 422, rpc: 'invalid_argument', summary: 'The destination is not a public address (loopback, private, link-local, reserved).' },
  INVALID_METHOD: { status: 422, rpc: 'invalid_argument', summary: 'The method is not GET, POST, PUT, PATCH or DELETE.' },
  INVALID_RETRY: { status: 422, rpc: 'invalid_argument', summary: 'The retry count or attempt budget is out of range, or the backoff is unknown.' },
  INVALID_DELAY: { status: 422, rpc: 'invalid_argument', summary: 'The delay is not an integer with s, m, h or d between 1s and 30d.' },
  INVALID_DELIVER_AT: { status: 422, rpc: 'invalid_argument', summary: 'deliver_at is not RFC 3339, is more than 30 days ahead, or comes with delay.' },
  INVALID_TIMEOUT: { status: 422, rpc: 'invalid_argument', summary: 'The timeout is not whole seconds or minutes between 1s and 5m.' },
  INVALID_QUEUE: { status: 422, rpc: 'invalid_argument', summary: 'The queue label is not 1 to 64 letters, digits, dots, hyphens or underscores.' },
  INVALID_FLOW_KEY: { status: 422, rpc: 'invalid_argument', summary: 'A flow key is not 1 to 64 letters, digits, dots, hyphens, underscores or colons, or a request names more than 4 keys or one twice.' },
  INVALID_HEADERS: { status: 422, rpc: 'invalid_argument', summary: 'A destination header is malformed, reserved, or over the count or size limit.' },
  INVALID_CONTENT_TYPE: { status: 422, rpc: 'invalid_argument', summary: 'The Content-Type header is over 255 bytes or malformed.' },
  INVALID_METADATA: { status: 422, rpc: 'invalid_argument', summary: 'Metadata breaks a key, value, count or size rule.' },
  INVALID_IDEMPOTENCY_KEY: { status: 422, rpc: 'invalid_argument', summary: 'The idempotency key is not 1 to 255 bytes, or a required one is missing or repeated.' },
  INVALID_BATCH: { status: 422, rpc: 'invalid_argument', summary: 'The batch does not hold 1 to 100 requests.' },
  INVALID_FILTER: { status: 422, rpc: 'invalid_argument', summary: 'A list filter (status, search, method, source, schedule_id, from, to) is invalid.' },
  INVALID_LIMIT: { status: 422, rpc: 'invalid_argument', summary: 'The page size is not an integer from 1 to 100.' },
  INVALID_CURSOR: { status: 422, rpc: 'invalid_argument', summary: 'The cursor is not one this API issued for the same filters.' },
  INVALID_NAME: { status: 422, rpc: 'invalid_argument', summary: 'The schedule name is not 1 to 120 bytes after trimming.' },
  INVALID_TIMING: { status: 422, rpc: 'invalid_argument', summary: 'The timing is not a valid cron (five fields, IANA zone, fires at all, a known dst policy) or interval (whole minutes, 60 s to 30 days), or its starts_at or ends_at is not a future time in order with a run before the end.' },
  INVALID_BUDGET: { status: 422, rpc: 'invalid_argument', summary: 'A queue or flow key limit is out of range: rate.limit and rate.burst whole numbers from 1, rate.period 1s to 1h, concurrency 1 to 10,000.' },
  INVALID_STORED_DEFINITION: { status: 422, rpc: 'invalid_argument', summary: 'The stored request no longer passes current validation and cannot be replayed.' },
  MONTHLY_ALLOWANCE_EXCEEDED: { status: 429, rpc: 'resource_exhausted', summary: 'The project has no monthly request allowance left for this call.' },
  SCHEDULE_ALLOWANCE_EXCEEDED: { status: 429, rpc: 'resource_exhausted', summary: 'The project has reached its schedule allowance.' },
  BULK_ACTIONS_LIMIT: { status: 429, rpc: 'resource_exhausted', summary: 'The project already runs its limit of 3 bulk actions at once; wait for one to end or cancel one.' },
  HEADERS_TOO_LARGE: { status: 431, rpc: 'resource_exhausted', summary: 'The request headers are over 64 KiB in all.' },
  STORAGE_UNAVAILABLE: { status: 503, rpc: 'unavailable', summary: 'The operation could not be durably accepted or applied; nothing was changed, retry later.' },
  SHUTTING_DOWN: { status: 503, rpc: 'unavailable', summary: 'This Ferry process is shutting down and takes no new calls; retry, and the call reaches a running one.' },
  INTERNAL: { status: 500, rpc: 'internal', summary: 'An unexpected error; quote the request_id to support.' },
} as const satisfies Record<string, { status: number; rpc: RpcCode; summary: string }>;

export type RpcCode =
  | 'invalid_argument' | 'not_found' | 'already_exists' | 'aborted' | 'failed_precondition'
  | 'resource_exhausted' | 'unauthenticated' | 'unavailable' | 'internal' | 'unimplemented' | 'deadline_exceeded';

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** The one error type of the domain; protocols translate it, never invent their own. */
export class FerryError extends Error {
  override readonly name = 'FerryError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** The input field at fault as a JSON path (`requests[2].url`), or undefined. */
    readonly field?: string,
    /**
     * When a retry can succeed, in whole seconds from now: sent as `Retry-After` (JSON API and Connect) or
     * `retry-after` metadata (gRPC). Undefined when waiting alone would not change the answer.
     */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }

  get status(): number {
    return ERROR_CATALOGUE[this.code].status;
  }

  /** The same error about a field nested under `prefix`, for batch items and nested objects. */
  under(prefix: string): FerryError {
    const field = this.field === undefined ? prefix : this.field.startsWith('[') ? `${prefix}${this.field}` : `${prefix}.${this.field}`;
    return new FerryError(this.code, this.message, field, this.retryAfterSeconds);
  }
}

/** How much of a value from the input an error message quotes; the rest is cut. */
export const QUOTED_INPUT_CHARS = 64;

/**
 * A value from the input as an error message quotes it: in JSON quotes, and cut to its first
 * `QUOTED_INPUT_CHARS` characters with its length told when longer, so an answer never grows with its input.
 */
export function quoteInput(value: string): string {
  if (value.length <= QUOTED_INPUT_CHARS) return JSON.stringify(value);
  return `${JSON.stringify(value.slice(0, QUOTED_INPUT_CHARS))}… (${value.length} characters)`;
}
