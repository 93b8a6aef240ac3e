import type { TimedOutcome } from '../../domain/delivery/outcome.js';
import type { OutboundRequest } from '../../ports/delivery-transport.js';
import type { HttpTransportOptions } from './transport.js';

/** What a delivery thread is started with: the transport's settings that survive a structured clone. */
export type TransportThreadData = Omit<HttpTransportOptions, 'lookup' | 'tcpConnect' | 'ca'> & { readonly ca?: string };

/** One attempt handed to a delivery thread; `id` pairs it with its outcome. */
export interface ThreadSend {
  readonly id: number;
  readonly request: OutboundRequest;
}

/** Connections to open ahead of attempts due soon (see `DeliveryTransport.prepare`). */
export interface ThreadPrepare {
  readonly url: string;
  readonly connections: number;
}

/**
 * Main thread to delivery thread: the attempts started in one turn, connections to open ahead, `abort` of all in
 * flight, or `close`.
 */
export type ToTransportThread = { readonly sends: readonly ThreadSend[] } | { readonly prepare: ThreadPrepare } | 'abort' | 'close';

/**
 * Delivery thread to main thread: the outcomes (a response's wanted headers and body excerpt included) of the
 * attempts that ended in one turn; the excerpts are views of one buffer, transferred with the message
 * (`outcome-batch.ts`). An attempt the transport
 * failed on (a fault of Ferry's own, never something a destination did) comes back with the error's text instead.
 */
export type FromTransportThread = ReadonlyArray<readonly [id: number, outcome: TimedOutcome] | readonly [id: number, outcome: null, fault: string]>;
