import type { components } from './schema.js';

/** A stable error code of Ferry's error catalogue, such as `INVALID_URL` or `IDEMPOTENCY_KEY_REUSED`. */
export type FerryErrorCode = components['schemas']['Error']['code'];

/**
 * The code given to failures that did not come with a Ferry error envelope, such as an HTML page from a proxy in
 * front of the service.
 */
export const UNEXPECTED_RESPONSE = 'UNEXPECTED_RESPONSE';

/** What a {@link FerryApiError} carries besides its class. */
export interface FerryApiErrorFacts {
  /** The HTTP status of the response. */
  status: number;
  /** The catalogue code, or `UNEXPECTED_RESPONSE` when the response was not a Ferry error envelope. */
  code: FerryErrorCode | typeof UNEXPECTED_RESPONSE;
  message: string;
  /** The input field at fault as a JSON path such as `requests[2].url`, or null when no single field is. */
  field: string | null;
  /** The `request_id` of the call, to quote to support; null when the response carried none. */
  requestId: string | null;
  /** The response headers. */
  headers: Headers;
}

/** The base of every error the client throws; `instanceof FerryError` catches them all. */
export class FerryError extends Error {
  override name = 'FerryError';
}

/** Ferry (or something in front of it) answered the call with an error status. */
export class FerryApiError extends FerryError {
  override name = 'FerryApiError';
  readonly status: number;
  readonly code: FerryErrorCode | typeof UNEXPECTED_RESPONSE;
  readonly field: string | null;
  readonly requestId: string | null;
  readonly headers: Headers;

  constructor(facts: FerryApiErrorFacts) {
    super(facts.message);
    this.status = facts.status;
    this.code = facts.code;
    this.field = facts.field;
    this.requestId = facts.requestId;
    this.headers = facts.headers;
  }
}

/** 400: the call itself was malformed. */
export class BadRequestError extends FerryApiError {
  override name = 'BadRequestError';
}
/** 401 `UNAUTHENTICATED`: the API key is missing, unknown or revoked. */
export class AuthenticationError extends FerryApiError {
  override name = 'AuthenticationError';
}
/** 403: the key may not do this. */
export class PermissionDeniedError extends FerryApiError {
  override name = 'PermissionDeniedError';
}
/** 404 `NOT_FOUND` (no such resource in the key's project) or `ROUTE_NOT_FOUND`. */
export class NotFoundError extends FerryApiError {
  override name = 'NotFoundError';
}
/** 405 `METHOD_NOT_ALLOWED`. */
export class MethodNotAllowedError extends FerryApiError {
  override name = 'MethodNotAllowedError';
}
/** 409: an idempotency key reused with other input, or a cancel or replay the request's state forbids. */
export class ConflictError extends FerryApiError {
  override name = 'ConflictError';
}
/** 413 `PAYLOAD_TOO_LARGE`: a body or structured request over its limit. */
export class PayloadTooLargeError extends FerryApiError {
  override name = 'PayloadTooLargeError';
}
/** 422: an input Ferry refuses; `field` names the culprit when one does. */
export class UnprocessableEntityError extends FerryApiError {
  override name = 'UnprocessableEntityError';
}

/** 429: the monthly request allowance or the schedule allowance is used up. */
export class RateLimitError extends FerryApiError {
  override name = 'RateLimitError';
  /** The wait the response asked for with `Retry-After`, in seconds; null when it asked for none. */
  readonly retryAfterSeconds: number | null;

  constructor(facts: FerryApiErrorFacts & { retryAfterSeconds: number | null }) {
    super(facts);
    this.retryAfterSeconds = facts.retryAfterSeconds;
  }
}

/** 500 or another 5xx that is not a temporary unavailability. */
export class InternalServerError extends FerryApiError {
  override name = 'InternalServerError';
}
/** 502, 503 or 504: nothing was applied (`STORAGE_UNAVAILABLE`), or a gateway in front of Ferry failed. */
export class ServiceUnavailableError extends FerryApiError {
  override name = 'ServiceUnavailableError';
}

/** No HTTP answer: the connection was refused, reset or closed early, or the name did not resolve. */
export class FerryConnectionError extends FerryError {
  override name = 'FerryConnectionError';
}
/** The call's `timeoutMs` passed before an answer arrived, on every attempt. */
export class FerryTimeoutError extends FerryError {
  override name = 'FerryTimeoutError';
}
/** The caller's `signal` aborted the call; Ferry may still have applied it. Never retried. */
export class FerryAbortError extends FerryError {
  override name = 'FerryAbortError';
}

const CLASS_BY_STATUS: Record<number, typeof FerryApiError> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  405: MethodNotAllowedError,
  409: ConflictError,
  413: PayloadTooLargeError,
  422: UnprocessableEntityError,
  502: ServiceUnavailableError,
  503: ServiceUnavailableError,
  504: ServiceUnavailableError,
};

/**
 * Builds the error for a failed response from its status, headers and body text. A Ferry error envelope gives the
 * code, message and field; anything else (an HTML page from a proxy, an empty body) becomes `UNEXPECTED_RESPONSE`.
 * `retryAfterSeconds` is the response's Retry-After as read by the caller, kept on a {@link RateLimitError}.
 */
export function errorFromResponse(status: number, headers: Headers, text: string, retryAfterSeconds: number | null = null): FerryApiError {
  const envelope = parseJson(text) as { error?: { code?: unknown; message?: unknown; field?: unknown }; request_id?: unknown } | undefined;
  const error = typeof envelope === 'object' && envelope !== null ? envelope.error : undefined;
  const isFerryError = typeof error === 'object' && error !== null && typeof error.code === 'string' && typeof error.message === 'string';
  const facts: FerryApiErrorFacts = {
    status,
    code: isFerryError ? (error.code as FerryErrorCode) : UNEXPECTED_RESPONSE,
    message: isFerryError ? (error.message as string) : `Unexpected ${status} response without a Ferry error envelope.`,
    field: isFerryError && typeof error.field === 'string' ? error.field : null,
    requestId: typeof envelope?.request_id === 'string' ? envelope.request_id : headers.get('Ferry-Request-Id'),
    headers,
  };
  if (status === 429) return new RateLimitError({ ...facts, retryAfterSeconds });
  const ErrorClass = CLASS_BY_STATUS[status] ?? (status >= 500 ? InternalServerError : FerryApiError);
  return new ErrorClass(facts);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
