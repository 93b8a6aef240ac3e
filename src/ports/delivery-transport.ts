import type { TimedOutcome } from '../domain/delivery/outcome.js';

/** One HTTP request to send to a destination, exactly as it goes on the wire. */
export interface OutboundRequest {
  readonly url: string;
  readonly method: string;
  /** Every header to send, in order, including Ferry's own `Service-*` headers and the content type. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: Uint8Array | null;
  /** The whole attempt (connect, headers, body) must finish within this. */
  readonly timeoutMs: number;
  /** Aborts the attempt (shutdown); the outcome is then `aborted`. */
  readonly signal?: AbortSignal;
}

/**
 * Sends one attempt and reports what happened. It never throws for anything the destination or the network does:
 * every such event is an outcome. It never follows redirects, never sends to a non-public address (unless the
 * development setting allows it) and never reads a response body without a bound.
 */
export interface DeliveryTransport {
  send(request: OutboundRequest): Promise<TimedOutcome>;
  close(): Promise<void>;
}
