import { FerryError } from '../errors.js';
import type { ScheduleRequest } from '../schedule/schedule.js';
import type { Timing } from '../schedule/timing.js';
import { validateFlowKeys } from './flow-keys.js';
import { validateDestinationHeaders } from './headers.js';
import { DEFAULT_PAGE_SIZE, DEFAULT_PREVIEW_COUNT, MAX_PAGE_SIZE, MAX_PREVIEW_COUNT, MAX_SCHEDULE_NAME_BYTES, utf8Length } from './limits.js';
import { requireUrl, validateJsonBody, validateQueue, validateRetryCount } from './request-input.js';
import { parseTimeout } from './durations.js';
import { validateMetadata } from './metadata.js';
import { validateSchedulePolicy, type SchedulePolicyInput } from './schedule-policy.js';
import type { SchedulePolicy } from '../schedule/policy.js';
import { DEFAULT_TIMEOUT_SECONDS } from './limits.js';
import { validateTiming, type TimingInput } from './timing.js';
import { parseRfc3339 } from './durations.js';
import { validateDestinationUrl } from './url.js';
import { validateCallbacks, type CallbacksInput } from './callbacks.js';

/** The request every occurrence of a schedule creates, as the caller gave it. */
export interface ScheduleRequestInput {
  url?: string;
  /** Any JSON value, or its text when parsing would change it; undefined means no body. */
  body?: unknown;
  /** Absent (or empty, on update) keeps the stored headers. */
  headers?: Record<string, string>;
  retry?: number;
  /** Absent means none; on update the keys are replaced like the URL, body and retry. */
  flowKeys?: string[];
  /** Absent means none; on update they are replaced like the URL, body and retry. */
  callbacks?: CallbacksInput;
  /** The queue of every occurrence's request; `default` when absent. */
  queue?: string;
  /** The per-attempt timeout, as on a single create (`30s`, `2m`); 50s when absent. */
  timeout?: string;
  /** Metadata every occurrence's request carries, by a single create's rules; none when absent. */
  metadata?: Record<string, string>;
}

export interface CreateScheduleInput {
  name?: string;
  timing?: TimingInput;
  request?: ScheduleRequestInput;
  /** Absent: the default policy on create, the stored one on update. */
  policy?: SchedulePolicyInput;
}

export type UpdateScheduleInput = CreateScheduleInput;

export interface ScheduleValidationOptions {
  readonly allowPrivateDestinations: boolean;
  readonly now: number;
}

export interface ValidatedSchedule {
  readonly name: string;
  readonly timing: Timing;
  readonly request: ScheduleRequest;
  readonly policy: SchedulePolicy;
}

/** The changes an update asks for; an absent member is left as stored. */
export interface ValidatedScheduleUpdate {
  readonly name?: string;
  readonly timing?: Timing;
  /** The policy as given; it is checked against the timing the schedule will have (`validateSchedulePolicy`). */
  readonly policy?: SchedulePolicyInput;
  /** `headers` undefined keeps the stored headers. */
  readonly request?: Omit<ScheduleRequest, 'headers'> & { readonly headers: ScheduleRequest['headers'] | undefined };
}

export function validateScheduleName(name: string | undefined, field = 'name'): string {
  if (name === undefined || name === null) throw new FerryError('MISSING_FIELD', 'name is required.', field);
  const trimmed = typeof name === 'string' ? name.trim() : '';
  const bytes = utf8Length(trimmed);
  if (bytes < 1 || bytes > MAX_SCHEDULE_NAME_BYTES) {
    throw new FerryError('INVALID_NAME', `The name must be 1 to ${MAX_SCHEDULE_NAME_BYTES} bytes after trimming leading and trailing whitespace.`, field);
  }
  return trimmed;
}

function validateScheduleRequest(input: ScheduleRequestInput | undefined, opts: ScheduleValidationOptions) {
  if (input === undefined || input === null) throw new FerryError('MISSING_FIELD', 'request is required.', 'request');
  const url = validateDestinationUrl(requireUrl(input.url, 'request.url'), { allowPrivate: opts.allowPrivateDestinations }, 'request.url');
  const body = validateJsonBody(input.body, 'request.body');
  const given = Object.entries(input.headers ?? {});
  const headers = validateDestinationHeaders(given, 'request.headers');
  const retry = validateRetryCount(input.retry, 'request.retry') - 1;
  const flowKeys = validateFlowKeys(input.flowKeys, 'request.flow_keys');
  const callbacks = validateCallbacks(input.callbacks, { allowPrivate: opts.allowPrivateDestinations }, 'request.callbacks');
  const queue = validateQueue(input.queue ?? undefined, 'request.queue');
  const timeoutSeconds = input.timeout === undefined || input.timeout === null ? DEFAULT_TIMEOUT_SECONDS : parseTimeout(input.timeout, 'request.timeout');
  const metadata = input.metadata === undefined || input.metadata === null ? {} : validateMetadata(input.metadata, 'request.metadata');
  return { url, body, retry, flowKeys, callbacks, headers, headersGiven: given.length > 0, queue, timeoutSeconds, metadata };
}

/** Create: every member is required but the request's body, headers and retry. */
export function validateCreateSchedule(input: CreateScheduleInput, opts: ScheduleValidationOptions): ValidatedSchedule {
  const name = validateScheduleName(input.name);
  const timing = validateTiming(input.timing, { now: opts.now, creating: true });
  const { headersGiven: _, ...request } = validateScheduleRequest(input.request, opts);
  const policy = validateSchedulePolicy(input.policy, timing, opts.now);
  return { name, timing, request, policy };
}

/**
 * Update: at least one of name, timing and request. A request replaces the stored URL, body and retry as a whole;
 * its headers replace the stored ones only when some are given (a Protobuf map cannot tell `{}` from absent).
 */
export function validateUpdateSchedule(input: UpdateScheduleInput, opts: ScheduleValidationOptions): ValidatedScheduleUpdate {
  const none = (v: unknown) => v === undefined || v === null;
  if (none(input.name) && none(input.timing) && none(input.request) && none(input.policy)) {
    throw new FerryError('MISSING_FIELD', 'An update needs at least one of name, timing, request and policy.');
  }
  const name = none(input.name) ? undefined : validateScheduleName(input.name);
  const timing = none(input.timing) ? undefined : validateTiming(input.timing, { now: opts.now, creating: true });
  const policy = none(input.policy) ? undefined : input.policy;
  if (none(input.request)) return { name, timing, policy };
  const { headersGiven, headers, ...rest } = validateScheduleRequest(input.request, opts);
  return { name, timing, policy, request: { ...rest, headers: headersGiven ? headers : undefined } };
}

export interface PreviewInput {
  timing?: TimingInput;
  after?: string;
  count?: number;
  /** A saved schedule to preview in place of `timing`. */
  scheduleId?: string;
}

/** What to preview: a timing as given, or a saved schedule (not yet read: the caller's project decides). */
export type ValidPreview =
  | { readonly timing: Timing; readonly scheduleId: null; readonly after: number; readonly count: number }
  | { readonly timing: null; readonly scheduleId: string; readonly after: number; readonly count: number };

/**
 * Preview: `after` defaults to now; an interval without `starts_at` counts from `after`, and `starts_at` and
 * `ends_at` may be past. Either `timing` or `schedule_id`, not both.
 */
export function validatePreview(input: PreviewInput, now: number): ValidPreview {
  const after = input.after === undefined || input.after === null ? now : parseRfc3339(input.after, 'INVALID_FIELD', 'after');
  const count = input.count ?? DEFAULT_PREVIEW_COUNT;
  if (!Number.isInteger(count) || count < 1 || count > MAX_PREVIEW_COUNT) {
    throw new FerryError('INVALID_FIELD', `count must be an integer from 1 to ${MAX_PREVIEW_COUNT}.`, 'count');
  }
  const scheduleId = input.scheduleId;
  if (scheduleId !== undefined && scheduleId !== null) {
    if (input.timing !== undefined && input.timing !== null) {
      throw new FerryError('INVALID_FIELD', 'Give either timing or schedule_id, not both.', 'schedule_id');
    }
    if (typeof scheduleId !== 'string' || scheduleId === '') throw new FerryError('INVALID_FIELD', 'schedule_id must be a schedule ID.', 'schedule_id');
    return { timing: null, scheduleId, after, count };
  }
  const timing = validateTiming(input.timing, { now: after, creating: false });
  return { timing, scheduleId: null, after, count };
}

/** The page size of a paged schedule list. */
export function validateScheduleListLimit(limit: number | undefined): number {
  const n = limit ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(n) || n < 1 || n > MAX_PAGE_SIZE) {
    throw new FerryError('INVALID_LIMIT', `limit must be an integer from 1 to ${MAX_PAGE_SIZE}.`, 'limit');
  }
  return n;
}
