import { describe, expect, it } from 'vitest';
import { DEST, useFerry } from '../support/fixture.js';

interface Summary {
  id: string;
  url: string;
  method: string;
  status: string;
  created_at: string;
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
      ['completed_at', 'created_at', 'id', 'method', 'queue', 'replayed_from_request_id', 'schedule_id', 'scheduled_at', 'started_at', 'status', 'url'].sort(),
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

  it.each([
    ['status=done', 'INVALID_FILTER', 'status'],
    ['method=get', 'INVALID_FILTER', 'method'],
    ['source=web', 'INVALID_FILTER', 'source'],
    ['from=yesterday', 'INVALID_FILTER', 'from'],
    ['from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z', 'INVALID_FILTER', 'to'],
    ['from=2026-01-01T00:00:00Z&to=2026-01-01T00:00:00Z', 'INVALID_FILTER', 'to'],
    ['limit=0', 'INVALID_LIMIT', 'limit'],
    ['limit=101', 'INVALID_LIMIT', 'limit'],
    ['limit=ten', undefined, 'limit'],
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
