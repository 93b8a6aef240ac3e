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
  /**
   * How many of the response body's first bytes to hand back (`bodyStart` of the outcome); 0 or absent for none. They are
   * taken from the bounded read the transport makes anyway, never by reading more.
   */
  readonly captureBodyBytes?: number;
}

/**
 * Sends one attempt and reports what happened. It never throws for anything the destination or the network does:
 * every such event is an outcome. A response outcome carries the headers the delivery policy wants
 * (`isWantedResponseHeader`), names lower-cased, and the body's first bytes when asked. It never follows redirects, never sends to a non-public address (unless the
 * development setting allows it) and never reads a response body without a bound.
 */
export interface DeliveryTransport {
  send(request: OutboundRequest): Promise<TimedOutcome>;
  /**
   * Opens connections to the origin of `url` ahead of attempts known to be due soon, until `connections` are open
   * (those already open count), so a burst of attempts does not start with connection and TLS set-up. Best effort:
   * it reports nothing, a failure leaves the attempts to connect as they would have, and connections left unused
   * are closed again after a few seconds. Never connects where an attempt could not. Optional: a transport
   * without it connects when the attempts start.
   */
  prepare?(url: string, connections: number): void;
  /**
   * Stops every attempt started so far (shutdown): each ends `aborted`, to be handed back rather than recorded.
   * One call for all of them, so an attempt costs no abort signal of its own.
   */
  abortInFlight(): void;
  /** Ends what is in flight as `aborted`, and every later attempt too. */
  close(): Promise<void>;
}
