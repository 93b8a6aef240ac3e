import type { components, operations } from './schema.js';

type Schemas = components['schemas'];

/** The confirmation that a request was durably accepted; delivery happens afterwards. */
export type Acceptance = Schemas['Acceptance'];
/** The definition of a structured request, as given to `createRequest`. */
export type RequestInput = Schemas['RequestInput'];
/** One request of a batch: a request definition with an optional per-item idempotency key. */
export type BatchItem = Schemas['BatchItem'];
/** One page of the request list. */
export type RequestList = Schemas['ListRequestsResponse'];
/** One item of the request list. */
export type RequestSummary = Schemas['RequestSummary'];
/** The full detail of one request, with its completed attempts. */
export type RequestDetail = Schemas['Request'];
/** The record of one completed delivery attempt. */
export type Attempt = Schemas['Attempt'];
/** The outcome of a cancel call. */
export type CancelResult = Schemas['CancelRequestResponse'];
/** A lifecycle status of a request. */
export type RequestStatus = Schemas['RequestStatus'];
/** A recurring schedule, as lists and changes answer it. */
export type ScheduleSummary = Schemas['ScheduleSummary'];
/** A recurring schedule with its request definition (header values redacted), as `getSchedule` answers it. */
export type Schedule = Schemas['Schedule'];
/** The definition of a new schedule, as given to `createSchedule`. */
export type ScheduleInput = Schemas['CreateScheduleBody'];
/** The changes to a schedule, as given to `updateSchedule`; at least one field is needed. */
export type ScheduleUpdate = Schemas['UpdateScheduleBody'];
/** When a schedule fires: a cron expression in a time zone, or a fixed interval. */
export type Timing = Schemas['TimingWrite'];
/** The paging of `listSchedules`; without it every schedule comes back. */
export type ListSchedulesQuery = NonNullable<operations['ListSchedules']['parameters']['query']>;

/** The filters and paging of `listRequests`, with the API's parameter names. */
export type ListRequestsQuery = NonNullable<operations['ListRequests']['parameters']['query']>;
/** The delivery options of `send`, with the API's parameter names (`deliver_at`, not `deliverAt`). */
export type SendQuery = Omit<operations['Send']['parameters']['query'], 'url'>;

/** Options every call takes. */
export interface CallOptions {
  /** Cancels the HTTP call; the server may still have applied it. */
  signal?: AbortSignal;
}

/** Options of calls that create something and can be retried safely with the same key. */
export interface IdempotentCallOptions extends CallOptions {
  /** 1 to 255 bytes, scoped to the project and kept for 24 hours; a retry with the same key and input gets the same result. */
  idempotencyKey?: string;
}

/** Options of `send`: the delivery options plus the headers that travel with the body. */
export interface SendOptions extends SendQuery, IdempotentCallOptions {
  /** The Content-Type forwarded with the body, up to 255 bytes. */
  contentType?: string;
  /** Headers sent to the destination, by name; they travel as `X-Forward-<name>`. */
  forwardHeaders?: Record<string, string>;
}

/** A body `send` forwards byte for byte. */
export type RawBody = string | Uint8Array | ArrayBuffer;
