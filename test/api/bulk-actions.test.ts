import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, eventually } from '../support/api-client.js';
import { replies, startDestination, type Destination } from '../support/destination.js';
import { useFerry } from '../support/fixture.js';
import { createProject, newDataDir, startFerry, type FerryProcess } from '../support/ferry-process.js';

/**
 * Bulk cancel and replay: the refusals on the shared server (API only), then actions run by a delivering process of
 * the file's own, with a destination that answers 400 so that requests fail after one attempt. Batches are small
 * and paused (FERRY_BULK_BATCH_SIZE, FERRY_BULK_PAUSE_MS) so an action is still running when the cases look at it.
 */

interface BulkAction {
  id: string;
  action: string;
  state: string;
  matched: number;
  done: number;
  skipped: Record<string, number>;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

let keys = 0;
const key = (): Record<string, string> => ({ 'idempotency-key': `bulk-${process.pid}-${Date.now()}-${keys++}` });

async function createBulk(api: Api, json: unknown, headers: Record<string, string> = key()) {
  return api.call<BulkAction>('POST', '/bulk-actions', { json, headers });
}

async function finished(api: Api, id: string, deadlineMs = 30_000): Promise<BulkAction> {
  return eventually(async () => {
    const res = await api.call<BulkAction>('GET', `/bulk-actions/${id}`);
    return res.body.data.state === 'running' ? undefined : res.body.data;
  }, deadlineMs);
}

/** Accepts `n` requests in batches of 100; answers their IDs. */
async function accept(api: Api, n: number, item: Record<string, unknown>): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i += 100) {
    const requests = Array.from({ length: Math.min(100, n - i) }, () => item);
    const res = await api.call<{ requests: Array<{ id: string }> }>('POST', '/requests/batch', { json: { requests }, headers: key() });
    expect(res.status, JSON.stringify(res.body.error)).toBe(202);
    ids.push(...res.body.data.requests.map((r) => r.id));
  }
  return ids;
}

async function waitForStatus(api: Api, ids: readonly string[], status: string): Promise<void> {
  for (const id of ids) {
    await eventually(async () => ((await api.call<{ status: string }>('GET', `/requests/${id}`)).body.data.status === status ? true : undefined), 30_000);
  }
}

/** Every replay of the project whose original is in `originals`, by original. */
async function replaysOf(api: Api, extra = ''): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  let cursor: string | null = null;
  do {
    const page: { status: number; body: { data: { items: Array<{ replayed_from_request_id: string }>; next_cursor: string | null } } } = await api.call(
      'GET',
      `/requests?source=replay&limit=100${extra}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    for (const r of page.body.data.items) counts.set(r.replayed_from_request_id, (counts.get(r.replayed_from_request_id) ?? 0) + 1);
    cursor = page.body.data.next_cursor;
  } while (cursor !== null);
  return counts;
}

describe('bulk actions: refusals', () => {
  const f = useFerry();

  it.each([
    ['ids and filter together', { action: 'cancel', ids: ['req_x'], filter: { status: 'failed' } }, 'filter'],
    ['an unknown filter field', { action: 'cancel', filter: { colour: 'red' } }, 'filter.colour'],
    ['more than 1,000 IDs', { action: 'replay', ids: Array.from({ length: 1001 }, (_, i) => `req_${i}`) }, 'ids'],
    ['an empty filter', { action: 'replay', filter: {} }, 'filter'],
    ['an unknown action', { action: 'delete', filter: { status: 'failed' } }, 'action'],
    ['no action', { filter: { status: 'failed' } }, 'action'],
    ['a filter value of the wrong format', { action: 'replay', filter: { from: 'yesterday' } }, 'filter.from'],
    ['a status code that is not an integer', { action: 'replay', filter: { response_status_code: '5xx' } }, 'filter.response_status_code'],
    ['a status code out of range', { action: 'replay', filter: { response_status_code: 42 } }, 'filter.response_status_code'],
  ])('refuses %s with 422 naming the field', async (_what, json, field) => {
    const res = await createBulk(f.api, json);
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.error?.field).toBe(field);
  });

  it('needs an Idempotency-Key unless it is a dry run', async () => {
    const res = await createBulk(f.api, { action: 'cancel', filter: { status: 'queued' } }, {});
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'MISSING_FIELD', field: 'Idempotency-Key' });
    const dry = await createBulk(f.api, { action: 'cancel', filter: { status: 'queued' }, dry_run: true }, {});
    expect(dry.status).toBe(200);
    expect(dry.body.data).toEqual({ matched: 0 });
  });

  it('answers 404 for a bulk action of another project', async () => {
    const other = await f.newProject();
    const res = await other.api.call('GET', '/bulk-actions/bulk_01ARZ3NDEKTSV4RRFFQ69G5FAV');
    expect(res.status).toBe(404);
  });
});

describe('bulk actions, run', () => {
  let dest: Destination;
  let ferry: FerryProcess;
  let dataDir: string;
  const env = () => ({
    FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true',
    FERRY_DELIVERY_CA_FILE: dest.certFile,
    FERRY_BULK_BATCH_SIZE: '5',
    FERRY_BULK_PAUSE_MS: '300',
  });

  beforeAll(async () => {
    dest = await startDestination();
    dest.on('/fail', replies.status(400, {}, 'no'));
    dataDir = newDataDir();
    ferry = await startFerry({ dataDir, env: env() });
  });
  afterAll(async () => {
    await ferry?.stop();
    await dest?.close();
  });

  it('a dry run counts what a real run then replays; later requests are left alone', async () => {
    const { api: p } = await projectOn(ferry, dataDir);
    const failed = await accept(p, 23, { url: `${dest.url}/fail`, queue: 'dry' });
    await waitForStatus(p, failed, 'failed');
    const filter = { status: 'failed', queue: 'dry' };
    const dry = await createBulk(p, { action: 'replay', filter, dry_run: true });
    expect(dry.status).toBe(200);
    expect(dry.body.data).toEqual({ matched: 23 });
    const started = await createBulk(p, { action: 'replay', filter });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect(started.body.data).toMatchObject({ action: 'replay', state: 'running', matched: 23, done: 0, completed_at: null });
    expect(started.body.data.id).toMatch(/^bulk_/);
    // Failed after the action was created: not matched, never replayed.
    const later = await accept(p, 3, { url: `${dest.url}/fail`, queue: 'dry' });
    const done = await finished(p, started.body.data.id);
    expect(done).toMatchObject({ state: 'completed', matched: 23, done: 23 });
    expect(done.completed_at).not.toBeNull();
    const replays = await replaysOf(p, '&queue=dry');
    expect([...replays.keys()].sort()).toEqual([...failed].sort());
    expect([...replays.values()].every((n) => n === 1)).toBe(true);
    expect(later.some((id) => replays.has(id))).toBe(false);
  });

  it('counts what it skips, by reason', async () => {
    const { api: p } = await projectOn(ferry, dataDir);
    const [failed] = await accept(p, 1, { url: `${dest.url}/fail` });
    const [waiting] = await accept(p, 1, { url: `${dest.url}/fail`, delay: '1h' });
    const [cancelled] = await accept(p, 1, { url: `${dest.url}/fail`, delay: '1h' });
    await waitForStatus(p, [failed!], 'failed');
    expect((await p.call('POST', `/requests/${cancelled}/cancel`)).status).toBe(202);
    const missing = 'req_01ARZ3NDEKTSV4RRFFQ69G5FAV';
    const ids = [failed, waiting, cancelled, missing];

    const replay = await finished(p, (await createBulk(p, { action: 'replay', ids })).body.data.id);
    expect(replay).toMatchObject({ matched: 4, done: 2, skipped: { not_found: 1, active: 1, ended: 0, already_cancelled: 0 } });

    const cancel = await finished(p, (await createBulk(p, { action: 'cancel', ids })).body.data.id);
    expect(cancel).toMatchObject({ matched: 4, done: 1, skipped: { not_found: 1, ended: 1, already_cancelled: 1, active: 0 } });
    expect((await p.call<{ status: string }>('GET', `/requests/${waiting}`)).body.data.status).toBe('cancelled');
  });

  it('the same key answers the same action; a fourth running action is refused with 429; a cancelled one stops', async () => {
    const { api: p } = await projectOn(ferry, dataDir);
    const waiting = await accept(p, 60, { url: `${dest.url}/fail`, delay: '1h', queue: 'slow' });
    const k = key();
    const first = await createBulk(p, { action: 'cancel', ids: waiting.slice(0, 20) }, k);
    const again = await createBulk(p, { action: 'cancel', ids: waiting.slice(0, 20) }, k);
    expect(again.status).toBe(202);
    expect(again.body.data.id).toBe(first.body.data.id);
    const reused = await createBulk(p, { action: 'cancel', ids: waiting.slice(0, 21) }, k);
    expect(reused.status).toBe(409);

    const second = await createBulk(p, { action: 'cancel', ids: waiting.slice(20, 40) });
    const third = await createBulk(p, { action: 'cancel', ids: waiting.slice(40, 60) });
    expect([second.status, third.status]).toEqual([202, 202]);
    const fourth = await createBulk(p, { action: 'cancel', filter: { queue: 'slow' } });
    expect(fourth.status).toBe(429);
    expect(fourth.body.error?.code).toBe('BULK_ACTIONS_LIMIT');

    const stopped = await p.call<BulkAction>('POST', `/bulk-actions/${third.body.data.id}/cancel`);
    expect(stopped.status).toBe(200);
    expect(stopped.body.data.state).toBe('cancelled');
    const after = await finished(p, third.body.data.id);
    await finished(p, first.body.data.id);
    const final = (await p.call<BulkAction>('GET', `/bulk-actions/${third.body.data.id}`)).body.data;
    expect(final).toEqual(after);
    expect(final.done).toBeLessThan(20);

    const listed = await p.call<{ items: BulkAction[]; next_cursor: string | null }>('GET', '/bulk-actions?limit=2');
    expect(listed.body.data.items.map((a) => a.id)).toEqual([third.body.data.id, second.body.data.id]);
    const rest = await p.call<{ items: BulkAction[] }>('GET', `/bulk-actions?limit=2&cursor=${listed.body.data.next_cursor}`);
    expect(rest.body.data.items.map((a) => a.id)).toEqual([first.body.data.id]);
  });

  it('resumes after kill -9 where it was, replaying each request exactly once', async () => {
    const { api: p, apiKey: k } = await projectOn(ferry, dataDir);
    const failed = await accept(p, 60, { url: `${dest.url}/fail`, queue: 'crash' });
    await waitForStatus(p, failed, 'failed');
    const started = await createBulk(p, { action: 'replay', filter: { queue: 'crash', status: 'failed' } });
    const id = started.body.data.id;
    await eventually(async () => ((await p.call<BulkAction>('GET', `/bulk-actions/${id}`)).body.data.done >= 15 ? true : undefined), 20_000);
    await ferry.kill();
    ferry = await startFerry({ dataDir, env: env() });
    const again = new Api(ferry.baseUrl, k);
    const done = await finished(again, id, 60_000);
    expect(done).toMatchObject({ state: 'completed', matched: 60, done: 60 });
    const replays = await replaysOf(again, '&queue=crash');
    expect(replays.size).toBe(60);
    expect([...replays.values()].every((n) => n === 1)).toBe(true);
  });
});

async function projectOn(ferry: FerryProcess, dataDir: string): Promise<{ api: Api; apiKey: string }> {
  const { apiKey } = await createProject(dataDir);
  return { api: new Api(ferry.baseUrl, apiKey), apiKey };
}

