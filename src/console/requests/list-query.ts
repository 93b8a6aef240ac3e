import type { ListRequestsQuery } from '../../../sdk/src/types.js';

/** The filters of `GET /requests` the list page keeps in its address, with the API's own names. */
export const FILTER_NAMES = ['status', 'search', 'method', 'source', 'queue', 'flow_key', 'response_status_code', 'schedule_id', 'from', 'to'] as const;
export type FilterName = (typeof FILTER_NAMES)[number];

export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export const SOURCES = [
  ['api', 'API'],
  ['recurring', 'Schedule'],
  ['replay', 'Replay'],
  ['callback', 'Callback'],
] as const;
export const PAGE_SIZES = ['20', '50', '100'] as const;

/**
 * The address's query as the API's list query. Values go through unchanged, even ones the form would never
 * produce (a hand-edited address): the API is the judge, and its 422 is shown rather than the value dropped.
 */
export function listQueryOf(query: URLSearchParams): ListRequestsQuery {
  const out: Record<string, string | number> = {};
  for (const name of [...FILTER_NAMES, 'cursor']) {
    if (name === 'response_status_code') continue;
    const value = query.get(name);
    if (value !== null && value !== '') out[name] = value;
  }
  // The integer parameters go as numbers when they are digits, and as typed otherwise, for the API to refuse.
  for (const name of ['limit', 'response_status_code'] as const) {
    const value = query.get(name);
    if (value !== null && value !== '') out[name] = /^\d+$/.test(value) ? Number(value) : value;
  }
  return out as ListRequestsQuery;
}

/** The address's query without paging: what identifies "the same filters" across pages. */
export function filterKeyOf(query: URLSearchParams): string {
  const kept = new URLSearchParams([...query].filter(([name]) => name !== 'cursor'));
  kept.sort();
  return kept.toString();
}

export function hasFilters(query: URLSearchParams): boolean {
  return FILTER_NAMES.some((name) => (query.get(name) ?? '') !== '');
}
