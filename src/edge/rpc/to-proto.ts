import { create } from '@bufbuild/protobuf';
import { timestampFromMs, type Timestamp } from '@bufbuild/protobuf/wkt';
import type { Acceptance as DomainAcceptance, AttemptRecord, StoredRequest } from '../../domain/request.js';
import {
  AcceptanceSchema,
  AttemptSchema,
  AttemptStatus,
  RequestSchema,
  RequestStatus,
  RequestSummarySchema,
  type Acceptance,
  type Attempt,
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

function summaryFields(r: StoredRequest) {
  return {
    id: r.id,
    replayedFromRequestId: r.replayedFromRequestId ?? undefined,
    scheduleId: r.scheduleId ?? undefined,
    url: r.url,
    method: r.method,
    queue: r.queue,
    status: STATUS[r.status],
    scheduledAt: ts(r.scheduledAt),
    createdAt: ts(r.createdAt),
    startedAt: ts(r.startedAt),
    completedAt: ts(r.completedAt),
  };
}

export function summaryToProto(r: StoredRequest): RequestSummary {
  return create(RequestSummarySchema, summaryFields(r));
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
  });
}
