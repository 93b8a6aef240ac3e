import type { HeaderEntry } from '../request.js';

/**
 * What one delivery attempt observed, before any decision about it. The transport produces it; the delivery
 * policy classifies it and decides whether another attempt follows.
 */
export type AttemptOutcome =
  /**
   * The destination answered with a status line; the body was read (bounded) and discarded but for its first bytes
   * when they were asked for. `headers` holds those the policy wants (`isWantedResponseHeader`), names lower-cased;
   * `bodyStart` the body's first bytes, absent when capture was off; `bodyTruncated` whether more followed.
   */
  | {
      readonly kind: 'response';
      readonly status: number;
      readonly retryAfter: string | null;
      readonly headers?: readonly HeaderEntry[];
      readonly bodyStart?: Uint8Array;
      readonly bodyTruncated?: boolean;
    }
  /** The attempt ran out of time: connecting, waiting for headers, reading the body, or overall. */
  | { readonly kind: 'timeout'; readonly phase: 'connect' | 'headers' | 'body' | 'total' }
  /** The name did not resolve (or resolved to nothing usable). */
  | { readonly kind: 'dns_error'; readonly code: string; readonly message: string }
  /** TCP-level failure: refused, reset, closed early. */
  | { readonly kind: 'connection_error'; readonly code: string; readonly message: string }
  /** The TLS handshake failed or the certificate was not trusted. */
  | { readonly kind: 'tls_error'; readonly code: string; readonly message: string }
  /** The destination resolved to or connected to an address that is not public; nothing was sent. */
  | { readonly kind: 'blocked'; readonly message: string }
  /** The attempt was stopped by Ferry itself (shutdown); it is handed back, not recorded. */
  | { readonly kind: 'aborted' };

export interface TimedOutcome {
  readonly outcome: AttemptOutcome;
  readonly startedAt: number;
  readonly durationMs: number;
}
