import type { components, operations } from './schema.js';

type Schemas = components['schemas'];

/** How to reach Ferry, and the defaults of every call. */
export interface FerryOptions {
  /** The base URL of the API, such as `https://ferry.example.com`. */
  baseUrl: string;
  /** A project API key; every call is scoped to its project. */
  apiKey: string;
  /** How long one attempt may take, from sending to reading the whole answer; 60,000 ms when absent. */
  timeoutMs?: number;
  /** How many more attempts a failed call gets when its failure may be retried; 2 when absent. */
  maxRetries?: number;
  /** A fetch implementation to use instead of the global one (a proxy agent, instrumentation). */
  fetch?: typeof fetch;
}

/** Options every call takes; each overrides the client's default for this call only. */
export interface CallOptions {
  /** How long one attempt of this call may take, in milliseconds. */
  timeoutMs?: number;
  /** Aborts the call, including a wait between attempts; the call then rejects with `FerryAbortError`. */
  signal?: AbortSignal;
  /** How many more attempts this call gets after a failure that may be retried. */
  maxRetries?: number;
}

/** Options of calls that create something. */
export interface CreateOptions extends CallOptions {
  /**
   * 1 to 255 bytes, scoped to the project and kept for 24 hours: the same key with the same input answers the
   * first result instead of creating again. When absent the client makes one per call, so its retries never
   * create twice.
   */
  idempotencyKey?: string;
}

/** A result of the API: the envelope's `data`, with the call's `request_id` as a non-enumerable `requestId`. */
export type WithRequestId<T> = T & { readonly requestId: string };

/** The confirmation that a request was durably accepted; delivery happens afterwards. */
export type Acceptance = Schemas['Acceptance'];
/** The definition of a structured request, as given to `requests.create`. */
export type RequestInput = Schemas['RequestInput'];
/** One request of a batch: a request definition with an optional per-item idempotency key. */
export type BatchItem = Schemas['BatchItem'];
/** One page of the request list, with the project's retention facts. */
export type RequestList = Schemas['ListRequestsResponse'];
/** One item of the request list. */
export type RequestSummary = Schemas['RequestSummary'];
/** The full detail of one request, with its completed attempts. */
export type RequestDetail = Schemas['Request'];
/** The record of one completed delivery attempt. */
export type Attempt = Schemas['Attempt'];
/** What an attempt kept of the destination's answer: a few headers and the body's first 2 KiB. */
export type AttemptResponse = Schemas['AttemptResponse'];
/** Why an attempt ended its request as failed: `receiver_stopped`, `attempts_exhausted` or `final_status`. */
export type FinalReason = Schemas['FinalReason'];
/** The outcome of a cancel call. */
export type CancelResult = Schemas['CancelRequestResponse'];
/** A lifecycle status of a request. */
export type RequestStatus = Schemas['RequestStatus'];
/** A recurring schedule, as lists and changes answer it. */
export type ScheduleSummary = Schemas['ScheduleSummary'];
/** A recurring schedule with its request definition (header values redacted), as `schedules.get` answers it. */
export type Schedule = Schemas['Schedule'];
/** The definition of a new schedule, as given to `schedules.create`. */
export type ScheduleInput = Schemas['CreateScheduleBody'];
/** The changes to a schedule, as given to `schedules.update`; at least one field is needed. */
export type ScheduleUpdate = Schemas['UpdateScheduleBody'];
/** How a schedule's occurrences behave when they fire, as a schedule reads back. */
export type SchedulePolicy = Schemas['SchedulePolicy'];
/** One of a schedule's latest occurrences, triggers and backfilled instants. */
export type RecentRun = Schemas['RecentRun'];
/** The range of a backfill: the timing's instants in `[from, to)`. */
export type BackfillRange = Schemas['BackfillScheduleBody'];
/** What a backfill created. */
export type BackfillResult = Schemas['BackfillScheduleResponse'];
/**
 * When a schedule fires: a cron expression in a time zone, or a fixed interval. `type` tells the two apart, and each
 * takes only its own members. A timing read back from a schedule (where the other type's members are null) can be
 * given again as it is.
 */
export type Timing = Schemas['TimingWrite'];
/** A cron timing: a five-field expression read in an IANA time zone. */
export type CronTiming = Schemas['CronTimingWrite'];
/** An interval timing: every so many seconds (whole minutes), from `starts_at` or from creation. */
export type IntervalTiming = Schemas['IntervalTimingWrite'];

/**
 * A queue or a flow key: its limits (`rate`, `concurrency`, `adaptive`), whether it is `paused`, and how it stands
 * now (`in_flight`, `started_in_period`, `waiting` by reason, `admitted_rate`).
 */
export type Budget = Schemas['Budget'];
/** A queue, as `ferry.queues` answers it. */
export type Queue = Budget;
/** A flow key, as `ferry.flowKeys` answers it. */
export type FlowKey = Budget;
/** The whole configuration `queues.put` and `flowKeys.put` set; a limit left out is no limit. */
export type BudgetLimits = Schemas['SetQueueLimitsBody'];
/** Attempts started per period: `limit` per `period` (`1s` to `1h`), at most `burst` at once (`limit` when absent). */
export type RateLimit = Schemas['RateLimitWrite'];
/** One page of queues or flow keys, in name order. */
export type BudgetList = Schemas['ListQueuesResponse'];
/** The paging of `queues.list` and `flowKeys.list`. */
export type ListBudgetsQuery = NonNullable<operations['ListQueues']['parameters']['query']>;
/** The first budget holding a request back, as a request's `waiting_for` answers it. */
export type WaitingFor = Schemas['WaitingFor'];

/** A bulk cancel or replay and how far it got, as `ferry.bulkActions` answers it. */
export type BulkAction = Schemas['BulkAction'];
/** What a bulk action's dry run answers: how many requests it would match. */
export type BulkActionDryRun = Schemas['BulkActionDryRun'];
/** A bulk action: `action` and either `ids` (1 to 1,000) or a `filter` of the request list. */
export type BulkActionInput = Omit<Schemas['CreateBulkActionBody'], 'dry_run'>;
/** A filter of the request list, as a bulk action takes it. */
export type BulkActionFilter = Schemas['BulkActionFilter'];
/** One page of bulk actions, newest first. */
export type BulkActionList = Schemas['ListBulkActionsResponse'];
/** The paging of `bulkActions.list`. */
export type ListBulkActionsQuery = NonNullable<operations['ListBulkActions']['parameters']['query']>;

/** How much of its allowances a project has used, as `usage()` answers it. */
export type Usage = Schemas['Usage'];

/** A project's overview, as `stats.get()` answers it. */
export type Stats = Schemas['Stats'];
/** The counts of one minute of the overview. */
export type StatsMinute = Schemas['StatsMinute'];
/** What one queue has waiting and under way, in the overview. */
export type QueueBacklog = Schemas['QueueBacklog'];

/** The filters and paging of `requests.list`, with the API's parameter names. */
export type ListRequestsQuery = NonNullable<operations['ListRequests']['parameters']['query']>;
/** The paging of `schedules.list`; without `limit` or `cursor` the first page holds every schedule. */
export type ListSchedulesQuery = NonNullable<operations['ListSchedules']['parameters']['query']>;
/** One page of the schedule list. */
export interface ScheduleList {
  items: ScheduleSummary[];
  next_cursor: string | null;
}

/** A body `requests.send` forwards byte for byte. */
export type RawBody = string | Uint8Array | ArrayBuffer | Blob;
/** The delivery options of `requests.send`, with the API's parameter names (`deliver_at`, not `deliverAt`). */
export type SendQuery = Omit<operations['Send']['parameters']['query'], 'url'>;

/** Options of `requests.send`: the delivery options, the headers that travel with the body, and the call options. */
export interface SendOptions extends SendQuery, CreateOptions {
  /** The Content-Type forwarded with the body, up to 255 bytes; a Blob's own type when absent; else none. */
  contentType?: string;
  /** Headers sent to the destination, by name; they travel as `X-Forward-<name>`. */
  forwardHeaders?: Record<string, string>;
  /** Up to 4 flow keys whose budgets each attempt must fit besides its queue's; they travel as `Flow-Keys`. */
  flowKeys?: string[];
}

/** One previewed occurrence: when it fires, the occurrence of the timing it belongs to, what DST did to it. */
export type PreviewRun = Schemas['PreviewRun'];
/** What `schedules.preview` looks at: a timing, or a saved schedule of the project by ID. */
export type PreviewTarget = Timing | { schedule_id: string };
/** What a fixed-hour cron job does across daylight-saving changes: `gap` `shift` or `skip`, `overlap` `first`, `second` or `both`. */
export type DstPolicy = Schemas['DstPolicyWrite'];

/** Options of `schedules.preview`. */
export interface PreviewOptions extends CallOptions {
  /** The RFC 3339 instant the occurrences follow (strictly after it); now when absent. */
  after?: string;
  /** How many occurrences, 1 through 100; 10 when absent. */
  count?: number;
}

/** What `schedules.delete` resolves with: there is no data, only the call's ID. */
export interface Deleted {
  readonly requestId: string;
}
