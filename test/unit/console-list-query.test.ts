import { describe, expect, it } from 'vitest';
import { filterKeyOf, hasFilters, listQueryOf } from '../../src/console/requests/list-query.js';

const q = (init: string) => new URLSearchParams(init);

describe('listQueryOf', () => {
  it('passes the filters, the cursor and the page size under the API names', () => {
    expect(listQueryOf(q('status=failed&search=order%2042&method=POST&source=recurring&from=2026-11-25T09:00:00Z&to=2026-11-26T09:00:00Z&cursor=abc&limit=50'))).toEqual({
      status: 'failed',
      search: 'order 42',
      method: 'POST',
      source: 'recurring',
      from: '2026-11-25T09:00:00Z',
      to: '2026-11-26T09:00:00Z',
      cursor: 'abc',
      limit: 50,
    });
  });

  it('passes the queue and flow key filters under the API names', () => {
    expect(listQueryOf(q('queue=billing&flow_key=vendor%3Aacme&status=failed'))).toEqual({ queue: 'billing', flow_key: 'vendor:acme', status: 'failed' });
    expect(hasFilters(q('flow_key=vendor%3Aacme'))).toBe(true);
    expect(filterKeyOf(q('queue=billing&cursor=one'))).not.toBe(filterKeyOf(q('queue=billing-eu&cursor=one')));
  });

  it('passes the last status code as a number, and anything else as typed for the API to refuse', () => {
    expect(listQueryOf(q('response_status_code=503&status=failed'))).toEqual({ response_status_code: 503, status: 'failed' });
    expect(listQueryOf(q('response_status_code=5xx')).response_status_code).toBe('5xx');
    expect(listQueryOf(q('response_status_code=')).response_status_code).toBeUndefined();
    expect(hasFilters(q('response_status_code=500'))).toBe(true);
    expect(filterKeyOf(q('response_status_code=500&cursor=one'))).not.toBe(filterKeyOf(q('response_status_code=502&cursor=one')));
  });

  it('leaves out empty values and names the list does not know', () => {
    expect(listQueryOf(q('status=&search=&limit=&cursor=&page=3&sort=asc'))).toEqual({});
    expect(listQueryOf(q(''))).toEqual({});
  });

  it('passes values the form would never produce unchanged, for the API to judge', () => {
    expect(listQueryOf(q('status=exploded&method=brew&from=yesterday'))).toEqual({ status: 'exploded', method: 'brew', from: 'yesterday' });
    expect(listQueryOf(q('limit=lots')).limit).toBe('lots');
    expect(listQueryOf(q('limit=-1')).limit).toBe('-1');
    expect(listQueryOf(q('limit=0')).limit).toBe(0);
  });

  it('takes the first of repeated values', () => {
    expect(listQueryOf(q('status=failed&status=queued'))).toEqual({ status: 'failed' });
  });
});

describe('filterKeyOf', () => {
  it('is the same across pages of the same filters, whatever their order', () => {
    expect(filterKeyOf(q('status=failed&method=POST&cursor=one'))).toBe(filterKeyOf(q('method=POST&cursor=two&status=failed')));
    expect(filterKeyOf(q('status=failed&cursor=one'))).toBe('status=failed');
  });

  it('differs when a filter or the page size differs', () => {
    expect(filterKeyOf(q('status=failed'))).not.toBe(filterKeyOf(q('status=queued')));
    expect(filterKeyOf(q('status=failed&limit=20'))).not.toBe(filterKeyOf(q('status=failed&limit=50')));
  });
});

describe('hasFilters', () => {
  it('is true only when some filter has a value', () => {
    expect(hasFilters(q(''))).toBe(false);
    expect(hasFilters(q('cursor=abc&limit=50'))).toBe(false);
    expect(hasFilters(q('status=&search='))).toBe(false);
    for (const name of ['status', 'search', 'method', 'source', 'from', 'to']) expect(hasFilters(q(`${name}=x`)), name).toBe(true);
  });
});
