import { describe, expect, it } from 'vitest';
import {
  AuthenticationError, ConflictError, Ferry, FerryApiError, FerryError, NotFoundError, PayloadTooLargeError, RateLimitError,
  UnprocessableEntityError,
} from '../../sdk/src/index.js';
import { DEST, useFerry } from '../support/fixture.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const CRON = { type: 'cron', expression: '30 2 * * *', timezone: 'Europe/Berlin' } as const;

/** A result carries the call's ID as a property that `toEqual`, spreads and JSON do not show. */
function expectRequestId(result: object): void {
  expect((result as { requestId?: unknown }).requestId).toMatch(UUID);
  expect(Object.keys(result)).not.toContain('requestId');
  expect(JSON.stringify(result)).not.toContain('requestId');
}

/** The error a promise rejects with, failing the test when it resolves. */
async function rejection(promise: Promise<unknown>): Promise<FerryApiError> {
  const outcome = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(outcome).toBeInstanceOf(FerryApiError);
  return outcome as FerryApiError;
}

const f = useFerry();
const ferry = () => new Ferry({ baseUrl: f.ferry.baseUrl, apiKey: f.apiKey });

async function clientOfNewProject(opts: { monthlyAllowance?: number } = {}): Promise<Ferry> {
  const p = await f.newProject(opts);
  return new Ferry({ baseUrl: f.ferry.baseUrl, apiKey: p.apiKey });
}

describe('SDK: requests', () => {
  it('sends raw bytes with the delivery options, content type and forwarded headers', async () => {
    const bytes = Uint8Array.from([0, 0xff, 0x80, 13, 10]);
    const accepted = await ferry().requests.send(`${DEST}/bytes`, bytes, {
      method: 'PUT', retry: 2, delay: '1h', timeout: '30s', queue: 'sdk.q', contentType: 'application/x-thing', forwardHeaders: { 'X-Trace': 't-1' },
    });
    expect(accepted).toEqual({
      id: expect.stringMatching(/^req_./), project_id: f.projectId, replayed_from_request_id: null, status: 'scheduled',
      scheduled_at: expect.any(String), created_at: expect.any(String),
    });
    expectRequestId(accepted);
    const detail = await ferry().requests.get(accepted.id);
    expectRequestId(detail);
    expect(detail).toMatchObject({
      id: accepted.id, url: `${DEST}/bytes`, method: 'PUT', queue: 'sdk.q', max_attempts: 3, timeout_seconds: 30,
      content_type: 'application/x-thing', headers: { 'X-Trace': '[REDACTED]' }, attempts: [],
    });
  });

  it('sends a string or a Blob body without a Content-Type of its own, or with the Blob type', async () => {
    const plain = await ferry().requests.send(DEST, 'hello');
    expect((await ferry().requests.get(plain.id)).content_type).toBeFalsy();
    const typed = await ferry().requests.send(DEST, new Blob(['{"a":1}'], { type: 'application/json' }));
    expect((await ferry().requests.get(typed.id)).content_type).toBe('application/json');
  });

  it('creates with and without a key: a repeated key answers the first request', async () => {
    const input = { url: `${DEST}/create`, body: { order: 42 }, retry: { max_attempts: 2 }, metadata: { order: '42' } };
    const first = await ferry().requests.create(input, { idempotencyKey: 'sdk-create-1' });
    expectRequestId(first);
    const again = await ferry().requests.create(input, { idempotencyKey: 'sdk-create-1' });
    expect(again.id).toBe(first.id);
    expect(again.requestId).not.toBe(first.requestId);
    const unkeyed = await ferry().requests.create(input);
    expect(unkeyed.id).not.toBe(first.id);
  });

  it('batches in submitted order, with a key made for the call when none is given', async () => {
    const batch = await ferry().requests.batch([{ url: `${DEST}/b0` }, { url: `${DEST}/b1`, idempotency_key: 'sdk-item-1' }]);
    expect(Array.isArray(batch)).toBe(true);
    expect(batch).toHaveLength(2);
    expectRequestId(batch);
    const urls = await Promise.all(batch.map(async (a) => (await ferry().requests.get(a.id)).url));
    expect(urls).toEqual([`${DEST}/b0`, `${DEST}/b1`]);
  });

  it('reads attempts, cancels twice, replays, and lists with filters', async () => {
    const { id } = await ferry().requests.send(`${DEST}/lifecycle`, 'x', { delay: '1h' });
    const attempts = await ferry().requests.attempts(id);
    expect(attempts).toEqual([]);
    expectRequestId(attempts);
    const cancelled = await ferry().requests.cancel(id);
    expect(cancelled).toEqual({ id, status: 'cancellation_requested' });
    expectRequestId(cancelled);
    expect(await ferry().requests.cancel(id)).toEqual({ id, status: 'cancelled' });
    const replay = await ferry().requests.replay(id);
    expect(replay).toMatchObject({ replayed_from_request_id: id, status: 'queued' });
    expectRequestId(replay);
    const page = await ferry().requests.list({ search: '/lifecycle', limit: 10 });
    expectRequestId(page);
    expect(page.items.map((r) => r.id)).toEqual([replay.id, id]);
    expect(page).toMatchObject({ next_cursor: null, has_hidden_history: false, history_retention_days: expect.any(Number) });
  });
});

describe('SDK: schedules', () => {
  it('creates (with a key made for the call), reads, updates, pauses, resumes and deletes', async () => {
    const created = await ferry().schedules.create({ name: 'sdk nightly', timing: CRON, request: { url: DEST, body: { n: 1 }, headers: { 'X-Tenant': '7' }, retry: 2 } });
    expect(created).toMatchObject({ id: expect.stringMatching(/^sch_./), name: 'sdk nightly', status: 'active', url: DEST, retry: 2, next_run_at: expect.any(String) });
    expectRequestId(created);
    const detail = await ferry().schedules.get(created.id);
    expectRequestId(detail);
    expect(detail.request).toMatchObject({ url: DEST, body: { n: 1 }, headers: { 'X-Tenant': '[REDACTED]' }, retry: 2 });
    const renamed = await ferry().schedules.update(created.id, { name: 'sdk renamed' });
    expect(renamed).toMatchObject({ id: created.id, name: 'sdk renamed' });
    expectRequestId(renamed);
    const paused = await ferry().schedules.pause(created.id);
    expect(paused).toMatchObject({ status: 'paused', next_run_at: null });
    expectRequestId(paused);
    const resumed = await ferry().schedules.resume(created.id);
    expect(resumed).toMatchObject({ status: 'active', next_run_at: expect.any(String) });
    expectRequestId(resumed);
    const deleted = await ferry().schedules.delete(created.id);
    expect(deleted.requestId).toMatch(UUID);
    expect(await rejection(ferry().schedules.get(created.id))).toBeInstanceOf(NotFoundError);
  });

  it('keeps a given key: the same key and definition answer the same schedule', async () => {
    const input = { name: 'sdk keyed', timing: CRON, request: { url: DEST } };
    const first = await ferry().schedules.create(input, { idempotencyKey: 'sdk-schedule-1' });
    expect((await ferry().schedules.create(input, { idempotencyKey: 'sdk-schedule-1' })).id).toBe(first.id);
  });

  it('previews the next occurrences of a timing', async () => {
    const runs = await ferry().schedules.preview({ type: 'interval', every_seconds: 3600, starts_at: '2030-01-01T00:00:00Z' }, { after: '2030-01-01T00:00:00Z', count: 3 });
    expect(runs).toEqual(['2030-01-01T01:00:00.000Z', '2030-01-01T02:00:00.000Z', '2030-01-01T03:00:00.000Z']);
    expectRequestId(runs);
  });
});

describe('SDK: usage', () => {
  it("reads the project's usage of its allowances", async () => {
    const client = await clientOfNewProject({ monthlyAllowance: 20 });
    await client.requests.send(DEST, 'a', { delay: '1h' });
    await client.requests.batch([{ url: DEST, delay: '1h' }, { url: DEST, delay: '1h' }]);
    await client.schedules.create({ name: 'nightly', timing: CRON, request: { url: DEST } });
    const usage = await client.usage();
    expectRequestId(usage);
    expect(usage).toEqual({
      period_start: expect.stringMatching(/^\d{4}-\d{2}-01T00:00:00(\.000)?Z$/),
      period_end: expect.stringMatching(/^\d{4}-\d{2}-01T00:00:00(\.000)?Z$/),
      used: 3,
      allowance: 20,
      remaining: 17,
      schedules: 1,
      schedule_allowance: 100,
    });
    expect(Date.parse(usage.period_start)).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(usage.period_end)).toBeGreaterThan(Date.now());
  });
});

describe('SDK: pagination', () => {
  it('awaits one page of requests, and iterates every page with the same filters', async () => {
    const ferry = await clientOfNewProject();
    const made: string[] = [];
    for (let i = 0; i < 7; i++) made.push((await ferry.requests.send(`${DEST}/page/${i}`)).id);
    await ferry.requests.send('https://other.example.com/');

    const first = await ferry.requests.list({ search: '/page/', limit: 3 });
    expect(first.items).toHaveLength(3);
    expect(first.next_cursor).toEqual(expect.any(String));

    const seen: string[] = [];
    for await (const request of ferry.requests.list({ search: '/page/', limit: 3 })) seen.push(request.id);
    expect([...seen].sort()).toEqual([...made].sort());
    expect(new Set(seen).size).toBe(7);

    const rest: string[] = [];
    for await (const request of ferry.requests.list({ search: '/page/', limit: 3, cursor: first.next_cursor! })) rest.push(request.id);
    expect([...first.items.map((r) => r.id), ...rest]).toEqual(seen);
  });

  it('iterates every page of schedules; without a limit one page holds them all', async () => {
    const ferry = await clientOfNewProject();
    const made: string[] = [];
    for (let i = 0; i < 7; i++) made.push((await ferry.schedules.create({ name: `sdk page ${i}`, timing: CRON, request: { url: DEST } })).id);

    const first = await ferry.schedules.list({ limit: 3 });
    expect(first.items).toHaveLength(3);
    expect(first.next_cursor).toEqual(expect.any(String));
    expectRequestId(first);

    const seen: string[] = [];
    for await (const schedule of ferry.schedules.list({ limit: 3 })) seen.push(schedule.id);
    expect([...seen].sort()).toEqual([...made].sort());
    expect(new Set(seen).size).toBe(7);

    const all = await ferry.schedules.list();
    expect(all.items.map((s) => s.id)).toEqual(seen);
    expect(all.next_cursor).toBeNull();
  });
});

describe('SDK: the errors Ferry answers', () => {
  it('401 with a wrong key is an AuthenticationError', async () => {
    const wrong = new Ferry({ baseUrl: f.ferry.baseUrl, apiKey: 'fry_not_a_key' });
    const err = await rejection(wrong.requests.list());
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err).toBeInstanceOf(FerryError);
    expect(err).toMatchObject({ name: 'AuthenticationError', status: 401, code: 'UNAUTHENTICATED', requestId: expect.stringMatching(UUID) });
    expect(err.headers.get('Ferry-Request-Id')).toBe(err.requestId);
  });

  it('404 for an unknown request is a NotFoundError', async () => {
    const err = await rejection(ferry().requests.get('req_01ARZ3NDEKTSV4RRFFQ69G5FAV'));
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err).toMatchObject({ status: 404, code: 'NOT_FOUND', requestId: expect.stringMatching(UUID) });
  });

  it('409 for a reused key and for replaying an active request is a ConflictError', async () => {
    await ferry().requests.create({ url: `${DEST}/a` }, { idempotencyKey: 'sdk-conflict' });
    const reused = await rejection(ferry().requests.create({ url: `${DEST}/b` }, { idempotencyKey: 'sdk-conflict' }));
    expect(reused).toBeInstanceOf(ConflictError);
    expect(reused).toMatchObject({ status: 409, code: 'IDEMPOTENCY_KEY_REUSED' });
    const { id } = await ferry().requests.send(DEST, 'x', { delay: '1h' });
    expect(await rejection(ferry().requests.replay(id))).toMatchObject({ name: 'ConflictError', status: 409, code: 'REQUEST_ACTIVE' });
  });

  it('413 for a body over 256 KiB is a PayloadTooLargeError', async () => {
    const err = await rejection(ferry().requests.send(DEST, new Uint8Array(256 * 1024 + 1)));
    expect(err).toBeInstanceOf(PayloadTooLargeError);
    expect(err).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
  });

  it('422 names the field: an UnprocessableEntityError', async () => {
    const err = await rejection(ferry().requests.create({ url: 'http://example.com/plain' }));
    expect(err).toBeInstanceOf(UnprocessableEntityError);
    expect(err).toMatchObject({ status: 422, code: 'INVALID_URL', field: 'url', message: expect.any(String) });
    const cursor = await rejection(ferry().requests.list({ cursor: 'not-a-cursor' }));
    expect(cursor).toMatchObject({ name: 'UnprocessableEntityError', code: 'INVALID_CURSOR', field: 'cursor' });
  });

  it('429 once the monthly allowance is spent is a RateLimitError, after the retries', async () => {
    const limited = await clientOfNewProject({ monthlyAllowance: 1 });
    await limited.requests.send(DEST);
    const err = await rejection(limited.requests.send(DEST));
    expect(err).toBeInstanceOf(RateLimitError);
    // The server's Retry-After as it was sent: the seconds to the start of the next UTC month, uncut.
    expect(err).toMatchObject({ status: 429, code: 'MONTHLY_ALLOWANCE_EXCEEDED', retryAfterSeconds: expect.any(Number) });
    const now = new Date();
    const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
    const seconds = (err as RateLimitError).retryAfterSeconds!;
    expect(Math.abs(seconds - (nextMonth - now.getTime()) / 1000)).toBeLessThan(120);
  });
});
