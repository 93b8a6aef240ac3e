import createClient, { type Client } from 'openapi-fetch';
import { FerryApiError } from './errors.js';
import type { paths } from './schema.js';
import type {
  Acceptance, Attempt, BatchItem, CallOptions, CancelResult, IdempotentCallOptions, ListRequestsQuery, RawBody,
  ListSchedulesQuery, RequestDetail, RequestInput, RequestList, Schedule, ScheduleInput, ScheduleSummary, ScheduleUpdate, SendOptions, Timing,
} from './types.js';

/** How to reach Ferry. */
export interface FerryClientOptions {
  /** The base URL of the API, such as `https://ferry.example.com`. */
  baseUrl: string;
  /** A project API key; every call is scoped to its project. */
  apiKey: string;
  /** A fetch implementation to use instead of the global one, for tests, proxies or retries. */
  fetch?: (request: Request) => Promise<Response>;
}

/**
 * A Ferry client. Every helper resolves with the envelope's `data` and rejects with a {@link FerryApiError} when
 * Ferry answers with an error.
 */
export interface FerryClient {
  /** The underlying openapi-fetch client, typed from the OpenAPI document, for anything the helpers do not cover. */
  readonly raw: Client<paths>;
  /** Accepts `body` for delivery to `url` exactly as given; `202` means durably accepted, not yet delivered. */
  send(url: string, body?: RawBody, options?: SendOptions): Promise<Acceptance>;
  /** Accepts a structured request for delivery; its JSON `body` is delivered as `application/json`. */
  createRequest(input: RequestInput, options?: IdempotentCallOptions): Promise<Acceptance>;
  /** Accepts 1 to 100 requests all together or not at all; the acceptances come in submitted order. */
  batchCreate(requests: BatchItem[], options: IdempotentCallOptions & { idempotencyKey: string }): Promise<Acceptance[]>;
  /** Lists the project's requests, newest first; pass `next_cursor` back as `cursor` for the next page. */
  listRequests(query?: ListRequestsQuery, options?: CallOptions): Promise<RequestList>;
  /** Returns one request with its completed attempts; missing, foreign and expired IDs are all `NOT_FOUND`. */
  getRequest(requestId: string, options?: CallOptions): Promise<RequestDetail>;
  /** Returns the completed attempts of one request, oldest first; empty until the first attempt completes. */
  listAttempts(requestId: string, options?: CallOptions): Promise<Attempt[]>;
  /** Stops a request that has not completed; `status` tells whether it was cancelled before. */
  cancel(requestId: string, options?: CallOptions): Promise<CancelResult>;
  /** Creates a new request from a completed or cancelled one, with a fresh attempt budget. */
  replay(requestId: string, options?: IdempotentCallOptions): Promise<Acceptance>;
  /** Creates an active schedule; the idempotency key is required. */
  createSchedule(input: ScheduleInput, options: IdempotentCallOptions & { idempotencyKey: string }): Promise<ScheduleSummary>;
  /** Lists the project's schedules, newest first: all of them, or one page when `limit` or `cursor` is given. */
  listSchedules(query?: ListSchedulesQuery, options?: CallOptions): Promise<ScheduleSummary[]>;
  /** The next `count` (10) occurrences of a timing strictly after `after` (now), by the rules that fire schedules. */
  previewSchedule(timing: Timing, query?: { after?: string; count?: number }, options?: CallOptions): Promise<string[]>;
  /** Returns one schedule with its request definition. */
  getSchedule(scheduleId: string, options?: CallOptions): Promise<Schedule>;
  /** Changes the name, timing or request of a schedule. */
  updateSchedule(scheduleId: string, update: ScheduleUpdate, options?: CallOptions): Promise<ScheduleSummary>;
  /** Stops a schedule from firing. */
  pauseSchedule(scheduleId: string, options?: CallOptions): Promise<ScheduleSummary>;
  /** Lets a paused schedule fire again. */
  resumeSchedule(scheduleId: string, options?: CallOptions): Promise<ScheduleSummary>;
  /** Removes a schedule and cancels its future occurrences; earlier requests stay. */
  deleteSchedule(scheduleId: string, options?: CallOptions): Promise<void>;
}

type Outcome<T> = { data: { data: T }; error?: never; response: Response } | { data?: never; error: unknown; response: Response };

/** Resolves with the envelope's data, or rejects with the error Ferry answered. */
async function unwrap<T>(call: Promise<Outcome<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok || data === undefined) throw FerryApiError.fromResponse(response, error);
  return data.data;
}

const idempotency = (options?: IdempotentCallOptions) =>
  options?.idempotencyKey === undefined ? undefined : { 'Idempotency-Key': options.idempotencyKey };

/**
 * Creates a client for the Ferry JSON HTTP API.
 *
 * @example
 * const ferry = createFerryClient({ baseUrl: 'https://ferry.example.com', apiKey: process.env.FERRY_API_KEY! });
 * const accepted = await ferry.send('https://hooks.example.com/in', JSON.stringify({ hi: 1 }), { contentType: 'application/json', retry: 3 });
 */
export function createFerryClient(options: FerryClientOptions): FerryClient {
  const raw = createClient<paths>({
    baseUrl: options.baseUrl,
    headers: { Authorization: `Bearer ${options.apiKey}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const path = (id: string) => ({ params: { path: { request_id: id } } });
  const schedule = (id: string) => ({ params: { path: { schedule_id: id } } });

  return {
    raw,
    send(url, body, opts = {}) {
      const { contentType, forwardHeaders, idempotencyKey, signal, ...query } = opts;
      const headers: Record<string, string | null> = {
        // Without a type of its own the body is forwarded without one, rather than with openapi-fetch's JSON default.
        'Content-Type': contentType ?? null,
        ...idempotency({ idempotencyKey }),
      };
      for (const [name, value] of Object.entries(forwardHeaders ?? {})) headers[`X-Forward-${name}`] = value;
      return unwrap(raw.POST('/send', {
        params: { query: { ...query, url } },
        // The body is sent as it is; the schema can only call it a binary string.
        body: (body ?? '') as unknown as string,
        bodySerializer: (b: unknown) => b,
        headers,
        signal,
      }));
    },
    createRequest: (input, opts) =>
      unwrap(raw.POST('/requests', { body: input, headers: idempotency(opts), signal: opts?.signal })),
    batchCreate: async (requests, opts) =>
      (await unwrap(raw.POST('/requests/batch', { body: { requests }, headers: idempotency(opts), signal: opts.signal }))).requests,
    listRequests: (query, opts) => unwrap(raw.GET('/requests', { params: { query }, signal: opts?.signal })),
    getRequest: (id, opts) => unwrap(raw.GET('/requests/{request_id}', { ...path(id), signal: opts?.signal })),
    listAttempts: (id, opts) => unwrap(raw.GET('/requests/{request_id}/attempts', { ...path(id), signal: opts?.signal })),
    cancel: (id, opts) => unwrap(raw.POST('/requests/{request_id}/cancel', { ...path(id), signal: opts?.signal })),
    replay: (id, opts) =>
      unwrap(raw.POST('/requests/{request_id}/replay', { ...path(id), headers: idempotency(opts), signal: opts?.signal })),
    createSchedule: (input, opts) =>
      unwrap(raw.POST('/schedules', { body: input, headers: idempotency(opts), signal: opts.signal })),
    listSchedules: (query, opts) => unwrap(raw.GET('/schedules', { params: { query }, signal: opts?.signal })),
    previewSchedule: async (timing, query, opts) =>
      (await unwrap(raw.POST('/schedules/preview', { body: { timing, ...query }, signal: opts?.signal }))).run_times,
    getSchedule: (id, opts) => unwrap(raw.GET('/schedules/{schedule_id}', { ...schedule(id), signal: opts?.signal })),
    updateSchedule: (id, update, opts) =>
      unwrap(raw.PATCH('/schedules/{schedule_id}', { ...schedule(id), body: update, signal: opts?.signal })),
    pauseSchedule: (id, opts) => unwrap(raw.POST('/schedules/{schedule_id}/pause', { ...schedule(id), signal: opts?.signal })),
    resumeSchedule: (id, opts) => unwrap(raw.POST('/schedules/{schedule_id}/resume', { ...schedule(id), signal: opts?.signal })),
    async deleteSchedule(id, opts) {
      const { error, response } = await raw.DELETE('/schedules/{schedule_id}', { ...schedule(id), signal: opts?.signal });
      if (!response.ok) throw FerryApiError.fromResponse(response, error);
    },
  };
}
