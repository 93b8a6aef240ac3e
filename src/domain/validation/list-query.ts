import { FerryError } from '../errors.js';
import { isRequestId, isScheduleId } from '../ids.js';
import {
  HTTP_METHODS,
  REQUEST_SOURCES,
  REQUEST_STATUSES,
  type HttpMethod,
  type RequestSource,
  type RequestStatus,
} from '../request.js';
import { parseRfc3339 } from './durations.js';
import { validateFlowKey } from './flow-keys.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, MAX_SEARCH_BYTES, MAX_STATUS_CODE, MIN_STATUS_CODE, utf8Length } from './limits.js';
import { validateQueue } from './request-input.js';

export interface ListQueryInput {
  status?: string;
  search?: string;
  method?: string;
  source?: string;
  scheduleId?: string;
  queue?: string;
  flowKey?: string;
  responseStatusCode?: number;
  from?: string;
  to?: string;
  cursor?: string;
  limit?: number;
}

export interface ListQuery {
  status?: RequestStatus;
  /** Set when the search is exactly a request ID. */
  id?: string;
  /** Set for any other non-empty search: a case-insensitive URL fragment. */
  urlContains?: string;
  method?: HttpMethod;
  source?: RequestSource;
  /** Only the requests this schedule created. */
  scheduleId?: string;
  /** Only requests of this queue. */
  queue?: string;
  /** Only requests that name this flow key among their flow keys. */
  flowKey?: string;
  /** Only requests whose last attempt's response had this status code. */
  responseStatusCode?: number;
  from?: number;
  to?: number;
  limit: number;
  /** Still opaque here: decoding needs the filter hash and the secret, which the caller holds. */
  cursor?: string;
}

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], field: string): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new FerryError('INVALID_FILTER', `${field} must be one of ${allowed.join(', ')}.`, field);
  }
  return value as T;
}

/** The page size of a paged list: 1 through 100, 50 when absent. */
export function validatePageSize(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_PAGE_SIZE;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw new FerryError('INVALID_LIMIT', `limit must be an integer from 1 to ${MAX_PAGE_SIZE}.`, 'limit');
  }
  return limit;
}

/** A status code a response can have: a filter outside them could match nothing. */
export function validateResponseStatusCode(code: unknown, field = 'response_status_code'): number {
  if (typeof code !== 'number' || !Number.isInteger(code) || code < MIN_STATUS_CODE || code > MAX_STATUS_CODE) {
    throw new FerryError('INVALID_FILTER', `${field} must be an integer from ${MIN_STATUS_CODE} to ${MAX_STATUS_CODE}.`, field);
  }
  return code;
}

/** `_now` is part of the signature so time-relative filter rules never change callers. */
export function validateListQuery(input: ListQueryInput, _now: number): ListQuery {
  const query: ListQuery = { limit: validatePageSize(input.limit) };
  const status = oneOf(input.status, REQUEST_STATUSES, 'status');
  if (status !== undefined) query.status = status;
  const method = oneOf(input.method, HTTP_METHODS, 'method');
  if (method !== undefined) query.method = method;
  const source = oneOf(input.source, REQUEST_SOURCES, 'source');
  if (source !== undefined) query.source = source;
  if (input.scheduleId !== undefined) {
    if (typeof input.scheduleId !== 'string' || !isScheduleId(input.scheduleId)) {
      throw new FerryError('INVALID_FILTER', 'schedule_id must be a schedule ID (sch_ followed by 26 characters).', 'schedule_id');
    }
    query.scheduleId = input.scheduleId;
  }
  // Named as a request names them, so a filter refused here is one no request could match.
  if (input.queue !== undefined) query.queue = validateQueue(input.queue, 'queue');
  if (input.flowKey !== undefined) query.flowKey = validateFlowKey(input.flowKey, 'flow_key');
  if (input.responseStatusCode !== undefined) query.responseStatusCode = validateResponseStatusCode(input.responseStatusCode);

  const search = input.search;
  if (search !== undefined && search !== '') {
    if (typeof search !== 'string' || utf8Length(search) > MAX_SEARCH_BYTES) {
      throw new FerryError('INVALID_FILTER', `search must be at most ${MAX_SEARCH_BYTES} bytes.`, 'search');
    }
    if (isRequestId(search)) query.id = search;
    else query.urlContains = search;
  }

  if (input.from !== undefined) query.from = parseRfc3339(input.from, 'INVALID_FILTER', 'from');
  if (input.to !== undefined) query.to = parseRfc3339(input.to, 'INVALID_FILTER', 'to');
  if (query.from !== undefined && query.to !== undefined && query.to <= query.from) {
    throw new FerryError('INVALID_FILTER', 'to must be later than from.', 'to');
  }
  if (input.cursor !== undefined) query.cursor = input.cursor;
  return query;
}
