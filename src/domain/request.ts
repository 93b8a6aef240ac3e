import type { WaitingFor } from './flow/budgets.js';

/**
 * Where a request stands. `cancellation_requested` is a response value of cancel, never a stored status. The status
 * sets and the transitions between them are in `request-lifecycle/`.
 */
export type RequestStatus = 'scheduled' | 'queued' | 'delivering' | 'succeeded' | 'failed' | 'cancelled';
export type RequestSource = 'api' | 'recurring' | 'replay' | 'callback';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export const REQUEST_STATUSES: readonly RequestStatus[] = ['scheduled', 'queued', 'delivering', 'succeeded', 'failed', 'cancelled'];
export const REQUEST_SOURCES: readonly RequestSource[] = ['api', 'recurring', 'replay', 'callback'];
export const HTTP_METHODS: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * Where Ferry reports a request's ending (see `callbacks.ts`): `onSuccess` when it succeeded, `onFailure` when it
 * failed. At least one is set; a request without callbacks has null, not an object of two nulls.
 */
export interface RequestCallbacks {
  readonly onSuccess: string | null;
  readonly onFailure: string | null;
}

/** Header name and value, in the order and spelling the caller gave. */
export type HeaderEntry = readonly [name: string, value: string];

/**
 * A validated, normalised delivery definition: everything needed to deliver, and everything a replay copies.
 * Times are not part of it: a replay starts at once.
 */
export interface RequestDefinition {
  readonly url: string;
  readonly method: HttpMethod;
  readonly headers: readonly HeaderEntry[];
  /** Exact body bytes, or null for no body. */
  readonly body: Uint8Array | null;
  /** Content type delivered with the body, or null for none. */
  readonly contentType: string | null;
  readonly maxAttempts: number;
  readonly timeoutSeconds: number;
  readonly queue: string;
  /** The flow keys whose budgets, beside the queue's, each attempt must fit (`src/domain/flow/`); at most four. */
  readonly flowKeys: readonly string[];
  readonly metadata: Readonly<Record<string, string>>;
  /** Where its ending is reported; null for none (always null on a callback, which has no callbacks of its own). */
  readonly callbacks: RequestCallbacks | null;
}

/** A request as stored. Times are milliseconds since the Unix epoch, UTC. */
export interface StoredRequest extends RequestDefinition {
  readonly id: string;
  readonly projectId: string;
  readonly source: RequestSource;
  readonly replayedFromRequestId: string | null;
  readonly scheduleId: string | null;
  /** On a callback (`source` `callback`): the request whose ending it reports; null on any other request. */
  readonly callbackForRequestId: string | null;
  /** The callbacks Ferry created for this request's ending: empty until then, and for ever when it has none. */
  readonly callbackRequestIds: readonly string[];
  readonly status: RequestStatus;
  /** Absolute delivery time of a delayed request; null when it was due at once. */
  readonly scheduledAt: number | null;
  /** When the next attempt is due; null once terminal. */
  readonly dueAt: number | null;
  readonly attemptCount: number;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly startedAt: number | null;
  readonly completedAt: number | null;
  readonly cancelledAt: number | null;
  /** Set when a cancel arrives while an attempt is in flight; the attempt's end then settles the request. */
  readonly cancelRequestedAt: number | null;
  /** The budget that last held the request back (set when handed back for it), or null. */
  readonly waitingFor: WaitingFor | null;
  /**
   * The HTTP status code of its last attempt's response: null before any attempt, and when the last attempt got
   * no response (a network error, a timeout). Set with each attempt, so the list can filter on it.
   */
  readonly lastStatusCode: number | null;
  /** Incremented on every change; conditional updates compare it. */
  readonly version: number;
}

/** What a completed attempt recorded. */
export interface AttemptRecord {
  readonly requestId: string;
  readonly attemptNumber: number;
  readonly status: 'succeeded' | 'failed' | 'timed_out' | 'errored';
  readonly responseStatusCode: number | null;
  readonly errorMessage: string | null;
  readonly durationMs: number;
  readonly startedAt: number;
  readonly completedAt: number;
  readonly retry: RetryDecision | null;
  /** Why this attempt ended its request; null unless it made the request `failed` (a success is no reason). */
  readonly finalReason: FinalReason | null;
  /** What the destination answered; null when no response came. */
  readonly response: CapturedResponse | null;
}

/** Why an attempt ended its request (see `src/domain/delivery/response.ts`). */
export type FinalReason = 'receiver_stopped' | 'attempts_exhausted' | 'final_status';
export const FINAL_REASONS: readonly FinalReason[] = ['receiver_stopped', 'attempts_exhausted', 'final_status'];

/** What an attempt kept of the answer it got (see `src/domain/delivery/response.ts`). */
export interface CapturedResponse {
  /** The kept headers, names lower-cased, in the order received. */
  readonly headers: readonly HeaderEntry[];
  /** The body's first bytes; null when the project turned capture off. */
  readonly body: Uint8Array | null;
  /** True when the body went on past the excerpt. */
  readonly bodyTruncated: boolean;
}

export interface RetryDecision {
  readonly reason: string;
  readonly retryAfterRaw: string;
  readonly retryAfterTruncated: boolean;
  readonly retryAfterEscaped: boolean;
  readonly retryAfterStatus: 'valid' | 'invalid' | 'absent';
  readonly retryAfterDelayMs: number;
  readonly backoffDelayMs: number;
  readonly selectedDelayMs: number;
  readonly delaySource: 'retry_after' | 'backoff';
  readonly nextAttemptAt: number;
}

/** The answer to an accepted request; kept verbatim by idempotency records. */
export interface Acceptance {
  readonly id: string;
  readonly projectId: string;
  readonly replayedFromRequestId: string | null;
  readonly status: 'queued' | 'scheduled';
  readonly scheduledAt: number | null;
  readonly createdAt: number;
}

export function acceptanceOf(r: StoredRequest): Acceptance {
  return {
    id: r.id,
    projectId: r.projectId,
    replayedFromRequestId: r.replayedFromRequestId,
    // As answered at acceptance, whatever became of the request since.
    status: r.scheduledAt !== null ? 'scheduled' : 'queued',
    scheduledAt: r.scheduledAt,
    createdAt: r.createdAt,
  };
}

/** Fields a change of state may set (see `Transition` in `request-lifecycle/`). */
export type RequestPatch = Partial<
  Pick<
    StoredRequest,
    | 'status'
    | 'dueAt'
    | 'attemptCount'
    | 'updatedAt'
    | 'startedAt'
    | 'completedAt'
    | 'cancelledAt'
    | 'cancelRequestedAt'
    | 'waitingFor'
    | 'lastStatusCode'
    | 'callbackRequestIds'
  >
>;

/** The delivery definition of a stored request: what a replay copies. */
export function definitionOf(r: RequestDefinition): RequestDefinition {
  return {
    url: r.url,
    method: r.method,
    headers: r.headers,
    body: r.body,
    contentType: r.contentType,
    maxAttempts: r.maxAttempts,
    timeoutSeconds: r.timeoutSeconds,
    queue: r.queue,
    flowKeys: r.flowKeys,
    metadata: r.metadata,
    callbacks: r.callbacks,
  };
}
