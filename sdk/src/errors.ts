import type { components } from './schema.js';

/** A stable error code of the Ferry error catalogue, such as `INVALID_URL` or `IDEMPOTENCY_KEY_REUSED`. */
export type FerryErrorCode = components['schemas']['Error']['code'];

/**
 * The code given to failures that did not come with a Ferry error envelope, such as an HTML page from a proxy in
 * front of the service.
 */
export const UNEXPECTED_RESPONSE = 'UNEXPECTED_RESPONSE';

/**
 * A call that Ferry answered with an error. Network failures are not wrapped: they reject with whatever `fetch`
 * threw.
 */
export class FerryApiError extends Error {
  override readonly name = 'FerryApiError';

  constructor(
    /** The HTTP status of the response. */
    readonly status: number,
    /** The catalogue code, or `UNEXPECTED_RESPONSE` when the response was not a Ferry error envelope. */
    readonly code: FerryErrorCode | typeof UNEXPECTED_RESPONSE,
    message: string,
    /** The input field at fault as a JSON path such as `requests[2].url`, or null when no single field is. */
    readonly field: string | null,
    /** The `request_id` of the call, to quote to support; null when the response carried none. */
    readonly requestId: string | null,
  ) {
    super(message);
  }

  /** Builds the error from a failed response and its parsed body (or raw text when it was not JSON). */
  static fromResponse(response: Response, body: unknown): FerryApiError {
    const headerId = response.headers.get('Ferry-Request-Id');
    const envelope = body as { error?: { code?: unknown; message?: unknown; field?: unknown }; request_id?: unknown } | null;
    const error = typeof envelope === 'object' && envelope !== null ? envelope.error : undefined;
    if (error && typeof error.code === 'string' && typeof error.message === 'string') {
      const requestId = typeof envelope?.request_id === 'string' ? envelope.request_id : headerId;
      const field = typeof error.field === 'string' ? error.field : null;
      return new FerryApiError(response.status, error.code as FerryErrorCode, error.message, field, requestId);
    }
    return new FerryApiError(response.status, UNEXPECTED_RESPONSE, `Unexpected ${response.status} response without a Ferry error.`, null, headerId);
  }
}
