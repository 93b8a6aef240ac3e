import type { HoldReason } from '../domain/flow/budgets.js';
import type { Acceptance } from '../domain/request.js';

/*
 * What the service tells its operator: log lines and metrics. Everything here is plain functions and data, so the
 * edge, the workers and the use cases report without knowing the logging or metrics libraries; the composition
 * root hands them implementations from `src/adapters/telemetry/`.
 */

export type LogLevel = 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * Writes one structured log line. `fields` become top-level JSON fields in snake_case. Never pass an API key, a
 * signing secret, a destination header value or a body: the logger redacts the usual field names as a second line
 * of defence, but what is never passed cannot leak.
 */
export type Log = (level: LogLevel, msg: string, fields?: Readonly<Record<string, unknown>>) => void;

/** The protocol an API call came in by. */
export type CallProtocol = 'json' | 'connect' | 'grpc' | 'grpc-web';

/**
 * One API call, as the edge reports it once the call has been answered: every protocol's calls pass the observe
 * stage of one call chain (`src/edge/calls/`), which takes the start time as the call arrives and reports here as
 * it ends.
 */
export interface ApiCall {
  readonly protocol: CallProtocol;
  /**
   * The route as a template, never with IDs in it: `POST /requests/{request_id}/cancel` for JSON calls,
   * the RPC's full name (`ferry.v1.RequestService/CancelRequest`) for the others, `unmatched` when no route matched.
   */
  readonly route: string;
  /** The RPC's full name, for every protocol; `unmatched` when no route matched. */
  readonly rpc: string;
  /** The HTTP status answered; for gRPC and Connect, the status of the same outcome over JSON HTTP. */
  readonly status: number;
  /** The error catalogue code of a failed call (or the RPC code name of a failure Connect raised itself). */
  readonly code: string | undefined;
  /** The input field at fault, as a JSON path, when the error names one. */
  readonly field: string | undefined;
  readonly durationMs: number;
  /** The `request_id` of the envelope, also sent as the `Ferry-Request-Id` header (and gRPC metadata). */
  readonly requestId: string;
  /** The authenticated project, once known. */
  readonly projectId: string | undefined;
  /** What an accept call answered (send, create and replay: one; batch: every item). */
  readonly accepted: Acceptance | readonly Acceptance[] | undefined;
  /** What was thrown behind a failure, for the log; undefined on success and for refusals made by the edge. */
  readonly error: unknown;
}

export interface ApiCallObserver {
  /** Called once per answered call, after the answer was handed to the connection. Must not throw. */
  observeCall(call: ApiCall): void;
}

/** What one attempt's end did to its request, as a class of outcome. */
export type DeliveryOutcome = 'succeeded' | 'retry_scheduled' | 'failed' | 'cancelled' | 'claim_lost';
/** How an attempt's exchange ended (`AttemptRecord.status`). */
export type AttemptResult = 'succeeded' | 'failed' | 'timed_out' | 'errored';
/** What became of a schedule's occurrence. */
export type OccurrenceOutcome = 'enqueued' | 'skipped_usage_limit' | 'skipped_overlap' | 'missed' | 'failed';
/** Where a request entered the accept path. */
export type AcceptEndpoint = 'send' | 'create' | 'batch' | 'replay' | 'schedule';
/** Which allowance refused work. */
export type AllowanceKind = 'monthly' | 'schedules';

/**
 * The service's metrics, in the domain's terms. Implementations keep every call cheap (no I/O, no string
 * building): they sit on the accept and delivery hot paths.
 */
export interface ServiceMetrics {
  /** Requests an accept call answered for, by the status they were answered with. */
  accepted(endpoint: AcceptEndpoint, status: Acceptance['status'], count: number): void;
  /** An attempt started, `latenessMs` after it fell due (null when its due time is not known). */
  attemptStarted(latenessMs: number | null): void;
  /** An attempt of a request in `queue` started (flow control counts per queue, never per key). */
  flowStarted(queue: string): void;
  /** A flow-control budget held a request of `queue` back. */
  flowHeld(queue: string, reason: HoldReason): void;
  /** An attempt's exchange ended. */
  attemptFinished(result: AttemptResult, durationMs: number): void;
  /** An attempt's outcome was recorded (or the claim behind it was lost); `retryDelayMs` when a retry was set. */
  delivered(outcome: DeliveryOutcome, retryDelayMs: number | null): void;
  occurrence(outcome: OccurrenceOutcome): void;
  allowanceRejected(kind: AllowanceKind): void;
  /** A storage call failed because storage could not serve it (`StorageUnavailable`); `store` names the port. */
  storageError(store: string): void;
  /** The Kafka client or a Kafka adapter reported a failure. */
  kafkaError(): void;
}
