import { create } from '@bufbuild/protobuf';
import { timestampFromMs, type Timestamp } from '@bufbuild/protobuf/wkt';
import type { BudgetKind as DomainKind, HoldReason as DomainReason } from '../../domain/flow/budgets.js';
import { bodyText } from '../../domain/delivery/response.js';
import type { CapturedResponse, RequestCallbacks, Acceptance as DomainAcceptance, AttemptRecord, FinalReason as DomainFinalReason, StoredRequest } from '../../domain/request.js';
import { BudgetKind, HoldReason, WaitingForSchema, type WaitingFor } from '../../gen/ferry/v1/budgets_pb.js';
import {
  AcceptanceSchema,
  AttemptResponseSchema,
  AttemptSchema,
  AttemptStatus,
  BodyEncoding,
  FinalReason,
  RequestSchema,
  RequestStatus,
  RequestSummarySchema,
  type Acceptance,
  type Attempt,
  type AttemptResponse,
  type Request,
  type RequestSummary,
} from '../../gen/ferry/v1/requests_pb.js';

const STATUS: Record<StoredRequest['status'], RequestStatus> = {
  scheduled: RequestStatus.SCHEDULED,
  queued: RequestStatus.QUEUED,
  delivering: RequestStatus.DELIVERING,
  succeeded: RequestStatus.SUCCEEDED,
  failed: RequestStatus.FAILED,
  cancelled: RequestStatus.CANCELLED,
};

const ATTEMPT_STATUS: Record<AttemptRecord['status'], AttemptStatus> = {
  succeeded: AttemptStatus.SUCCEEDED,
  failed: AttemptStatus.FAILED,
  timed_out: AttemptStatus.TIMED_OUT,
  errored: AttemptStatus.ERRORED,
};

const FINAL_REASON: Record<DomainFinalReason, FinalReason> = {
  receiver_stopped: FinalReason.RECEIVER_STOPPED,
  attempts_exhausted: FinalReason.ATTEMPTS_EXHAUSTED,
  final_status: FinalReason.FINAL_STATUS,
};

const KIND: Record<DomainKind, BudgetKind> = { queue: BudgetKind.QUEUE, flow_key: BudgetKind.FLOW_KEY };
const REASON: Record<DomainReason, HoldReason> = { rate: HoldReason.RATE, concurrency: HoldReason.CONCURRENCY, paused: HoldReason.PAUSED };

export function ts(ms: number): Timestamp;
export function ts(ms: number | null): Timestamp | undefined;
export function ts(ms: number | null): Timestamp | undefined {
  return ms === null ? undefined : timestampFromMs(ms);
}

export function acceptanceToProto(a: DomainAcceptance): Acceptance {
  return create(AcceptanceSchema, {
    id: a.id,
    projectId: a.projectId,
    replayedFromRequestId: a.replayedFromRequestId ?? undefined,
    status: STATUS[a.status],
    scheduledAt: ts(a.scheduledAt),
    createdAt: ts(a.createdAt),
  });
}

/**
 * The budget holding a request back, while it can be held back at all: a request that is delivering or has ended
 * keeps the last one stored, which no longer says anything about it. `since` stays internal.
 */
function waitingForToProto(r: Pick<StoredRequest, 'status' | 'waitingFor'>): WaitingFor | undefined {
  const w = r.waitingFor;
  if (w === null || (r.status !== 'queued' && r.status !== 'scheduled')) return undefined;
  return create(WaitingForSchema, { kind: KIND[w.kind], name: w.name, reason: REASON[w.reason] });
}

function summaryFields(r: StoredRequest) {
  return {
    id: r.id,
    replayedFromRequestId: r.replayedFromRequestId ?? undefined,
    scheduleId: r.scheduleId ?? undefined,
    url: r.url,
    method: r.method,
    queue: r.queue,
    flowKeys: [...r.flowKeys],
    status: STATUS[r.status],
    waitingFor: waitingForToProto(r),
    scheduledAt: ts(r.scheduledAt),
    createdAt: ts(r.createdAt),
    startedAt: ts(r.startedAt),
    completedAt: ts(r.completedAt),
    lastResponseStatusCode: r.lastStatusCode ?? undefined,
  };
}

export function summaryToProto(r: StoredRequest): RequestSummary {
  return create(RequestSummarySchema, summaryFields(r));
}

/** The kept answer; repeated header names (kept apart in storage) read as one, joined as RFC 9110 reads them. */
function responseToProto(r: CapturedResponse): AttemptResponse {
  const headers: Record<string, string> = {};
  for (const [name, value] of r.headers) headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  if (r.body === null) return create(AttemptResponseSchema, { headers, bodyTruncated: r.bodyTruncated });
  const { text, encoding } = bodyText(r.body);
  return create(AttemptResponseSchema, {
    headers,
    body: text,
    bodyEncoding: encoding === 'utf8' ? BodyEncoding.UTF8 : BodyEncoding.BASE64,
    bodyTruncated: r.bodyTruncated,
  });
}

/** A request's callbacks as the API shows them; undefined (absent) for none. */
export function callbacksToProto(c: RequestCallbacks | null): { onSuccess?: string; onFailure?: string } | undefined {
  if (c === null) return undefined;
  return { ...(c.onSuccess !== null ? { onSuccess: c.onSuccess } : {}), ...(c.onFailure !== null ? { onFailure: c.onFailure } : {}) };
}

export function attemptToProto(a: AttemptRecord): Attempt {
  return create(AttemptSchema, {
    attemptNumber: a.attemptNumber,
    status: ATTEMPT_STATUS[a.status],
    responseStatusCode: a.responseStatusCode ?? undefined,
    errorMessage: a.errorMessage ?? undefined,
    durationMs: BigInt(a.durationMs),
    startedAt: ts(a.startedAt),
    completedAt: ts(a.completedAt),
    retry:
      a.retry === null
        ? undefined
        : {
            reason: a.retry.reason,
            retryAfterRaw: a.retry.retryAfterRaw,
            retryAfterTruncated: a.retry.retryAfterTruncated,
            retryAfterEscaped: a.retry.retryAfterEscaped,
            retryAfterStatus: a.retry.retryAfterStatus,
            retryAfterDelayMs: BigInt(a.retry.retryAfterDelayMs),
            backoffDelayMs: BigInt(a.retry.backoffDelayMs),
            selectedDelayMs: BigInt(a.retry.selectedDelayMs),
            delaySource: a.retry.delaySource,
            nextAttemptAt: ts(a.retry.nextAttemptAt),
          },
    finalReason: a.finalReason === null ? FinalReason.UNSPECIFIED : FINAL_REASON[a.finalReason],
    response: a.response === null ? undefined : responseToProto(a.response),
  });
}

/** The detail view: header values are never returned, only their names. */
export function requestToProto(r: StoredRequest, attempts: readonly AttemptRecord[]): Request {
  return create(RequestSchema, {
    ...summaryFields(r),
    maxAttempts: r.maxAttempts,
    timeoutSeconds: r.timeoutSeconds,
    metadata: { ...r.metadata },
    contentType: r.contentType ?? '',
    headers: Object.fromEntries(r.headers.map(([name]) => [name, '[REDACTED]'])),
    updatedAt: ts(r.updatedAt),
    cancelledAt: ts(r.cancelledAt),
    attempts: attempts.map(attemptToProto),
    callbacks: callbacksToProto(r.callbacks),
    callbackForRequestId: r.callbackForRequestId ?? undefined,
    callbackRequestIds: [...r.callbackRequestIds],
  });
}
