import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeSigningSecret, verifySignature } from '../../src/domain/delivery/signature.js';
import { Api, eventually } from '../support/api-client.js';
import { replies, startDestination, type Destination, type ReceivedRequest } from '../support/destination.js';
import { useFerry } from '../support/fixture.js';
import { createProject, newDataDir, startFerry } from '../support/ferry-process.js';
import { sharedSelfSignedCertificate } from '../support/certs.js';
import { interval, scheduleProject, secondsAhead } from '../support/schedule-client.js';

interface Detail {
  id: string;
  status: string;
  source?: string;
  created_at: string;
  completed_at: string | null;
  schedule_id?: string;
  replayed_from_request_id?: string;
  callbacks: { on_success: string | null; on_failure: string | null } | null;
  callback_for_request_id?: string;
  callback_request_ids: string[];
  max_attempts: number;
  attempts: Array<{ response_status_code: number | null; final_reason: string | null }>;
}

interface Report {
  request_id: string;
  status: string;
  attempt_count: number;
  created_at: string;
  completed_at: string;
  schedule_id: string | null;
  metadata: Record<string, string>;
  last_response: null | { status_code: number; headers: Record<string, string>; body: string | null; body_encoding: string | null; body_truncated: boolean };
}

// Callbacks are requests Ferry creates when a request ends: these tests deliver for real, to a real HTTPS
// destination, and read what the callback's destination received.
describe('callbacks', () => {
  let dest: Destination;
  const certificate = sharedSelfSignedCertificate();
  const f = useFerry({
    env: {
      FERRY_ROLES: 'api,delivery',
      FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true',
      FERRY_DELIVERY_CA_FILE: certificate.certFile,
      FERRY_RETRY_BASE_MS: '20',
    },
  });
  let api: Api;
  let signingSecret: string;
  let n = 0;
  const path = () => `/cb${++n}`;

  beforeAll(async () => {
    dest = await startDestination({ certificate });
    const p = await createProject(f.ferry.dataDir);
    api = new Api(f.ferry.baseUrl, p.apiKey);
    signingSecret = p.signingSecret;
  });
  afterAll(async () => {
    await dest?.close();
  });

  async function detail(id: string, a: Api = api): Promise<Detail> {
    return (await a.call<Detail>('GET', `/requests/${id}`)).body.data;
  }

  async function ended(id: string, status: string, a: Api = api): Promise<Detail> {
    return eventually(async () => {
      const d = await detail(id, a);
      return d.status === status ? d : undefined;
    }, 15_000);
  }

  async function create(input: Record<string, unknown>, a: Api = api): Promise<string> {
    const res = await a.call<{ id: string }>('POST', '/requests', { json: input });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return res.body.data.id;
  }

  /** The one report received at `p`, parsed, after the original's detail names its callback. */
  async function reportAt(p: string, original: string): Promise<{ report: Report; received: ReceivedRequest; callback: Detail }> {
    const [received] = await dest.waitForRequests(p, 1, 15_000);
    const d = await eventually(async () => {
      const x = await detail(original);
      return x.callback_request_ids.length > 0 ? x : undefined;
    });
    expect(d.callback_request_ids).toHaveLength(1);
    const callback = await ended(d.callback_request_ids[0]!, 'succeeded');
    return { report: JSON.parse(received!.body.toString('utf8')) as Report, received: received!, callback };
  }

  it('reports a success to on_success: a signed JSON POST of its own, listed as source=callback, linked both ways', async () => {
    const target = path();
    const ok = path();
    const bad = path();
    dest.on(target, replies.status(201, { 'Content-Type': 'text/plain', 'X-Request-Id': 'r-1' }, 'created'));
    const id = await create({ url: `${dest.url}${target}`, metadata: { order: '42' }, callbacks: { on_success: `${dest.url}${ok}`, on_failure: `${dest.url}${bad}` } });
    const original = await ended(id, 'succeeded');
    expect(original.callbacks).toEqual({ on_success: `${dest.url}${ok}`, on_failure: `${dest.url}${bad}` });
    const { report, received, callback } = await reportAt(ok, id);
    expect(received.method).toBe('POST');
    expect(received.headers['content-type']).toBe('application/json');
    expect(received.headers['service-request-id']).toBe(callback.id);
    const signed = verifySignature(
      received.headers['service-signature']!,
      decodeSigningSecret(signingSecret)!,
      callback.id,
      Number(received.headers['service-timestamp']),
      received.body,
      Math.floor(Date.now() / 1000),
    );
    expect(signed).toBe(true);
    expect(report).toEqual({
      request_id: id,
      status: 'succeeded',
      attempt_count: 1,
      created_at: original.created_at,
      completed_at: (await detail(id)).completed_at,
      schedule_id: null,
      metadata: { order: '42' },
      last_response: { status_code: 201, headers: { 'content-type': 'text/plain', 'x-request-id': 'r-1' }, body: 'created', body_encoding: 'utf8', body_truncated: false },
    });
    expect(callback.callback_for_request_id).toBe(id);
    expect(callback.callbacks).toBeNull();
    expect(callback.callback_request_ids).toEqual([]);
    expect(callback.max_attempts).toBe(3);
    expect(dest.requestsTo(bad)).toEqual([]);
    const listed = await api.call<{ items: Array<{ id: string }> }>('GET', '/requests?source=callback');
    expect(listed.body.data.items.map((i) => i.id)).toEqual([callback.id]);
  });

  it('reports a failure to on_failure with the last response, and a failed callback reports nothing further', async () => {
    const target = path();
    const failing = path();
    dest.on(target, replies.status(500, { 'Service-No-Retry': 'true' }, 'down'));
    dest.on(failing, replies.status(503));
    const id = await create({ url: `${dest.url}${target}`, retry: { max_attempts: 5 }, callbacks: { on_failure: `${dest.url}${failing}` } });
    await ended(id, 'failed');
    await dest.waitForRequests(failing, 3, 15_000);
    const d = await eventually(async () => {
      const x = await detail(id);
      return x.callback_request_ids.length === 1 ? x : undefined;
    });
    const callback = await ended(d.callback_request_ids[0]!, 'failed');
    expect(callback.attempts).toHaveLength(3);
    expect(callback.callback_request_ids).toEqual([]);
    const report = JSON.parse(dest.requestsTo(failing)[0]!.body.toString('utf8')) as Report;
    expect(report.status).toBe('failed');
    expect(report.attempt_count).toBe(1);
    expect(report.last_response?.status_code).toBe(500);
    expect(report.last_response?.body).toBe('down');
    // The failed callback made no callback of its own: the only callback of this project's is the one above.
    const listed = await api.call<{ items: Array<{ id: string }> }>('GET', '/requests?source=callback');
    expect(listed.body.data.items.filter((i) => i.id !== callback.id && i.id === d.callback_request_ids[0])).toEqual([]);
    expect(dest.requestsTo(failing)).toHaveLength(3);
  });

  it('reports nothing for a cancelled request, and a failure without a response reports last_response null', async () => {
    const { api: own } = await f.newProject();
    const slow = path();
    const cb = path();
    dest.on(slow, replies.delayedHeaders(60_000));
    const cancelled = await create({ url: `${dest.url}${slow}`, delay: '1h', callbacks: { on_failure: `${dest.url}${cb}`, on_success: `${dest.url}${cb}` } }, own);
    expect((await own.call('POST', `/requests/${cancelled}/cancel`)).status).toBe(202);
    // An unreachable destination: no response at all.
    const unreachable = await create({ url: 'https://127.0.0.1:1/x', retry: { max_attempts: 1 }, callbacks: { on_failure: `${dest.url}${cb}` } }, own);
    await ended(unreachable, 'failed', own);
    const [received] = await dest.waitForRequests(cb, 1, 15_000);
    const report = JSON.parse(received!.body.toString('utf8')) as Report;
    expect(report.request_id).toBe(unreachable);
    expect(report.last_response).toBeNull();
    expect((await detail(cancelled, own)).callback_request_ids).toEqual([]);
    const listed = await own.call<{ items: Array<{ id: string }> }>('GET', '/requests?source=callback');
    expect(listed.body.data.items).toHaveLength(1);
  });

  it('takes callbacks from /send headers and batch items, and a replay copies them; a callback replayed is a callback again', async () => {
    const { api: own } = await f.newProject();
    const ok = path();
    const target = path();
    const sent = await own.send({ url: `${dest.url}${target}` }, 'x', { 'Callback-On-Success': `${dest.url}${ok}` });
    expect(sent.status, JSON.stringify(sent.body)).toBe(202);
    const sentId = (sent.body.data as { id: string }).id;
    const batch = await own.call<{ requests: Array<{ id: string }> } | Array<{ id: string }>>('POST', '/requests/batch', {
      json: { requests: [{ url: `${dest.url}${target}`, callbacks: { on_success: `${dest.url}${ok}` } }] },
      headers: { 'Idempotency-Key': `b-${Date.now()}` },
    });
    expect(batch.status, JSON.stringify(batch.body)).toBe(202);
    const items = Array.isArray(batch.body.data) ? batch.body.data : batch.body.data.requests;
    const batchId = items[0]!.id;
    for (const id of [sentId, batchId]) await ended(id, 'succeeded', own);
    await dest.waitForRequests(ok, 2, 15_000);
    const replay = await own.call<{ id: string }>('POST', `/requests/${sentId}/replay`);
    expect(replay.status).toBe(202);
    const replayed = await ended(replay.body.data.id, 'succeeded', own);
    expect(replayed.callbacks).toEqual({ on_success: `${dest.url}${ok}`, on_failure: null });
    await dest.waitForRequests(ok, 3, 15_000);
    const reports = dest.requestsTo(ok).map((r) => (JSON.parse(r.body.toString('utf8')) as Report).request_id);
    expect(reports.sort()).toEqual([sentId, batchId, replayed.id].sort());

    const callbackId = (await detail(sentId, own)).callback_request_ids[0]!;
    await ended(callbackId, 'succeeded', own);
    const again = await own.call<{ id: string }>('POST', `/requests/${callbackId}/replay`);
    expect(again.status).toBe(202);
    const second = await ended(again.body.data.id, 'succeeded', own);
    expect(second.callback_for_request_id).toBe(sentId);
    expect(second.replayed_from_request_id).toBe(callbackId);
    expect(second.callback_request_ids).toEqual([]);
    const listed = await own.call<{ items: Array<{ id: string }> }>('GET', '/requests?source=callback');
    expect(listed.body.data.items).toHaveLength(4);
  });

  it('a schedule\'s request carries its callbacks to every occurrence', async () => {
    const { api: own, schedules } = await scheduleProject(f);
    const target = path();
    const ok = path();
    const s = await schedules.created({
      name: 'with callbacks',
      timing: interval(60, secondsAhead(2000)),
      request: { url: `${dest.url}${target}`, body: { tick: true }, callbacks: { on_success: `${dest.url}${ok}` } },
    });
    expect((await schedules.detail(s.id)).request).toMatchObject({ callbacks: { on_success: `${dest.url}${ok}`, on_failure: null } });
    const [received] = await dest.waitForRequests(ok, 1, 20_000);
    const report = JSON.parse(received!.body.toString('utf8')) as Report;
    expect(report.schedule_id).toBe(s.id);
    expect((await detail(report.request_id, own)).callbacks).toEqual({ on_success: `${dest.url}${ok}`, on_failure: null });
  });
});

// A kill -9 while requests are ending: every ending and its callback land in one write, so whatever the moment, each
// request that ended has exactly one callback, and each callback is delivered.
describe('callbacks across kill -9', () => {
  const certificate = sharedSelfSignedCertificate();
  let dest: Destination;
  beforeAll(async () => {
    dest = await startDestination({ certificate });
  });
  afterAll(async () => {
    await dest?.close();
  });
  const env = { FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true', FERRY_DELIVERY_CA_FILE: certificate.certFile, FERRY_RETRY_BASE_MS: '20' };

  it('leaves exactly one callback per ended request, each delivered once it is recorded', async () => {
    dest.on('/ending', replies.delayedHeaders(10, 200));
    const dataDir = newDataDir();
    const first = await startFerry({ dataDir, env });
    const { apiKey } = await createProject(dataDir);
    const api = new Api(first.baseUrl, apiKey);
    const accepted: string[] = [];
    let stop = false;
    const senders = Array.from({ length: 6 }, async () => {
      while (!stop) {
        try {
          const res = await api.send({ url: `${dest.url}/ending` }, 'x', { 'Callback-On-Success': `${dest.url}/report` });
          if (res.status === 202) accepted.push((res.body.data as { id: string }).id);
        } catch {
          return;
        }
      }
    });
    await eventually(async () => (dest.requestsTo('/report').length >= 30 && accepted.length >= 100 ? true : undefined), 30_000);
    await first.kill();
    stop = true;
    await Promise.all(senders);

    const second = await startFerry({ dataDir, env });
    try {
      const again = new Api(second.baseUrl, apiKey);
      const all = async (source: string): Promise<string[]> => {
        const ids: string[] = [];
        let cursor: string | undefined;
        do {
          const query = `/requests?source=${source}&limit=100${cursor !== undefined ? `&cursor=${cursor}` : ''}`;
          const page = await again.call<{ items: Array<{ id: string }>; next_cursor: string | null }>('GET', query);
          ids.push(...page.body.data.items.map((i) => i.id));
          cursor = page.body.data.next_cursor ?? undefined;
        } while (cursor !== undefined);
        return ids;
      };
      // Every request stored, those whose acceptance the kill cut off included.
      const originals = await all('api');
      expect(accepted.filter((id) => !originals.includes(id))).toEqual([]);
      const callbackOf = new Map<string, string>();
      for (const id of originals) {
        const d = await eventually(async () => {
          const x = (await again.call<Detail>('GET', `/requests/${id}`)).body.data;
          return x.status === 'succeeded' ? x : undefined;
        }, 30_000);
        expect(d.callback_request_ids).toHaveLength(1);
        callbackOf.set(id, d.callback_request_ids[0]!);
      }
      expect((await all('callback')).sort()).toEqual([...callbackOf.values()].sort());
      for (const callback of callbackOf.values()) {
        await eventually(async () => ((await again.call<Detail>('GET', `/requests/${callback}`)).body.data.status === 'succeeded' ? true : undefined), 30_000);
      }
      // Each report names its request; one reported twice was delivered again after the kill, as any request may be.
      const reported = new Set(dest.requestsTo('/report').map((r) => (JSON.parse(r.body.toString('utf8')) as Report).request_id));
      expect(originals.filter((id) => !reported.has(id))).toEqual([]);
    } finally {
      await second.stop();
    }
  });
});
