import http from 'node:http';
import { describe, expect, it } from 'vitest';
import type { Api } from '../support/api-client.js';
import { DEST, useFerry } from '../support/fixture.js';
import { expectError, interval, newKey, Schedules } from '../support/schedule-client.js';

interface Detail {
  id: string;
  status: string;
  queue: string;
  flow_keys: string[];
  waiting_for: unknown;
}

const KEYS = ['customer:42', 'vendor.acct-7', 'Region_EU'];

async function accepted(res: Promise<{ status: number; body: { data: unknown } }>): Promise<string> {
  const answer = await res;
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  return (answer.body.data as { id: string }).id;
}

async function detail(api: Api, id: string): Promise<Detail> {
  const res = await api.call<Detail>('GET', `/requests/${id}`);
  expect(res.status).toBe(200);
  return res.body.data;
}

async function requestIds(api: Api): Promise<string[]> {
  const res = await api.call<{ items: Array<{ id: string }> }>('GET', '/requests?limit=100');
  return res.body.data.items.map((i) => i.id);
}

/** A quick send through node:http with a raw header list, so a header can go on two lines (fetch joins them). */
function rawSend(api: Api, headers: string[]): Promise<{ status: number; body: string }> {
  const url = `${api.baseUrl}/send?url=${encodeURIComponent(DEST)}`;
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: ['Host', new URL(url).host, 'Authorization', `Bearer ${api.apiKey}`, ...headers] }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end('x');
  });
}

/** Every way a request names its flow keys wrongly, with the field the refusal names for a structured create. */
const BAD_KEYS: ReadonlyArray<{ name: string; keys: unknown[]; field: string }> = [
  { name: 'a key with a space', keys: ['ok', 'has space'], field: 'flow_keys[1]' },
  { name: 'five keys', keys: ['a', 'b', 'c', 'd', 'e'], field: 'flow_keys' },
  { name: 'a key named twice', keys: ['a', 'b', 'a'], field: 'flow_keys[2]' },
  { name: 'an empty key', keys: [''], field: 'flow_keys[0]' },
  { name: 'a 65-character key', keys: ['k'.repeat(65)], field: 'flow_keys[0]' },
  { name: 'a key with a slash', keys: ['a/b'], field: 'flow_keys[0]' },
];

describe('flow_keys on requests', () => {
  const f = useFerry();

  it('keeps the keys of a structured create, in order, and answers them in the detail and the list', async () => {
    const { api } = await f.newProject();
    const id = await accepted(api.create({ url: DEST, queue: 'billing', flow_keys: KEYS }));
    expect(await detail(api, id)).toMatchObject({ id, status: 'queued', queue: 'billing', flow_keys: KEYS, waiting_for: null });
    const plain = await accepted(api.create({ url: DEST }));
    expect(await detail(api, plain)).toMatchObject({ flow_keys: [], waiting_for: null });
    const nulled = await accepted(api.create({ url: DEST, flow_keys: null }));
    expect(await detail(api, nulled)).toMatchObject({ flow_keys: [] });

    const list = await api.call<{ items: Array<Record<string, unknown>> }>('GET', '/requests');
    const byId = new Map(list.body.data.items.map((i) => [i.id, i]));
    expect(byId.get(id)).toMatchObject({ flow_keys: KEYS, waiting_for: null });
    expect(byId.get(plain)).toMatchObject({ flow_keys: [], waiting_for: null });
    expect(Object.keys(byId.get(id)!)).toEqual([
      'id', 'replayed_from_request_id', 'schedule_id', 'url', 'method', 'queue', 'flow_keys', 'status', 'waiting_for',
      'scheduled_at', 'created_at', 'started_at', 'completed_at', 'last_response_status_code',
    ]);
  });

  it('takes keys on every batch item, and copies them on replay', async () => {
    const { api } = await f.newProject();
    const batch = await api.call<{ requests: Array<{ id: string }> }>('POST', '/requests/batch', {
      json: { requests: [{ url: DEST, flow_keys: ['a'], delay: '1h' }, { url: DEST }, { url: DEST, flow_keys: ['b', 'c'] }] },
      headers: { 'idempotency-key': newKey() },
    });
    expect(batch.status, JSON.stringify(batch.body)).toBe(202);
    const [first, second, third] = batch.body.data.requests.map((r) => r.id);
    expect((await detail(api, first!)).flow_keys).toEqual(['a']);
    expect((await detail(api, second!)).flow_keys).toEqual([]);
    expect((await detail(api, third!)).flow_keys).toEqual(['b', 'c']);

    expect((await api.call('POST', `/requests/${first}/cancel`)).status).toBe(202);
    const replay = await accepted(api.call('POST', `/requests/${first}/replay`));
    expect(await detail(api, replay)).toMatchObject({ status: 'queued', flow_keys: ['a'] });
  });

  it('reads the Flow-Keys header of /send: commas, spaces around keys trimmed', async () => {
    const { api } = await f.newProject();
    const id = await accepted(api.send({ url: DEST }, 'x', { 'Flow-Keys': ' customer:42 ,vendor.acct-7,\tRegion_EU ' }));
    expect((await detail(api, id)).flow_keys).toEqual(KEYS);
    const single = await accepted(api.send({ url: DEST }, 'x', { 'flow-keys': 'only' }));
    expect((await detail(api, single)).flow_keys).toEqual(['only']);
    const none = await accepted(api.send({ url: DEST }));
    expect((await detail(api, none)).flow_keys).toEqual([]);
  });

  it('gives the same Idempotency-Key and keys the same request, and other keys a 409', async () => {
    const { api } = await f.newProject();
    const key = newKey();
    const first = await accepted(api.create({ url: DEST, flow_keys: ['a'] }, { 'idempotency-key': key }));
    expect(await accepted(api.create({ url: DEST, flow_keys: ['a'] }, { 'idempotency-key': key }))).toBe(first);
    expectError(await api.create({ url: DEST, flow_keys: ['b'] }, { 'idempotency-key': key }), 409, 'IDEMPOTENCY_KEY_REUSED');
    const sendKey = newKey();
    const sent = await accepted(api.send({ url: DEST }, 'x', { 'idempotency-key': sendKey, 'flow-keys': 'a' }));
    expect(await accepted(api.send({ url: DEST }, 'x', { 'idempotency-key': sendKey, 'flow-keys': 'a' }))).toBe(sent);
    expectError(await api.send({ url: DEST }, 'x', { 'idempotency-key': sendKey, 'flow-keys': 'b' }), 409, 'IDEMPOTENCY_KEY_REUSED');
  });

  it.each(BAD_KEYS)('refuses $name on create, in a batch and in a schedule, storing nothing', async ({ keys, field }) => {
    const { api } = await f.newProject();
    expectError(await api.create({ url: DEST, flow_keys: keys }), 422, 'INVALID_FLOW_KEY', field);
    const batch = await api.call('POST', '/requests/batch', {
      json: { requests: [{ url: DEST }, { url: DEST, flow_keys: keys }] },
      headers: { 'idempotency-key': newKey() },
    });
    expectError(batch, 422, 'INVALID_FLOW_KEY', `requests[1].${field}`);
    const schedules = new Schedules(api);
    expectError(await schedules.create({ name: 'n', timing: interval(3600), request: { url: DEST, flow_keys: keys } }), 422, 'INVALID_FLOW_KEY', `request.${field}`);
    expect(await requestIds(api)).toEqual([]);
    expect(await schedules.ids()).toEqual([]);
  });

  it.each([
    ['a key with a space', 'ok, has space'],
    ['five keys', 'a,b,c,d,e'],
    ['a key named twice', 'a, b ,a'],
    ['an empty key', 'a,,b'],
    ['a trailing comma', 'a,'],
    ['a blank header', ' '],
  ])('refuses a Flow-Keys header with %s, storing nothing', async (_what, header) => {
    const { api } = await f.newProject();
    expectError(await api.send({ url: DEST }, 'x', { 'flow-keys': header }), 422, 'INVALID_FLOW_KEY', 'Flow-Keys');
    expect(await requestIds(api)).toEqual([]);
  });

  it('reads a Flow-Keys header sent on several lines as one list, as RFC 9110 does', async () => {
    const { api } = await f.newProject();
    const twoLines = await rawSend(api, ['Flow-Keys', 'a, b', 'flow-keys', 'c']);
    expect(twoLines.status, twoLines.body).toBe(202);
    expect((await detail(api, (JSON.parse(twoLines.body) as { data: { id: string } }).data.id)).flow_keys).toEqual(['a', 'b', 'c']);
    const repeated = await rawSend(api, ['Flow-Keys', 'a', 'Flow-Keys', 'a']);
    expect(repeated.status).toBe(422);
    expect(JSON.parse(repeated.body)).toMatchObject({ error: { code: 'INVALID_FLOW_KEY', field: 'Flow-Keys' } });
  });

  it('refuses flow_keys that are not an array of strings', async () => {
    const { api } = await f.newProject();
    expectError(await api.create({ url: DEST, flow_keys: [1] }), 422, 'INVALID_FIELD', 'flow_keys[0]');
    expectError(await api.create({ url: DEST, flow_keys: 'a' }), 422, 'INVALID_FIELD', 'flow_keys');
    expectError(await api.create({ url: DEST, flow_keys: [null] }), 422, 'INVALID_FIELD', 'flow_keys[0]');
    expect(await requestIds(api)).toEqual([]);
  });
});

describe('flow_keys of a schedule request', () => {
  const f = useFerry();

  it('keeps the keys with the schedule, answers them in its detail and replaces them on update', async () => {
    const { api } = await f.newProject();
    const schedules = new Schedules(api);
    const created = await schedules.created({ name: 'keyed', timing: interval(3600), request: { url: DEST, flow_keys: ['tenant:1', 'vendor'] } });
    expect((await schedules.detail(created.id)).request).toEqual({ url: DEST, body: null, headers: {}, retry: 0, flow_keys: ['tenant:1', 'vendor'], callbacks: null, queue: 'default', timeout: '50s', metadata: {} });
    expect((await schedules.patch(created.id, { request: { url: DEST, flow_keys: ['other'] } })).status).toBe(200);
    expect((await schedules.detail(created.id)).request).toMatchObject({ flow_keys: ['other'] });
    expect((await schedules.patch(created.id, { request: { url: DEST } })).status).toBe(200);
    expect((await schedules.detail(created.id)).request).toMatchObject({ flow_keys: [] });
    const plain = await schedules.created({ name: 'plain', timing: interval(3600), request: { url: DEST } });
    expect((await schedules.detail(plain.id)).request).toMatchObject({ flow_keys: [] });
  });
});
