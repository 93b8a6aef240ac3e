import { describe, expect, it } from 'vitest';
import { hrefOf, parseRoute, type Route } from '../../src/console/shell/routes.js';

/** A route as plain data, so that URLSearchParams compare by their entries. */
function plainOf(route: Route): Record<string, unknown> {
  return 'query' in route ? { page: route.page, query: [...route.query] } : { ...route };
}

describe('console routes', () => {
  it('reads every place of the console from its fragment', () => {
    expect(plainOf(parseRoute('#/requests'))).toEqual({ page: 'requests', query: [] });
    expect(plainOf(parseRoute('#/requests?status=failed&limit=50'))).toEqual({ page: 'requests', query: [['status', 'failed'], ['limit', '50']] });
    expect(parseRoute('#/requests/req_01J')).toEqual({ page: 'request', id: 'req_01J' });
    expect(parseRoute('#/send')).toEqual({ page: 'send' });
    expect(plainOf(parseRoute('#/schedules?limit=20'))).toEqual({ page: 'schedules', query: [['limit', '20']] });
    expect(parseRoute('#/schedules/new')).toEqual({ page: 'new-schedule' });
    expect(parseRoute('#/schedules/sch_01J')).toEqual({ page: 'schedule', id: 'sch_01J' });
    expect(plainOf(parseRoute('#/queues'))).toEqual({ page: 'queues', query: [] });
    expect(parseRoute('#/queues/default')).toEqual({ page: 'queue', name: 'default' });
    expect(plainOf(parseRoute('#/flow-keys?cursor=abc'))).toEqual({ page: 'flow-keys', query: [['cursor', 'abc']] });
    expect(parseRoute('#/flow-keys/vendor:acme')).toEqual({ page: 'flow-key', name: 'vendor:acme' });
    expect(plainOf(parseRoute('#/failures?queue=billing'))).toEqual({ page: 'failures', query: [['queue', 'billing']] });
  });

  it('leads an empty fragment to the overview, and anything it does not know to the requests list', () => {
    for (const hash of ['', '#', '#/', '#//']) expect(parseRoute(hash), hash).toEqual({ page: 'overview' });
    for (const hash of ['#/nowhere', '#/settings/keys', '#/REQUESTS/req_1', 'garbage']) {
      expect(parseRoute(hash).page, hash).toBe('requests');
    }
    // The query of an unknown place is kept: the list reads its filters from it.
    expect(plainOf(parseRoute('#/nowhere?status=queued'))).toEqual({ page: 'requests', query: [['status', 'queued']] });
  });

  it('reads the fragment with or without its # and ignores extra slashes', () => {
    expect(parseRoute('/requests/req_1')).toEqual({ page: 'request', id: 'req_1' });
    expect(parseRoute('#//schedules//sch_1/')).toEqual({ page: 'schedule', id: 'sch_1' });
  });

  it('writes the fragment of every place', () => {
    expect(hrefOf({ page: 'overview' })).toBe('#/');
    expect(hrefOf({ page: 'requests', query: new URLSearchParams() })).toBe('#/requests');
    expect(hrefOf({ page: 'failures', query: new URLSearchParams({ queue: 'billing', flow_key: '' }) })).toBe('#/failures?queue=billing');
    expect(hrefOf({ page: 'requests', query: new URLSearchParams({ status: 'failed' }) })).toBe('#/requests?status=failed');
    expect(hrefOf({ page: 'request', id: 'req_1' })).toBe('#/requests/req_1');
    expect(hrefOf({ page: 'send' })).toBe('#/send');
    expect(hrefOf({ page: 'schedules', query: new URLSearchParams() })).toBe('#/schedules');
    expect(hrefOf({ page: 'new-schedule' })).toBe('#/schedules/new');
    expect(hrefOf({ page: 'schedule', id: 'sch_1' })).toBe('#/schedules/sch_1');
    expect(hrefOf({ page: 'queues', query: new URLSearchParams() })).toBe('#/queues');
    expect(hrefOf({ page: 'queue', name: 'billing' })).toBe('#/queues/billing');
    expect(hrefOf({ page: 'flow-keys', query: new URLSearchParams({ cursor: 'x' }) })).toBe('#/flow-keys?cursor=x');
    expect(hrefOf({ page: 'flow-key', name: 'vendor:acme' })).toBe('#/flow-keys/vendor:acme');
  });

  it('keeps a name the API would refuse (a space, a slash) whole, for the page to show the refusal', () => {
    for (const name of ['my key', 'a/b', 'x?y']) {
      expect(parseRoute(hrefOf({ page: 'flow-key', name }))).toEqual({ page: 'flow-key', name });
      expect(parseRoute(hrefOf({ page: 'queue', name }))).toEqual({ page: 'queue', name });
    }
  });

  it('leaves query entries with empty values out of the fragment', () => {
    const query = new URLSearchParams([['status', ''], ['search', 'order 42'], ['cursor', '']]);
    expect(hrefOf({ page: 'requests', query })).toBe('#/requests?search=order+42');
    expect(hrefOf({ page: 'schedules', query: new URLSearchParams([['cursor', '']]) })).toBe('#/schedules');
  });

  it('encodes IDs so that slashes, question marks and spaces stay inside the ID', () => {
    for (const id of ['a/b', 'x?y=1', 'with space', 'per%cent', 'ünï#code', 'new']) {
      const href = hrefOf({ page: 'request', id });
      expect(href.slice('#/requests/'.length)).not.toMatch(/[/?# ]/);
      expect(parseRoute(href)).toEqual({ page: 'request', id });
    }
    // A request may be called "new"; only under schedules is that a place of its own.
    expect(parseRoute(hrefOf({ page: 'schedule', id: 'sch/1?x' }))).toEqual({ page: 'schedule', id: 'sch/1?x' });
  });

  it('keeps a segment with a stray % as written instead of failing', () => {
    expect(parseRoute('#/requests/50%')).toEqual({ page: 'request', id: '50%' });
    expect(parseRoute('#/schedules/%E0%A4%A')).toEqual({ page: 'schedule', id: '%E0%A4%A' });
  });

  it('round-trips query values with reserved characters', () => {
    const query = new URLSearchParams([
      ['search', 'a&b=c d+e/f?g#h%'],
      ['from', '2026-11-25T09:00:00Z'],
      ['status', 'failed'],
      ['status', 'queued'],
    ]);
    for (const page of ['requests', 'schedules', 'queues', 'flow-keys'] as const) {
      const back = parseRoute(hrefOf({ page, query }));
      expect(plainOf(back)).toEqual({ page, query: [...query] });
      expect(hrefOf(back)).toBe(hrefOf({ page, query }));
    }
  });

  it('round-trips every place through its fragment', () => {
    const routes: Route[] = [
      { page: 'requests', query: new URLSearchParams({ status: 'failed', limit: '50' }) },
      { page: 'request', id: 'req_01HZX' },
      { page: 'send' },
      { page: 'schedules', query: new URLSearchParams({ cursor: 'abc=' }) },
      { page: 'new-schedule' },
      { page: 'schedule', id: 'sch_01HZX' },
      { page: 'queues', query: new URLSearchParams({ cursor: 'q=' }) },
      { page: 'queue', name: 'default' },
      { page: 'flow-keys', query: new URLSearchParams() },
      { page: 'flow-key', name: 'customer:42' },
    ];
    for (const route of routes) expect(plainOf(parseRoute(hrefOf(route)))).toEqual(plainOf(route));
  });
});
