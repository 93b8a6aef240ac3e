import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/api-client.js';
import { sharedSelfSignedCertificate } from '../support/certs.js';
import { replies, startDestination, type Destination } from '../support/destination.js';
import { DEST, useFerry } from '../support/fixture.js';
import { interval, scheduleProject, secondsAhead } from '../support/schedule-client.js';

interface Summary {
  id: string;
  schedule_id: string | null;
  url: string;
  method: string;
  status: string;
  created_at: string;
  last_response_status_code: number | null;
}
interface Page {
  items: Summary[];
  next_cursor: string | null;
  history_retention_days: number;
  history_cutoff_at: string;
  has_hidden_history: boolean;
}

describe('GET /requests', () => {
  const f = useFerry();

  it('lists newest first with the retention fields', async () => {
    const p = await f.newProject({ retentionDays: 7 });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(((await p.api.send({ url: `${DEST}/${i}` })).body.data as { id: string }).id);
    const res = await p.api.call<Page>('GET', '/requests');
    expect(res.status).toBe(200);
    expect(res.body.data.items.map((i) => i.id)).toEqual([...ids].reverse());
    expect(res.body.data.next_cursor).toBeNull();
    expect(res.body.data.history_retention_days).toBe(7);
    const cutoff = Date.parse(res.body.data.history_cutoff_at);
    expect(Math.abs(cutoff - (Date.now() - 7 * 86_400_000))).toBeLessThan(60_000);
    expect(res.body.data.has_hidden_history).toBe(false);
    expect(Object.keys(res.body.data.items[0]!).sort()).toEqual(
      [
        'completed_at', 'created_at', 'flow_keys', 'id', 'last_response_status_code', 'method', 'queue', 'replayed_from_request_id', 'schedule_id',
        'scheduled_at', 'started_at', 'status', 'url', 'waiting_for',
      ].sort(),
    );
  });

  it('filters by status, method, source, search and time range', async () => {
    const p = await f.newProject();
    const a = ((await p.api.send({ url: 'https://Alpha.example.com/Path', method: 'GET' })).body.data as { id: string }).id;
    const b = ((await p.api.send({ url: 'https://beta.example.com/x', delay: '1h' })).body.data as { id: string }).id;
    await p.api.call('POST', `/requests/${a}/cancel`);
    const replay = ((await p.api.call('POST', `/requests/${a}/replay`)).body.data as { id: string }).id;
    const ids = async (q: string) => (await p.api.call<Page>('GET', `/requests?${q}`)).body.data.items.map((i) => i.id);
    expect(await ids('status=scheduled')).toEqual([b]);
    expect(await ids('status=cancelled')).toEqual([a]);
    expect(await ids('method=GET')).toEqual([replay, a]);
    expect(await ids('source=replay')).toEqual([replay]);
    expect(await ids('source=api')).toEqual([b, a]);
    expect(await ids('search=ALPHA.example')).toEqual([replay, a]);
    expect(await ids('search=%2Fx')).toEqual([b]);
    expect(await ids(`search=${b}`)).toEqual([b]);
    const all = (await p.api.call<Page>('GET', '/requests')).body.data.items;
    const mid = all.find((i) => i.id === b)!.created_at;
    expect(await ids(`from=${encodeURIComponent(mid)}`)).toEqual(all.filter((i) => i.created_at >= mid).map((i) => i.id));
    expect(await ids(`to=${encodeURIComponent(mid)}`)).toEqual(all.filter((i) => i.created_at < mid).map((i) => i.id));
  });

  it('filters by queue and by flow key, with the other filters and the cursor', async () => {
    const p = await f.newProject();
    const sent = async (queue: string | null, keys: string | null, path = 'x') => {
      const query: Record<string, string> = queue === null ? { url: `${DEST}/${path}` } : { url: `${DEST}/${path}`, queue };
      return ((await p.api.send(query, 'hello', keys === null ? {} : { 'flow-keys': keys })).body.data as { id: string }).id;
    };
    const b1 = await sent('billing', 'vendor:acme');
    const d1 = await sent(null, 'tenant:1, vendor:acme', 'other');
    const b2 = await sent('billing', null);
    const e1 = await sent('billing-eu', 'vendor:acme-2');
    const b3 = await sent('billing', 'tenant:2,vendor:acme', 'other');
    const ids = async (q: string) => (await p.api.call<Page>('GET', `/requests?${q}`)).body.data.items.map((i) => i.id);
    expect(await ids('queue=billing')).toEqual([b3, b2, b1]);
    expect(await ids('queue=billing-eu')).toEqual([e1]);
    expect(await ids('queue=default')).toEqual([d1]);
    expect(await ids('flow_key=vendor:acme')).toEqual([b3, d1, b1]);
    expect(await ids('flow_key=vendor%3Aacme-2')).toEqual([e1]);
    expect(await ids('flow_key=vendor')).toEqual([]);
    expect(await ids('queue=billing&flow_key=vendor:acme')).toEqual([b3, b1]);
    expect(await ids('queue=billing&flow_key=vendor:acme&search=%2Fother&method=POST&source=api')).toEqual([b3]);
    expect(await ids('queue=billing&status=cancelled')).toEqual([]);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const q: string = `flow_key=vendor:acme&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page: Page = (await p.api.call<Page>('GET', `/requests?${q}`)).body.data;
      seen.push(...page.items.map((i) => i.id));
      cursor = page.next_cursor;
      if (cursor !== null && seen.length === 1) {
        // A cursor belongs to its filters: the same position under another queue or key is refused.
        expect((await p.api.call('GET', `/requests?flow_key=vendor:other&limit=1&cursor=${encodeURIComponent(cursor)}`)).status).toBe(422);
        expect((await p.api.call('GET', `/requests?queue=billing&flow_key=vendor:acme&limit=1&cursor=${encodeURIComponent(cursor)}`)).status).toBe(422);
      }
    } while (cursor);
    expect(seen).toEqual([b3, d1, b1]);
  });

  it.each([
    ['queue=', 'INVALID_QUEUE', 'queue'],
    ['queue=bill%20ing', 'INVALID_QUEUE', 'queue'],
    ['queue=vendor:acme', 'INVALID_QUEUE', 'queue'],
    [`queue=${'q'.repeat(65)}`, 'INVALID_QUEUE', 'queue'],
    ['flow_key=', 'INVALID_FLOW_KEY', 'flow_key'],
    ['flow_key=a%2Cb', 'INVALID_FLOW_KEY', 'flow_key'],
    [`flow_key=${'k'.repeat(65)}`, 'INVALID_FLOW_KEY', 'flow_key'],
    ['queue=billing&queue=other', 'INVALID_FIELD', 'queue'],
    ['status=done', 'INVALID_FILTER', 'status'],
    ['method=get', 'INVALID_FILTER', 'method'],
    ['source=web', 'INVALID_FILTER', 'source'],
    ['schedule_id=sch_123', 'INVALID_FILTER', 'schedule_id'],
    ['schedule_id=req_01JQ3ZV5D2Y8K1N4M6P7R9S0TW', 'INVALID_FILTER', 'schedule_id'],
    ['schedule_id=', 'INVALID_FILTER', 'schedule_id'],
    ['from=yesterday', 'INVALID_FILTER', 'from'],
    ['from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z', 'INVALID_FILTER', 'to'],
    ['from=2026-01-01T00:00:00Z&to=2026-01-01T00:00:00Z', 'INVALID_FILTER', 'to'],
    ['limit=0', 'INVALID_LIMIT', 'limit'],
    ['limit=101', 'INVALID_LIMIT', 'limit'],
    ['limit=ten', undefined, 'limit'],
    ['response_status_code=99', 'INVALID_FILTER', 'response_status_code'],
    ['response_status_code=600', 'INVALID_FILTER', 'response_status_code'],
    ['response_status_code=-500', 'INVALID_FILTER', 'response_status_code'],
    ['response_status_code=5xx', 'INVALID_FIELD', 'response_status_code'],
    ['response_status_code=500.0', 'INVALID_FIELD', 'response_status_code'],
    ['response_status_code=', 'INVALID_FIELD', 'response_status_code'],
    ['response_status_code=500&response_status_code=502', 'INVALID_FIELD', 'response_status_code'],
    ['cursor=garbage', 'INVALID_CURSOR', 'cursor'],
    [`search=${'a'.repeat(2049)}`, 'INVALID_FILTER', 'search'],
    ['colour=blue', 'UNKNOWN_FIELD', 'colour'],
  ])('rejects %s with 422', async (q, code, field) => {
    const res = await f.api.call('GET', `/requests?${q}`);
    expect(res.status).toBe(422);
    if (code) expect(res.body.error?.code).toBe(code);
    expect(res.body.error?.field).toBe(field);
  });

  it('pages without duplicates or gaps while new requests keep arriving, and rejects tampered cursors', async () => {
    const p = await f.newProject();
    const original: string[] = [];
    for (let i = 0; i < 25; i++) original.push(((await p.api.send({ url: `${DEST}/${i}` })).body.data as { id: string }).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = cursor ? `limit=4&cursor=${encodeURIComponent(cursor)}` : 'limit=4';
      const res = await p.api.call<Page>('GET', `/requests?${q}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.data.items.map((i) => i.id));
      cursor = res.body.data.next_cursor;
      pages++;
      await p.api.send({ url: `${DEST}/new` });
      if (cursor && pages === 2) {
        const tampered = cursor.slice(0, -2) + (cursor.endsWith('AA') ? 'BB' : 'AA');
        expect((await p.api.call('GET', `/requests?limit=4&cursor=${encodeURIComponent(tampered)}`)).status).toBe(422);
        const otherFilter = await p.api.call('GET', `/requests?limit=4&status=queued&cursor=${encodeURIComponent(cursor)}`);
        expect(otherFilter.status).toBe(422);
      }
    } while (cursor);
    expect(seen).toEqual([...original].reverse());
    expect(pages).toBe(7);
  });

  it('defaults to 50 items per page', async () => {
    const p = await f.newProject();
    await p.api.call('POST', '/requests/batch', {
      json: { requests: Array.from({ length: 60 }, (_, i) => ({ url: `${DEST}/${i}` })) },
      headers: { 'idempotency-key': 'sixty' },
    });
    const res = await p.api.call<Page>('GET', '/requests');
    expect(res.body.data.items).toHaveLength(50);
    expect(res.body.data.next_cursor).not.toBeNull();
  });
});

// Real time: the occurrences fire on the wall clock, so the test waits for them (with deadlines, never fixed sleeps).
describe('GET /requests?schedule_id (schedules firing)', () => {
  const certificate = sharedSelfSignedCertificate();
  const f = useFerry({
    env: { FERRY_ROLES: 'api,delivery', FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true', FERRY_DELIVERY_CA_FILE: certificate.certFile },
  });
  let dest: Destination;

  beforeAll(async () => {
    dest = await startDestination({ certificate });
  });
  afterAll(async () => {
    await dest?.close();
  });

  it("lists the requests one schedule created, and no other schedule's or the API's", async () => {
    const { api, schedules } = await scheduleProject(f);
    const startsAt = secondsAhead(2000);
    const [mine, other] = await Promise.all(
      ['mine', 'other'].map((name) => schedules.created({ name, timing: interval(60, startsAt), request: { url: `${dest.url}/${name}` } })),
    );
    const sent = ((await api.send({ url: `${dest.url}/sent` })).body.data as { id: string }).id;
    const listed = async (q: string) => {
      const res = await api.call<Page>('GET', `/requests?${q}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data.items;
    };
    const occurrence = (id: string) =>
      eventually(async () => {
        const items = await listed(`schedule_id=${id}`);
        return items.length > 0 ? items : undefined;
      }, 30_000);

    const [ours, theirs] = await Promise.all([occurrence(mine!.id), occurrence(other!.id)]);
    expect(ours.map((i) => i.schedule_id)).toEqual([mine!.id]);
    expect(ours[0]!.url).toBe(`${dest.url}/mine`);
    expect(theirs.map((i) => i.schedule_id)).toEqual([other!.id]);
    expect(ours[0]!.id).not.toBe(theirs[0]!.id);

    const all = await listed('limit=100');
    expect(all.map((i) => i.id).sort()).toEqual([ours[0]!.id, theirs[0]!.id, sent].sort());
    expect(await listed(`schedule_id=${mine!.id}&source=api`)).toEqual([]);
    expect((await listed(`schedule_id=${mine!.id}&source=recurring&method=POST`)).map((i) => i.id)).toEqual([ours[0]!.id]);
    // A schedule this project never had, in a well-formed ID: an empty list, not an error.
    expect(await listed(`schedule_id=${mine!.id.slice(0, -1)}${mine!.id.endsWith('0') ? '1' : '0'}`)).toEqual([]);
  }, 60_000);

  it("filters by the last attempt's response status code, with the status filter and the cursor", async () => {
    const { api } = await scheduleProject(f);
    dest.on('/down', replies.status(500));
    dest.on('/gone', replies.status(410));
    dest.on('/reset', replies.reset());
    // Answers 503 to the first attempt and 200 to the next: the last attempt's code is what counts.
    let flaky = 0;
    dest.on('/flaky', ({ res }) => void res.writeHead(flaky++ === 0 ? 503 : 200).end());
    const sent = async (path: string, query: Record<string, string> = {}) =>
      ((await api.send({ url: `${dest.url}/${path}`, retry: '0', ...query })).body.data as { id: string }).id;
    const down1 = await sent('down');
    const ok1 = await sent('ok');
    const flakyId = await sent('flaky', { retry: '1' });
    const reset = await sent('reset');
    const down2 = await sent('down');
    const gone = await sent('gone');
    const later = await sent('ok', { delay: '1h' });
    const listed = async (q: string) => {
      const res = await api.call<Page>('GET', `/requests?${q}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data;
    };
    const ids = async (q: string) => (await listed(q)).items.map((i) => i.id);
    await eventually(async () => {
      const items = (await listed('limit=100')).items;
      return items.filter((i) => i.id !== later).every((i) => i.status === 'succeeded' || i.status === 'failed') ? items : undefined;
    }, 30_000);

    expect(await ids('response_status_code=500')).toEqual([down2, down1]);
    expect(await ids('response_status_code=200')).toEqual([flakyId, ok1]);
    expect(await ids('response_status_code=410')).toEqual([gone]);
    expect(await ids('response_status_code=503')).toEqual([]);
    expect(await ids('response_status_code=418')).toEqual([]);
    expect(await ids('response_status_code=500&status=failed')).toEqual([down2, down1]);
    expect(await ids('response_status_code=500&status=succeeded')).toEqual([]);
    expect(await ids('response_status_code=200&status=succeeded&search=%2Fflaky')).toEqual([flakyId]);
    const codes = Object.fromEntries((await listed('limit=100')).items.map((i) => [i.id, i.last_response_status_code]));
    expect(codes).toEqual({ [down1]: 500, [ok1]: 200, [flakyId]: 200, [reset]: null, [down2]: 500, [gone]: 410, [later]: null });
    const detail = await api.call<{ last_response_status_code: number | null }>('GET', `/requests/${flakyId}`);
    expect(detail.body.data.last_response_status_code).toBe(200);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Page = await listed(`response_status_code=500&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      seen.push(...page.items.map((i) => i.id));
      cursor = page.next_cursor;
      if (cursor !== null && seen.length === 1) {
        // A cursor belongs to its filters: the same position under another status code is refused.
        const other = await api.call('GET', `/requests?response_status_code=502&limit=1&cursor=${encodeURIComponent(cursor)}`);
        expect(other.status).toBe(422);
        expect(other.body.error?.code).toBe('INVALID_CURSOR');
      }
    } while (cursor);
    expect(seen).toEqual([down2, down1]);
  }, 60_000);
});
