import type { HandlerContext } from '@connectrpc/connect';
import type { CallProtocol } from '../../ports/telemetry.js';

/** How a call was answered, as its protocol's answer stage handed it on: what the observer reports. */
export interface Answer {
  /** The HTTP status answered; for gRPC and Connect, the status of the same outcome over JSON HTTP. */
  readonly status: number;
  /** The catalogue code of a failure (or the RPC code name of an error Connect itself raised); undefined on success. */
  readonly code: string | undefined;
  /** The input field at fault, when the error names one. */
  readonly field: string | undefined;
  /** What was thrown behind a failure, for the log; undefined on success. */
  readonly thrown: unknown;
}

/**
 * One unary API call on its way through the chain, whatever protocol carried it. Each protocol extends it with
 * what its own stages need (the JSON gateway its response and route, Connect the request message).
 */
export interface UnaryCall {
  readonly protocol: CallProtocol;
  /** The route as the observer reports it: the JSON route template, the RPC's full name on the other protocols. */
  readonly route: string;
  /** The RPC's full name (`ferry.v1.RequestService/Send`). */
  readonly rpc: string;
  /** Sent back as `Ferry-Request-Id` (and the envelope's `request_id`), whatever the answer. */
  readonly requestId: string;
  /** `performance.now()` as the call arrived, before its input was read. */
  readonly startedAt: number;
  /** What the service is handed: it notes the caller's project and what it accepted in its values (see notes.ts). */
  readonly context: HandlerContext;
  /** Set by the protocol's answer stage once the answer is handed on; left undefined when the client left first. */
  answer: Answer | undefined;
}

export type UnaryHandler<C extends UnaryCall, R = unknown> = (call: C) => Promise<R>;

/** A stage every protocol shares: it sees only what every call has, and passes on what the stages within give back. */
export type SharedStage = <C extends UnaryCall, R>(next: UnaryHandler<C, R>) => UnaryHandler<C, R>;

/**
 * A protocol's answer stage: it turns what the stages within gave back (a response, or a thrown CallFailure) into
 * that protocol's answer, and notes on the call how it answered.
 */
export type AnswerStage<C extends UnaryCall, R> = (next: UnaryHandler<C>) => UnaryHandler<C, R>;
