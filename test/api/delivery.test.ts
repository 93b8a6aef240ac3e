import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeSigningSecret, verifySignature } from '../../src/domain/delivery/signature.js';
import { Api, eventually } from '../support/api-client.js';
import { replies, startDestination, type Destination, type Handler } from '../support/destination.js';
import { createProject, startFerry, type FerryProcess } from '../support/ferry-process.js';

interface Attempt {
  attempt_number: number;
  status: string;
  started_at: string;
  response_status_code: number | null;
  error_message: string | null;
  retry: null | Record<string, unknown>;
  final_reason: string | null;
  response: null | { headers: Record<string, string>; body: string | null; body_encoding: string | null; body_truncated: boolean };
}
interface Detail {
  status: string;
  started_at: string | null;
  completed_at: string | null;
  cancelled_at: string | null;
  attempts: Attempt[];
}

// Attempts run on the main thread (the default) and on a delivery thread: both must keep every promise here.
describe.each(['0', '1'])('delivery (FERRY_DELIVERY_THREADS=%s)', (threads) => {
  let dest: Destination;
  let ferry: FerryProcess;
  let api: Api;
  /** A project that keeps no response bodies. */
  let quiet: Api;
  let signingSecret: string;
  let n = 0;
  const path = () => `/t${++n}`;

  beforeAll(async () => {
    dest = await startDestination();
    ferry = await startFerry({
      env: {
        FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true',
        FERRY_DELIVERY_CA_FILE: dest.certFile,
        FERRY_RETRY_BASE_MS: '40',
        FERRY_AUTH_CACHE_MS: '0',
        FERRY_DELIVERY_THREADS: threads,
      },
    });
    const project = await createProject(ferry.dataDir);
    api = new Api(ferry.baseUrl, project.apiKey);
    signingSecret = project.signingSecret;
    quiet = new Api(ferry.baseUrl, (await createProject(ferry.dataDir, { captureResponseBodies: false })).apiKey);
  });
  afterAll(async () => {
    await ferry?.stop();
    await dest?.close();
  });

  async function detail(id: string): Promise<Detail> {
    return (await api.call<Detail>('GET', `/requests/${id}`)).body.data;
  }

  async function settled(id: string, status: string, deadlineMs = 10_000): Promise<Detail> {
    return eventually(async () => {
      const d = await detail(id);
      return d.status === status ? d : undefined;
    }, deadlineMs);
  }

  async function send(p: string, query: Record<string, string> = {}, body: string | Uint8Array = 'x', headers: Record<string, string> = {}) {
    const res = await api.send({ url: `${dest.url}${p}`, ...query }, body, headers);
    expect(res.status).toBe(202);
    return (res.body.data as { id: string }).id;
  }

  it('delivers the exact method, body bytes, content type and headers, signed, without the API key', async () => {
    const p = path();
    const body = Buffer.from([0, 255, 1, 254, 10, 13, 0x7b]);
    const id = await send(p, { method: 'PUT' }, body, {
      'content-type': 'application/x-custom; v=1',
      'x-forward-x-tenant': 'acme',
      'x-forward-authorization': 'Bearer downstream',
    });
    const [got] = await dest.waitForRequests(p, 1);
    expect(got!.method).toBe('PUT');
    expect(got!.body.equals(body)).toBe(true);
    expect(got!.headers['content-type']).toBe('application/x-custom; v=1');
    expect(got!.headers['x-tenant']).toBe('acme');
    expect(got!.headers.authorization).toBe('Bearer downstream');
    expect(JSON.stringify(got!.headers)).not.toContain(api.apiKey);
    expect(got!.headers['service-request-id']).toBe(id);
    expect(got!.headers['service-attempt']).toBe('1');
    const timestamp = Number(got!.headers['service-timestamp']);
    const ok = verifySignature(got!.headers['service-signature']!, decodeSigningSecret(signingSecret)!, id, timestamp, body, Math.floor(Date.now() / 1000));
    expect(ok).toBe(true);
    const d = await settled(id, 'succeeded');
    expect(d.started_at).not.toBeNull();
    expect(d.started_at).toBe(d.attempts[0]!.started_at);
    expect(d.completed_at).not.toBeNull();
    expect(d.attempts).toEqual([
      expect.objectContaining({ attempt_number: 1, status: 'succeeded', response_status_code: 200, error_message: null, retry: null }),
    ]);
  });

  it('retries 5xx with backoff and records every decision; the budget is exact', async () => {
    const p = path();
    let calls = 0;
    dest.on(p, (x) => replies.status(++calls < 3 ? 503 : 200)(x));
    const id = await send(p, { retry: '5' });
    const d = await settled(id, 'succeeded');
    expect(d.attempts.map((a) => a.status)).toEqual(['failed', 'failed', 'succeeded']);
    expect(d.attempts[0]!.retry).toMatchObject({ reason: 'http_503', delay_source: 'backoff', retry_after_status: 'absent' });
    expect(d.attempts[2]!.retry).toBeNull();

    const always = path();
    dest.on(always, replies.status(500));
    const failing = await api.create({ url: `${dest.url}${always}`, retry: { max_attempts: 3 } });
    const fid = (failing.body.data as { id: string }).id;
    const f = await settled(fid, 'failed');
    expect(f.attempts).toHaveLength(3);
    expect(f.attempts.map((a) => a.retry === null)).toEqual([false, false, true]);
    expect(f.attempts.map((a) => a.final_reason)).toEqual([null, null, 'attempts_exhausted']);
    expect(dest.requestsTo(always)).toHaveLength(3);
    const attempts = await api.call<Attempt[]>('GET', `/requests/${fid}/attempts`);
    expect(attempts.body.data).toEqual(f.attempts);
  });

  it('honours Retry-After in both forms and records invalid values', async () => {
    const p = path();
    let calls = 0;
    const date = new Date(Date.now() + 1500).toUTCString();
    dest.on(p, (x) => {
      calls++;
      if (calls === 1) return replies.status(429, { 'Retry-After': '1' })(x);
      if (calls === 2) return replies.status(503, { 'Retry-After': date })(x);
      if (calls === 3) return replies.status(429, { 'Retry-After': 'soon' })(x);
      return replies.status(204)(x);
    });
    const id = await send(p, { retry: '5' });
    const d = await settled(id, 'succeeded', 15_000);
    const [a1, a2, a3] = d.attempts.map((a) => a.retry!);
    expect(a1).toMatchObject({ reason: 'http_429', retry_after_raw: '1', retry_after_status: 'valid', retry_after_delay_ms: 1000, selected_delay_ms: 1000, delay_source: 'retry_after' });
    expect(a2).toMatchObject({ reason: 'http_503', retry_after_raw: date, retry_after_status: 'valid', delay_source: 'retry_after' });
    expect(a3).toMatchObject({ retry_after_raw: 'soon', retry_after_status: 'invalid', delay_source: 'backoff' });
    for (const r of [a1, a2, a3]) {
      expect(Object.keys(r!).sort()).toEqual(
        ['backoff_delay_ms', 'delay_source', 'next_attempt_at', 'reason', 'retry_after_delay_ms', 'retry_after_escaped', 'retry_after_raw', 'retry_after_status', 'retry_after_truncated', 'selected_delay_ms'].sort(),
      );
    }
    const got = dest.requestsTo(p);
    expect(got[1]!.receivedAt - got[0]!.receivedAt).toBeGreaterThanOrEqual(1000);
  });

  it('ends at once on 4xx and on redirects, which are never followed', async () => {
    const gone = path();
    dest.on(gone, replies.status(404));
    const id = await send(gone, { retry: '5' });
    expect((await settled(id, 'failed')).attempts).toEqual([expect.objectContaining({ retry: null, final_reason: 'final_status' })]);

    const moved = path();
    const target = path();
    dest.on(moved, replies.redirect(302, `${dest.url}${target}`));
    const rid = await send(moved, { retry: '5' });
    const d = await settled(rid, 'failed');
    expect(d.attempts[0]).toMatchObject({ response_status_code: 302, retry: null });
    expect(dest.requestsTo(target)).toHaveLength(0);
  });

  it('times out slow headers and records connection resets, then retries', async () => {
    const slow = path();
    dest.on(slow, replies.delayedHeaders(5_000));
    const id = await send(slow, { timeout: '1s' });
    const d = await settled(id, 'failed');
    expect(d.attempts[0]).toMatchObject({ status: 'timed_out', response_status_code: null, response: null, final_reason: 'attempts_exhausted' });

    const reset = path();
    let calls = 0;
    dest.on(reset, (x) => (++calls === 1 ? replies.reset()(x) : replies.status(200)(x)));
    const rid = await send(reset, { retry: '2' });
    const r = await settled(rid, 'succeeded');
    expect(r.attempts[0]).toMatchObject({ status: 'errored', retry: expect.objectContaining({ reason: 'connection_error' }), response: null, final_reason: null });
  });

  it('stops retrying when the receiver says so on a retryable failure; a success with the signal is a success', async () => {
    const cases: Array<[number, Record<string, string>]> = [
      [500, { 'Service-No-Retry': 'true' }],
      [429, { 'Service-No-Retry': 'TRUE', 'Retry-After': '1' }],
      [503, { 'webhook-delivery': 'abort-message' }],
    ];
    const ids = await Promise.all(cases.map(async ([status, headers]) => {
      const p = path();
      dest.on(p, replies.status(status, headers));
      return [p, await send(p, { retry: '5' })] as const;
    }));
    for (const [p, id] of ids) {
      const d = await settled(id, 'failed');
      expect(d.attempts).toEqual([expect.objectContaining({ status: 'failed', retry: null, final_reason: 'receiver_stopped' })]);
      expect(dest.requestsTo(p)).toHaveLength(1);
    }
    const ok = path();
    dest.on(ok, replies.status(200, { 'Service-No-Retry': 'true' }));
    const d = await settled(await send(ok, { retry: '5' }), 'succeeded');
    expect(d.attempts).toEqual([expect.objectContaining({ status: 'succeeded', retry: null, final_reason: null })]);
  });

  it("keeps the destination's answer: a few headers and the body's first 2 KiB, text or base64", async () => {
    const binary = Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x41]);
    const long = `${'a'.repeat(2047)}é${'b'.repeat(100)}`; // é's two bytes straddle the 2 KiB cut
    const bigBinary = Buffer.alloc(5000, 0xff);
    const answers: Array<[string, Handler]> = [
      ['json', replies.status(422, {
        'Content-Type': 'application/json', 'X-Request-Id': 'abc-1', 'RateLimit-Remaining': '0', 'X-RateLimit-Limit': '100',
        'Set-Cookie': 'session=secret', 'Service-No-Retry': 'true',
      }, '{"error":"no such customer"}')],
      ['empty', replies.status(200)],
      ['binary', replies.status(200, { 'Content-Type': 'application/octet-stream' }, binary)],
      ['long', replies.status(200, {}, long)],
      ['bigBinary', replies.status(200, {}, bigBinary)],
    ];
    const ids = new Map<string, string>();
    for (const [name, handler] of answers) {
      const p = path();
      dest.on(p, handler);
      ids.set(name, await send(p));
    }
    const response = async (name: string) => (await eventually(async () => {
      const d = await detail(ids.get(name)!);
      return d.attempts.length === 1 ? d : undefined;
    })).attempts[0]!.response!;
    expect(await response('json')).toEqual({
      headers: { 'content-type': 'application/json', 'x-request-id': 'abc-1', 'ratelimit-remaining': '0', 'x-ratelimit-limit': '100' },
      body: '{"error":"no such customer"}',
      body_encoding: 'utf8',
      body_truncated: false,
    });
    expect(await response('empty')).toMatchObject({ body: '', body_encoding: 'utf8', body_truncated: false });
    expect(await response('binary')).toMatchObject({ body: binary.toString('base64'), body_encoding: 'base64', body_truncated: false });
    expect(await response('long')).toMatchObject({ body: 'a'.repeat(2047), body_encoding: 'utf8', body_truncated: true });
    expect(await response('bigBinary')).toMatchObject({ body: bigBinary.subarray(0, 2048).toString('base64'), body_encoding: 'base64', body_truncated: true });

    // A project may keep headers only.
    const p = path();
    dest.on(p, replies.status(200, { 'Content-Type': 'text/plain' }, 'private'));
    const res = await quiet.send({ url: `${dest.url}${p}` }, 'x');
    const qid = (res.body.data as { id: string }).id;
    const q = await eventually(async () => {
      const d = (await quiet.call<Detail>('GET', `/requests/${qid}`)).body.data;
      return d.status === 'succeeded' ? d : undefined;
    });
    expect(q.attempts[0]!.response).toEqual({ headers: { 'content-type': 'text/plain' }, body: null, body_encoding: null, body_truncated: false });
  });

  it('fires delayed requests on time, never early', async () => {
    const p = path();
    const id = await send(p, { delay: '1s' });
    const accepted = await detail(id);
    const [got] = await dest.waitForRequests(p, 1, 5_000);
    const scheduledAt = Date.parse((await api.call<{ scheduled_at: string }>('GET', `/requests/${id}`)).body.data.scheduled_at);
    expect(got!.receivedAt).toBeGreaterThanOrEqual(scheduledAt);
    expect(accepted.status).toBe('scheduled');
  });

  it('never sends another attempt once a cancel is recorded', async () => {
    const scheduled = path();
    const sid = await send(scheduled, { delay: '1s' });
    expect((await api.call('POST', `/requests/${sid}/cancel`)).status).toBe(202);

    const waiting = path();
    dest.on(waiting, replies.status(503, { 'Retry-After': '1' }));
    const wid = await send(waiting, { retry: '5' });
    await eventually(async () => ((await detail(wid)).attempts.length === 1 ? true : undefined));
    expect((await api.call('POST', `/requests/${wid}/cancel`)).status).toBe(202);
    const d = await settled(wid, 'cancelled');
    expect(d.cancelled_at).not.toBeNull();

    // Both would have been due by now; wait past that moment, then check nothing more arrived.
    const probe = path();
    const pid = await send(probe, { delay: '2s' });
    await settled(pid, 'succeeded', 10_000);
    expect(dest.requestsTo(scheduled)).toHaveLength(0);
    expect(dest.requestsTo(waiting)).toHaveLength(1);
  });

  it('replays a completed request at once with a fresh budget', async () => {
    const p = path();
    dest.on(p, replies.status(400));
    const id = await send(p, { retry: '3' });
    await settled(id, 'failed');
    dest.on(p, replies.status(200));
    const res = await api.call<{ id: string }>('POST', `/requests/${id}/replay`);
    const d = await settled(res.body.data.id, 'succeeded');
    expect(d.attempts).toHaveLength(1);
    const got = dest.requestsTo(p);
    expect(got.at(-1)!.headers['service-request-id']).toBe(res.body.data.id);
  });
});
