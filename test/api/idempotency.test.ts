import { describe, expect, it } from 'vitest';
import { DEST, useFerry } from '../support/fixture.js';

type Acc = { id: string };

describe('idempotency', () => {
  const f = useFerry();

  it('returns the same response for the same key and input, and 409 for different input', async () => {
    const h = { 'idempotency-key': 'send-1' };
    const first = await f.api.send({ url: DEST }, 'body', h);
    const again = await f.api.send({ url: DEST }, 'body', h);
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.body.data).toEqual(first.body.data);
    const changed = await f.api.send({ url: DEST }, 'other body', h);
    expect(changed.status).toBe(409);
    expect(changed.body.error?.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const otherEndpoint = await f.api.create({ url: DEST }, h);
    expect(otherEndpoint.status).toBe(409);
  });

  it('scopes keys to the project', async () => {
    const h = { 'idempotency-key': 'shared-key' };
    const a = await f.api.send({ url: DEST }, 'x', h);
    const other = await f.newProject();
    const b = await other.api.send({ url: DEST }, 'x', h);
    expect(b.status).toBe(202);
    expect((b.body.data as Acc).id).not.toBe((a.body.data as Acc).id);
  });

  it('creates exactly one request for many concurrent duplicates', async () => {
    const project = await f.newProject();
    const h = { 'idempotency-key': 'race' };
    const results = await Promise.all(Array.from({ length: 25 }, () => project.api.create({ url: DEST, body: { n: 1 } }, h)));
    for (const r of results) expect(r.status).toBe(202);
    expect(new Set(results.map((r) => (r.body.data as Acc).id)).size).toBe(1);
    const list = await project.api.call<{ items: unknown[] }>('GET', '/requests');
    expect(list.body.data.items).toHaveLength(1);
  });

  it('treats key order in JSON as the same input', async () => {
    const h = { 'idempotency-key': 'order' };
    const a = await f.api.create({ url: DEST, metadata: { a: '1', b: '2' }, queue: 'q' }, h);
    const b = await f.api.create({ queue: 'q', metadata: { b: '2', a: '1' }, url: DEST }, h);
    expect((b.body.data as Acc).id).toBe((a.body.data as Acc).id);
  });

  it('rejects an empty or oversized key', async () => {
    expect((await f.api.create({ url: DEST }, { 'idempotency-key': 'k'.repeat(256) })).status).toBe(422);
    expect((await f.api.create({ url: DEST }, { 'idempotency-key': 'k'.repeat(255) })).status).toBe(202);
  });
});

describe('POST /requests/batch', () => {
  const f = useFerry();

  const item = (n: number, extra: Record<string, unknown> = {}) => ({ url: `${DEST}?n=${n}`, body: { n }, ...extra });

  it('requires the Idempotency-Key header', async () => {
    const res = await f.api.call('POST', '/requests/batch', { json: { requests: [item(1)] } });
    expect(res.status).toBe(422);
    expect(res.body.error?.code).toBe('INVALID_IDEMPOTENCY_KEY');
  });

  it('accepts in order, and a retry returns the same ordered IDs', async () => {
    const json = { requests: [item(1), item(2, { delay: '1h' }), item(3)] };
    const h = { 'idempotency-key': 'batch-a' };
    const first = await f.api.call<{ requests: Array<Acc & { status: string }> }>('POST', '/requests/batch', { json, headers: h });
    expect(first.status).toBe(202);
    expect(first.body.data.requests.map((r) => r.status)).toEqual(['queued', 'scheduled', 'queued']);
    const again = await f.api.call<{ requests: Acc[] }>('POST', '/requests/batch', { json, headers: h });
    expect(again.body.data.requests.map((r) => r.id)).toEqual(first.body.data.requests.map((r) => r.id));
    const changed = await f.api.call('POST', '/requests/batch', { json: { requests: [item(1)] }, headers: h });
    expect(changed.status).toBe(409);
  });

  it('validates the whole batch first: one bad item rejects all, with its index in the field', async () => {
    const project = await f.newProject();
    const res = await project.api.call('POST', '/requests/batch', {
      json: { requests: [item(1), item(2), { url: 'http://insecure.example/' }] },
      headers: { 'idempotency-key': 'bad' },
    });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'INVALID_URL', field: 'requests[2].url' });
    const list = await project.api.call<{ items: unknown[] }>('GET', '/requests');
    expect(list.body.data.items).toHaveLength(0);
  });

  it('enforces 1 to 100 items and unique item keys', async () => {
    const h = { 'idempotency-key': 'sizes' };
    expect((await f.api.call('POST', '/requests/batch', { json: { requests: [] }, headers: h })).status).toBe(422);
    const many = Array.from({ length: 101 }, (_, i) => item(i));
    const res = await f.api.call('POST', '/requests/batch', { json: { requests: many }, headers: h });
    expect(res.status).toBe(422);
    expect(res.body.error?.code).toBe('INVALID_BATCH');
    const dup = await f.api.call('POST', '/requests/batch', {
      json: { requests: [item(1, { idempotency_key: 'x' }), item(2, { idempotency_key: 'x' })] },
      headers: { 'idempotency-key': 'dup' },
    });
    expect(dup.status).toBe(422);
    expect(dup.body.error?.field).toBe('requests[1].idempotency_key');
  });

  it('deduplicates item keys across batches and single creation', async () => {
    const single = await f.api.create(item(7), { 'idempotency-key': 'item-7' });
    const res = await f.api.call<{ requests: Acc[] }>('POST', '/requests/batch', {
      json: { requests: [item(6), item(7, { idempotency_key: 'item-7' })] },
      headers: { 'idempotency-key': 'batch-with-item' },
    });
    expect(res.status).toBe(202);
    expect(res.body.data.requests[1]!.id).toBe((single.body.data as Acc).id);
    const reused = await f.api.call<{ requests: Acc[] }>('POST', '/requests/batch', {
      json: { requests: [item(8, { idempotency_key: 'item-7' })] },
      headers: { 'idempotency-key': 'batch-conflict' },
    });
    expect(reused.status).toBe(409);
    const back = await f.api.create(item(6, { metadata: { changed: 'yes' } }), { 'idempotency-key': 'item-7' });
    expect(back.status).toBe(409);
  });

  it('keeps a batch\'s own key apart from its items\' keys: the header names the call, an item key its request', async () => {
    const project = await f.newProject();
    const json = { requests: [item(1, { idempotency_key: 'same' }), item(2)] };
    const first = await project.api.call<{ requests: Acc[] }>('POST', '/requests/batch', { json, headers: { 'idempotency-key': 'same' } });
    expect(first.status).toBe(202);
    const again = await project.api.call<{ requests: Acc[] }>('POST', '/requests/batch', { json, headers: { 'idempotency-key': 'same' } });
    expect(again.body.data.requests.map((r) => r.id)).toEqual(first.body.data.requests.map((r) => r.id));
    // The item's key is a request's key, shared with single creation.
    const single = await project.api.create(item(1), { 'idempotency-key': 'same' });
    expect([single.status, (single.body.data as Acc).id]).toEqual([202, first.body.data.requests[0]!.id]);
    // A batch's key is not: another batch with it is the same batch, a request with another key in it is new.
    const other = await project.api.call<{ requests: Acc[] }>('POST', '/requests/batch', {
      json: { requests: [item(3, { idempotency_key: 'batch-a2' })] },
      headers: { 'idempotency-key': 'batch-a1' },
    });
    expect(other.status).toBe(202);
    const keyedLikeTheBatch = await project.api.create(item(4), { 'idempotency-key': 'batch-a1' });
    expect(keyedLikeTheBatch.status).toBe(202);
    expect((await project.api.call<{ items: unknown[] }>('GET', '/requests')).body.data.items).toHaveLength(4);
  });

  it('answers 413 for a batch body over 32 MiB', async () => {
    const res = await f.api.call('POST', '/requests/batch', {
      body: JSON.stringify({ requests: [{ url: DEST, body: 'x'.repeat(33 * 1024 * 1024) }] }),
      headers: { 'idempotency-key': 'huge', 'content-type': 'application/json' },
    });
    expect(res.status).toBe(413);
  });
});

describe('monthly allowance', () => {
  const f = useFerry({ monthlyAllowance: 10 });

  it('never overspends under concurrent calls and answers 429 past the allowance', async () => {
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => f.api.send({ url: `${DEST}?i=${i}` })));
    expect(results.filter((r) => r.status === 202)).toHaveLength(10);
    const refused = results.filter((r) => r.status === 429);
    expect(refused).toHaveLength(20);
    expect(refused[0]!.body.error?.code).toBe('MONTHLY_ALLOWANCE_EXCEEDED');
  });

  it('tells a refused call to retry when the next UTC month begins', async () => {
    const p = await f.newProject({ monthlyAllowance: 1 });
    expect((await p.api.send({ url: DEST })).status).toBe(202);
    const before = Date.now();
    const refused = await p.api.send({ url: DEST });
    const after = Date.now();
    expect(refused.status).toBe(429);
    const d = new Date(before);
    const nextMonth = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
    // The server read its clock between the two readings here.
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(Math.ceil((nextMonth - after) / 1000));
    expect(retryAfter).toBeLessThanOrEqual(Math.ceil((nextMonth - before) / 1000));
  });

  it('is all-or-nothing for batches and applies to create and replay', async () => {
    const p = await f.newProject({ monthlyAllowance: 3 });
    const batch = await p.api.call('POST', '/requests/batch', {
      json: { requests: [{ url: DEST }, { url: DEST }, { url: DEST }, { url: DEST }] },
      headers: { 'idempotency-key': 'b4' },
    });
    expect(batch.status).toBe(429);
    expect((await p.api.call<{ items: unknown[] }>('GET', '/requests')).body.data.items).toHaveLength(0);
    const ok = await p.api.call<{ requests: Acc[] }>('POST', '/requests/batch', {
      json: { requests: [{ url: DEST }, { url: DEST }, { url: DEST }] },
      headers: { 'idempotency-key': 'b3' },
    });
    expect(ok.status).toBe(202);
    expect((await p.api.create({ url: DEST })).status).toBe(429);
    const id = ok.body.data.requests[0]!.id;
    await p.api.call('POST', `/requests/${id}/cancel`);
    expect((await p.api.call('POST', `/requests/${id}/replay`)).status).toBe(429);
    // A retried batch is not new work: it still gets its stored answer.
    const retried = await p.api.call('POST', '/requests/batch', {
      json: { requests: [{ url: DEST }, { url: DEST }, { url: DEST }] },
      headers: { 'idempotency-key': 'b3' },
    });
    expect(retried.status).toBe(202);
  });
});
