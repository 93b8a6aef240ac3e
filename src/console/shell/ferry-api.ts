import { Ferry } from '../../../sdk/src/client/ferry.js';
import { AuthenticationError, FerryApiError, FerryConnectionError, FerryError, FerryTimeoutError } from '../../../sdk/src/errors.js';

/**
 * The console talks to Ferry only through its public JSON API, with the published SDK's client and the key the
 * user signed in with, on the origin that served the console.
 */
export interface ConsoleApi {
  /** For reading: retried on 429, 502–504 and network failures, as the SDK does by default. */
  readonly reads: Ferry;
  /** For acting (send, cancel, replay, pause …): tried once, so the user sees each answer as it comes. */
  readonly actions: Ferry;
}

export function consoleApi(apiKey: string): ConsoleApi {
  const baseUrl = location.origin;
  return {
    reads: new Ferry({ baseUrl, apiKey, timeoutMs: 20_000 }),
    actions: new Ferry({ baseUrl, apiKey, timeoutMs: 20_000, maxRetries: 0 }),
  };
}

/** An error as the console shows it: what happened in words, and the API's own facts to quote. */
export interface ShownError {
  readonly title: string;
  readonly status: number | null;
  readonly code: string | null;
  readonly message: string;
  readonly field: string | null;
  readonly requestId: string | null;
  /** Seconds the API asked to wait before trying again (429, 503), when it said. */
  readonly retryAfter: string | null;
}

const TITLES: Record<number, string> = {
  400: 'The call was malformed',
  401: 'The API key was not accepted',
  404: 'Not found',
  409: 'Conflict',
  413: 'Too large',
  422: 'Ferry refused the input',
  429: 'Allowance or rate limit reached',
  503: 'Ferry is unavailable',
};

export function shownError(err: unknown): ShownError {
  if (err instanceof FerryApiError) {
    return {
      title: TITLES[err.status] ?? `Ferry answered ${err.status}`,
      status: err.status,
      code: err.code,
      message: err.message,
      field: err.field,
      requestId: err.requestId,
      retryAfter: err.headers.get('Retry-After'),
    };
  }
  const title =
    err instanceof FerryTimeoutError ? 'Ferry did not answer in time' : err instanceof FerryConnectionError ? 'Ferry could not be reached' : 'Something went wrong';
  const message = err instanceof FerryError || err instanceof Error ? err.message : String(err);
  return { title, status: null, code: null, message, field: null, requestId: null, retryAfter: null };
}

/** True when the key itself is refused: the console then signs out and says so. */
export function isKeyRefused(err: unknown): boolean {
  return err instanceof AuthenticationError;
}
