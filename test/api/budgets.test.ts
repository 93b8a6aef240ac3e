import { describe, expect, it } from 'vitest';
import { Budgets, unconfigured, type BudgetPath } from '../support/budget-client.js';
import { DEST, useFerry } from '../support/fixture.js';
import { expectError, UTC_TIMESTAMP } from '../support/schedule-client.js';

/** Each kind's path, its bad-name error code and field, and a name valid for it only. */
const KINDS: ReadonlyArray<{ path: BudgetPath; code: string; field: string; name: string }> = [
  { path: 'queues', code: 'INVALID_QUEUE', field: 'name', name: 'billing.eu-1' },
  { path: 'flow-keys', code: 'INVALID_FLOW_KEY', field: 'key', name: 'customer:42.eu_1' },
];

/** The refusals the contract names, each with the field it must name. */
const BAD_LIMITS: ReadonlyArray<{ name: string; body: Record<string, unknown>; code: string; field: string }> = [
  { name: 'rate.limit 0', body: { rate: { limit: 0, period: '1s' } }, code: 'INVALID_BUDGET', field: 'rate.limit' },
  { name: 'a fractional rate.limit', body: { rate: { limit: 1.5, period: '1s' } }, code: 'INVALID_FIELD', field: 'rate.limit' },
  { name: 'period 2h', body: { rate: { limit: 10, period: '2h' } }, code: 'INVALID_BUDGET', field: 'rate.period' },
  { name: 'period 500ms', body: { rate: { limit: 10, period: '500ms' } }, code: 'INVALID_BUDGET', field: 'rate.period' },
  { name: 'period 0s', body: { rate: { limit: 10, period: '0s' } }, code: 'INVALID_BUDGET', field: 'rate.period' },
  { name: 'burst 0', body: { rate: { limit: 10, period: '1s', burst: 0 } }, code: 'INVALID_BUDGET', field: 'rate.burst' },
  { name: 'a rate without limit', body: { rate: { period: '1s' } }, code: 'MISSING_FIELD', field: 'rate.limit' },
  { name: 'a rate without period', body: { rate: { limit: 10 } }, code: 'MISSING_FIELD', field: 'rate.period' },
  { name: 'concurrency 0', body: { concurrency: 0 }, code: 'INVALID_BUDGET', field: 'concurrency' },
  { name: 'concurrency 10,001', body: { concurrency: 10_001 }, code: 'INVALID_BUDGET', field: 'concurrency' },
  { name: 'an unknown field', body: { concurrency: 5, parallelism: 5 }, code: 'UNKNOWN_FIELD', field: 'parallelism' },
  { name: 'an unknown field of the rate', body: { rate: { limit: 1, period: '1s', window: '1s' } }, code: 'UNKNOWN_FIELD', field: 'rate.window' },
  { name: 'adaptive as a string', body: { adaptive: 'yes' }, code: 'INVALID_FIELD', field: 'adaptive' },
];

describe.each(KINDS)('/$path', ({ path, code, field, name }) => {
  const f = useFerry();
  const budgets = () => new Budgets(f.api, path);
  /** A project of the test's own, so lists start empty. */
  const fresh = async () => new Budgets((await f.newProject()).api, path);

  it('reads a name never configured without limits, not paused, idle', async () => {
    expect(await budgets().ok(budgets().get(`${name}-never`))).toEqual(unconfigured(`${name}-never`));
  });

  it('sets the whole configuration and answers it, burst defaulting to the limit and adaptive to true', async () => {
    const b = budgets();
    const set = await b.ok(b.put(`${name}-set`, { rate: { limit: 10, period: '1s' }, concurrency: 5 }));
    expect(set).toEqual({
      ...unconfigured(`${name}-set`),
      rate: { limit: 10, period: '1s', burst: 10 },
      concurrency: 5,
      // Nothing delivered yet: the whole rate is admitted, none of it started.
      started_in_period: 0,
      admitted_rate: 10,
      updated_at: expect.stringMatching(UTC_TIMESTAMP),
    });
    expect(await b.ok(b.get(`${name}-set`))).toEqual(set);

    const full = await b.ok(b.put(`${name}-set`, { rate: { limit: 1000, period: '1h', burst: 50 }, concurrency: 10_000, adaptive: false }));
    expect(full).toMatchObject({ rate: { limit: 1000, period: '1h', burst: 50 }, concurrency: 10_000, adaptive: false, paused: false });
  });

  it('answers the period in its shortest exact form', async () => {
    const b = budgets();
    for (const [given, answered] of [['60s', '1m'], ['3600s', '1h'], ['90s', '90s'], ['60m', '1h'], ['1s', '1s'], ['120s', '2m']]) {
      const set = await b.ok(b.put(`${name}-p`, { rate: { limit: 1, period: given } }));
      expect(set.rate?.period, given).toBe(answered);
    }
  });

  it('replaces the whole configuration: what a PUT leaves out (or sets null) is no limit', async () => {
    const b = budgets();
    await b.ok(b.put(`${name}-r`, { rate: { limit: 3, period: '1m' }, concurrency: 2, adaptive: false }));
    expect(await b.ok(b.put(`${name}-r`, { concurrency: 7 }))).toMatchObject({ rate: null, concurrency: 7, adaptive: true });
    expect(await b.ok(b.put(`${name}-r`, { rate: null, concurrency: null, adaptive: null }))).toMatchObject({ rate: null, concurrency: null, adaptive: true });
    expect(await b.ok(b.put(`${name}-r`, {}))).toMatchObject({ rate: null, concurrency: null, adaptive: true });
  });

  it('pauses and resumes, idempotently, any name, keeping the limits; a PUT keeps the pause', async () => {
    const b = budgets();
    const paused = await b.ok(b.pause(`${name}-pause`));
    expect(paused).toEqual({ ...unconfigured(`${name}-pause`), paused: true, updated_at: expect.stringMatching(UTC_TIMESTAMP) });
    expect(await b.ok(b.pause(`${name}-pause`))).toMatchObject({ paused: true });
    const limited = await b.ok(b.put(`${name}-pause`, { concurrency: 3 }));
    expect(limited).toMatchObject({ paused: true, concurrency: 3 });
    const resumed = await b.ok(b.resume(`${name}-pause`));
    expect(resumed).toMatchObject({ paused: false, concurrency: 3 });
    const again = await b.ok(b.resume(`${name}-pause`));
    expect(again).toMatchObject({ paused: false, concurrency: 3 });
    expect(await b.ok(b.get(`${name}-pause`))).toEqual(again);
  });

  it.each(BAD_LIMITS)('refuses $name with 422 naming the field, storing nothing', async ({ body, code: want, field: at }) => {
    const b = await fresh();
    await b.ok(b.put('kept', { rate: { limit: 5, period: '1s' }, concurrency: 4 }));
    expectError(await b.put('kept', body), 422, want, at);
    expectError(await b.put('other', body), 422, want, at);
    expect(await b.ok(b.get('kept'))).toMatchObject({ rate: { limit: 5, period: '1s', burst: 5 }, concurrency: 4 });
    expect(await b.names()).toEqual(['kept']);
  });

  it.each([
    ['a space', 'has space'],
    ['65 characters', 'k'.repeat(65)],
    ['a slash', 'a/b'],
    ['a character of neither alphabet', 'naïve'],
  ])('refuses a name with %s in the path of every route, storing nothing', async (_what, bad) => {
    const b = await fresh();
    const segment = encodeURIComponent(bad);
    const calls: Array<[string, string, unknown?]> = [
      ['GET', `/${path}/${segment}`],
      ['PUT', `/${path}/${segment}`, { concurrency: 1 }],
      ['POST', `/${path}/${segment}/pause`],
      ['POST', `/${path}/${segment}/resume`],
    ];
    for (const [method, url, json] of calls) {
      expectError(await b.api.call(method, url, json === undefined ? {} : { json }), 422, code, field);
    }
    expect(await b.names()).toEqual([]);
  });

  it('lists in name order, paged like the request list, with cursors bound to the list', async () => {
    const b = await fresh();
    const names = ['c', 'a', 'e', 'b', 'd'].map((n) => `${n}-${path}`);
    for (const n of names) await b.ok(b.pause(n));
    const first = await b.list('limit=2');
    expect(first.status).toBe(200);
    expect(Object.keys(first.body.data).sort()).toEqual(['items', 'next_cursor']);
    expect(first.body.data.items.map((i) => i.name)).toEqual(['a', 'b'].map((n) => `${n}-${path}`));
    expect(first.body.data.items[0]).toEqual({ ...unconfigured(`a-${path}`), paused: true, updated_at: expect.stringMatching(UTC_TIMESTAMP) });
    expect(first.body.data.next_cursor).toEqual(expect.any(String));
    expect(await b.names(2)).toEqual([...names].sort());
    expect((await b.list()).body.data).toMatchObject({ next_cursor: null });

    expectError(await b.list('limit=0'), 422, 'INVALID_LIMIT', 'limit');
    expectError(await b.list('limit=101'), 422, 'INVALID_LIMIT', 'limit');
    expectError(await b.list('cursor=nonsense'), 422, 'INVALID_CURSOR', 'cursor');
    const other = new Budgets(b.api, path === 'queues' ? 'flow-keys' : 'queues');
    expectError(await other.list(`cursor=${encodeURIComponent(first.body.data.next_cursor!)}`), 422, 'INVALID_CURSOR', 'cursor');
    expectError(await b.list('foo=1'), 422, 'UNKNOWN_FIELD', 'foo');
  });

  it('keeps every project to its own budgets, and wants a key', async () => {
    const one = await fresh();
    const two = await fresh();
    await one.ok(one.put('shared-name', { concurrency: 9 }));
    expect(await two.ok(two.get('shared-name'))).toEqual(unconfigured('shared-name'));
    expect(await two.names()).toEqual([]);
    expectError(await one.api.call('GET', `/${path}/x`, { auth: null }), 401, 'UNAUTHENTICATED');
    expectError(await one.api.call('PUT', `/${path}/x`, { json: { concurrency: 1 }, auth: 'Bearer fry_nope' }), 401, 'UNAUTHENTICATED');
  });
});

describe('GET /queues', () => {
  const f = useFerry();

  it('lists the queues requests used, beside the configured ones, once each', async () => {
    const { api } = await f.newProject();
    const queues = new Budgets(api, 'queues');
    expect((await api.create({ url: DEST, queue: 'emails' })).status).toBe(202);
    expect((await api.create({ url: DEST, queue: 'emails' })).status).toBe(202);
    expect((await api.send({ url: DEST, queue: 'sms' })).status).toBe(202);
    expect((await api.create({ url: DEST })).status).toBe(202);
    const batch = await api.call('POST', '/requests/batch', { json: { requests: [{ url: DEST, queue: 'push' }, { url: DEST, queue: 'emails' }] }, headers: { 'idempotency-key': 'b-1' } });
    expect(batch.status).toBe(202);
    await queues.ok(queues.put('configured', { concurrency: 2 }));
    expect(await queues.names()).toEqual(['configured', 'default', 'emails', 'push', 'sms']);
    // A queue only used keeps reading without limits, and configuring it later keeps it once.
    expect(await queues.ok(queues.get('emails'))).toMatchObject({ rate: null, concurrency: null, paused: false });
    await queues.ok(queues.put('emails', { concurrency: 1 }));
    expect((await api.create({ url: DEST, queue: 'emails' })).status).toBe(202);
    expect(await queues.ok(queues.get('emails'))).toMatchObject({ concurrency: 1 });
    expect(await queues.names()).toEqual(['configured', 'default', 'emails', 'push', 'sms']);
  });

  it('does not list the queue of a refused request', async () => {
    const { api } = await f.newProject();
    const queues = new Budgets(api, 'queues');
    expect((await api.create({ url: DEST, queue: 'refused', flow_keys: ['a b'] })).status).toBe(422);
    expect(await queues.names()).toEqual([]);
  });
});
