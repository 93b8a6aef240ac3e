import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRequestId } from '../../src/domain/ids.js';
import type { StoredRequest } from '../../src/domain/request.js';
import type { Backend } from '../../src/ports/backend.js';
import { openTestBackend } from '../support/deployment.js';
import { DEST, useFerry } from '../support/fixture.js';

type Acc = { id: string; status: string; replayed_from_request_id: string | null };

describe('cancel, replay and retention', () => {
  const f = useFerry();
  let store: Backend;
  beforeAll(async () => {
    store = await openTestBackend(f.ferry.dataDir);
  });
  afterAll(async () => {
    await store.close();
  });

  /** A copy of request `id`, under an ID of its own, stored as the delivery engine would have ended it. */
  async function finished(id: string, status: 'succeeded' | 'failed'): Promise<string> {
    const r = (await store.requests.get(f.projectId, id))!;
    const now = Date.now();
    const ended = { ...r, id: newRequestId(now), status, completedAt: now, startedAt: now, updatedAt: now, dueAt: null, version: 2 };
    await store.requests.insertMany([ended]);
    return ended.id;
  }

  async function accept(query: Record<string, string> = {}): Promise<Acc> {
    const res = await f.api.send({ url: DEST, ...query }, 'payload', { 'x-forward-x-a': '1', 'content-type': 'text/plain' });
    expect(res.status).toBe(202);
    return res.body.data as Acc;
  }

  it('cancels a queued or scheduled request: 202 cancellation_requested, then 200 cancelled', async () => {
    for (const q of [{}, { delay: '1d' }] as Array<Record<string, string>>) {
      const a = await accept(q);
      const first = await f.api.call('POST', `/requests/${a.id}/cancel`);
      expect(first.status).toBe(202);
      expect(first.body.data).toEqual({ id: a.id, status: 'cancellation_requested' });
      const detail = await f.api.call<Record<string, unknown>>('GET', `/requests/${a.id}`);
      expect(detail.body.data.status).toBe('cancelled');
      expect(detail.body.data.cancelled_at).toEqual(expect.any(String));
      const second = await f.api.call('POST', `/requests/${a.id}/cancel`);
      expect(second.status).toBe(200);
      expect(second.body.data).toEqual({ id: a.id, status: 'cancelled' });
    }
  });

  it('refuses to cancel a succeeded or failed request with 409', async () => {
    for (const status of ['succeeded', 'failed'] as const) {
      const id = await finished((await accept()).id, status);
      const res = await f.api.call('POST', `/requests/${id}/cancel`);
      expect(res.status).toBe(409);
      expect(res.body.error?.code).toBe('REQUEST_COMPLETED');
      expect(((await f.api.call<Record<string, unknown>>('GET', `/requests/${id}`)).body.data).status).toBe(status);
    }
  });

  it('replays completed and cancelled requests as new queued requests and refuses active ones', async () => {
    const active = await accept({ delay: '1h' });
    const refused = await f.api.call('POST', `/requests/${active.id}/replay`);
    expect(refused.status).toBe(409);
    expect(refused.body.error?.code).toBe('REQUEST_ACTIVE');

    const done = await finished((await accept({ retry: '4', timeout: '7s', queue: 'q1', method: 'DELETE', delay: '5m' })).id, 'failed');
    const res = await f.api.call('POST', `/requests/${done}/replay`);
    expect(res.status).toBe(202);
    const replay = res.body.data as Acc;
    expect(replay.id).not.toBe(done);
    expect(replay).toMatchObject({ status: 'queued', replayed_from_request_id: done, scheduled_at: null });
    const copy = (await store.requests.get(f.projectId, replay.id))!;
    const orig = (await store.requests.get(f.projectId, done))!;
    expect(copy).toMatchObject({
      url: orig.url,
      method: 'DELETE',
      headers: orig.headers,
      contentType: 'text/plain',
      maxAttempts: 5,
      timeoutSeconds: 7,
      queue: 'q1',
      metadata: orig.metadata,
      source: 'replay',
      scheduleId: null,
      attemptCount: 0,
      status: 'queued',
    });
    expect(Buffer.from(copy.body!).toString()).toBe('payload');
    expect(orig.status).toBe('failed');
  });

  it('makes replay idempotent with a key', async () => {
    const a = await accept();
    await f.api.call('POST', `/requests/${a.id}/cancel`);
    const h = { 'idempotency-key': `replay-${a.id}` };
    const r1 = await f.api.call('POST', `/requests/${a.id}/replay`, { headers: h });
    const r2 = await f.api.call('POST', `/requests/${a.id}/replay`, { headers: h });
    expect((r2.body.data as Acc).id).toBe((r1.body.data as Acc).id);
  });

  it('hides terminal requests past retention but keeps old active ones visible', async () => {
    const p = await f.newProject({ retentionDays: 1 });
    const old = Date.now() - 3 * 86_400_000;
    const base = (await store.requests.get(f.projectId, (await accept()).id))!;
    const make = (status: StoredRequest['status']): StoredRequest => ({
      ...base,
      id: newRequestId(old),
      projectId: p.projectId,
      status,
      createdAt: old,
      updatedAt: old,
      completedAt: status === 'succeeded' ? old : null,
      version: 1,
    });
    const oldDone = make('succeeded');
    const oldActive = make('queued');
    await store.requests.insertMany([oldDone, oldActive]);
    const list = await p.api.call<{ items: Array<{ id: string }>; has_hidden_history: boolean }>('GET', '/requests');
    expect(list.body.data.items.map((i) => i.id)).toEqual([oldActive.id]);
    expect(list.body.data.has_hidden_history).toBe(true);
    expect((await p.api.call('GET', `/requests/${oldDone.id}`)).status).toBe(404);
    expect((await p.api.call('GET', `/requests/${oldActive.id}`)).status).toBe(200);
    expect((await p.api.call('POST', `/requests/${oldDone.id}/replay`)).status).toBe(404);
  });
});
