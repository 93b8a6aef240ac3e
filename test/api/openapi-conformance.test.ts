import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES, MAX_STRUCTURED_REQUEST_BYTES } from '../../src/domain/validation/limits.js';
import { Api, eventually, type ApiResponse } from '../support/api-client.js';
import { startDestination, type Destination } from '../support/destination.js';
import { createProject, startFerry, type FerryProcess } from '../support/ferry-process.js';
import { OpenApiDocument, type Json } from '../support/openapi-document.js';

const openapi = new OpenApiDocument();

/** Every answer of these tests is held to the document; `seen` records which operation answered which status. */
class CheckedApi {
  readonly seen = new Map<string, Set<string>>();
  constructor(readonly api: Api) {}

  async call(method: string, path: string, init: Parameters<Api['call']>[2] = {}): Promise<ApiResponse<Json>> {
    const res = await this.api.call<Json>(method, path, init);
    const key = openapi.check(method, path, res);
    const id = openapi.route(method, path)?.op.operationId ?? 'unrouted';
    this.seen.set(id, (this.seen.get(id) ?? new Set()).add(key));
    return res;
  }
}

const key = () => `conformance-${randomUUID()}`;

describe('the document check itself', () => {
  const headers = new Headers({ 'ferry-request-id': randomUUID() });
  const envelope = (data: Json) => ({ success: true, data, error: null, meta: null, request_id: headers.get('ferry-request-id') });
  const schedules = (data: Json) => ({ status: 200, headers, body: envelope(data) }) as ApiResponse<Json>;

  it('accepts what the document allows and refuses what it does not', () => {
    expect(openapi.check('GET', '/schedules', schedules([]))).toBe('200');
    expect(() => openapi.check('GET', '/schedules', schedules([{ id: 'sch_1' }]))).toThrow(/required property/);
    expect(() => openapi.check('GET', '/schedules', schedules({}))).toThrow(/must be array/);
    expect(() => openapi.check('GET', '/schedules', { ...schedules([]), headers: new Headers() })).toThrow(/lacks the Ferry-Request-Id header/);
    expect(() => openapi.check('GET', '/schedules', { ...schedules([]), status: 202 })).toThrow();
    expect(() => openapi.check('PUT', '/schedules', { ...schedules([]), status: 200 })).toThrow(/not an unrouted answer/);
  });

  it('holds always-set fields to a value, and a timing to the members of its type', () => {
    const at = '2030-01-01T00:00:00.000Z';
    const summary = (timing: Json, overrides: Json = {}) => ({
      id: 'sch_1', name: 'n', timing, status: 'active', url: 'https://example.com/', retry: 0, next_run_at: at,
      last_run_at: null, last_run_outcome: null, created_at: at, updated_at: at,
      policy: { overlap: 'allow_all', max_runs: null, jitter_seconds: 0, pause_after_failures: null }, pause_reason: null, ...overrides,
    });
    const cron = { type: 'cron', expression: '0 9 * * 1', timezone: 'UTC', every_seconds: null, starts_at: null, dst: { gap: 'shift', overlap: 'first' }, ends_at: null };
    const interval = { type: 'interval', expression: null, timezone: null, every_seconds: 3600, starts_at: null, dst: null, ends_at: null };
    expect(openapi.check('GET', '/schedules', schedules([summary(cron), summary(interval)]))).toBe('200');
    expect(() => openapi.check('GET', '/schedules', schedules([summary(cron, { created_at: null })]))).toThrow(/created_at must be string/);
    expect(() => openapi.check('GET', '/schedules', schedules([summary(cron, { status: null })]))).toThrow(/status/);
    expect(() => openapi.check('GET', '/schedules', schedules([summary(null)]))).toThrow(/timing/);
    expect(() => openapi.check('GET', '/schedules', schedules([summary({ ...cron, every_seconds: 60 })]))).toThrow(/every_seconds/);
    expect(() => openapi.check('GET', '/schedules', schedules([summary({ ...interval, timezone: 'UTC' })]))).toThrow(/timezone/);
    expect(() => openapi.check('GET', '/schedules', schedules([summary({ ...interval, dst: { gap: 'shift', overlap: 'first' } })]))).toThrow(/dst/);
    expect(() => openapi.check('GET', '/schedules', schedules([summary({ ...cron, dst: { gap: null, overlap: 'first' } })]))).toThrow(/gap/);
    const accepted = { status: 202, headers, body: envelope({ id: 'req_1', project_id: 'prj_1', replayed_from_request_id: null, status: 'queued', scheduled_at: null, created_at: null }) };
    expect(() => openapi.check('POST', '/requests', accepted as ApiResponse<Json>)).toThrow(/created_at must be string/);
  });
});

describe('the live JSON HTTP API answers as the OpenAPI document says', () => {
  let dest: Destination;
  let ferry: FerryProcess;
  let api: CheckedApi;
  let hook: string;

  beforeAll(async () => {
    dest = await startDestination();
    // Fails once, then succeeds: an attempt with a retry decision, and one after it.
    let flaky = 0;
    dest.on('/flaky', ({ res }) => void res.writeHead((flaky += 1) === 1 ? 503 : 200).end());
    ferry = await startFerry({
      env: {
        FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true', FERRY_DELIVERY_CA_FILE: dest.certFile, FERRY_AUTH_CACHE_MS: '0', FERRY_ROLES: 'api,delivery',
        // Retries a few tens of milliseconds apart, so the retried request settles soon.
        FERRY_RETRY_BASE_MS: '50',
      },
    });
    const project = await createProject(ferry.dataDir);
    api = new CheckedApi(new Api(ferry.baseUrl, project.apiKey));
    hook = `${dest.url}/hook`;
  });
  afterAll(async () => {
    await ferry?.stop();
    await dest?.close();
  });

  async function settled(id: string, status: string): Promise<Json> {
    return eventually(async () => {
      const res = await api.call('GET', `/requests/${id}`);
      return res.body.data.status === status ? res.body.data : undefined;
    });
  }

  /** A call answered with `status`, held to the document like every other. */
  async function explicitStatus(method: string, path: string, init: Parameters<Api['call']>[2], status: number): Promise<void> {
    expect((await api.call(method, path, init)).status).toBe(status);
  }

  it('for a success of every operation', async () => {
    const sent = await api.call('POST', `/send?${new URLSearchParams({ url: hook, retry: '1' })}`, { body: 'hello', headers: { 'Idempotency-Key': key() } });
    expect(sent.status).toBe(202);
    const later = await api.call('POST', '/requests', { json: { url: hook, delay: '1h', metadata: { k: 'v' } } });
    expect(later.status).toBe(202);
    const batch = await api.call('POST', '/requests/batch', { json: { requests: [{ url: hook }, { url: hook, idempotency_key: key() }] }, headers: { 'Idempotency-Key': key() } });
    expect(batch.status).toBe(202);

    const retried = await api.call('POST', '/requests', { json: { url: `${dest.url}/flaky`, retry: { max_attempts: 2 } } });
    expect(retried.status).toBe(202);

    const delivered = await settled(sent.body.data.id, 'succeeded');
    expect(delivered.attempts.length).toBeGreaterThan(0);
    expect((await api.call('GET', `/requests/${sent.body.data.id}/attempts`)).status).toBe(200);
    const second = await settled(retried.body.data.id, 'succeeded');
    expect(second.attempts.map((a: Json) => [a.status, a.retry === null])).toEqual([['failed', false], ['succeeded', true]]);
    expect((await api.call('GET', `/requests/${retried.body.data.id}/attempts`)).body.data).toHaveLength(2);
    expect((await api.call('GET', `/requests?${new URLSearchParams({ limit: '1' })}`)).status).toBe(200);
    expect((await api.call('POST', `/requests/${later.body.data.id}/cancel`)).status).toBe(202);
    expect((await api.call('POST', `/requests/${later.body.data.id}/cancel`)).status).toBe(200);
    expect((await api.call('POST', `/requests/${later.body.data.id}/replay`, { headers: { 'Idempotency-Key': key() } })).status).toBe(202);

    const timing = { type: 'interval', every_seconds: 3600 };
    const created = await api.call('POST', '/schedules', { json: { name: 'hourly', timing, request: { url: hook, body: { a: 1 } } }, headers: { 'Idempotency-Key': key() } });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    expect((await api.call('GET', '/schedules')).status).toBe(200);
    expect((await api.call('GET', '/schedules?limit=1')).status).toBe(200);
    expect((await api.call('POST', '/schedules/preview', { json: { timing: { type: 'cron', expression: '0 9 * * 1', timezone: 'Europe/Berlin' }, count: 3 } })).status).toBe(200);
    expect((await api.call('GET', `/schedules/${id}`)).status).toBe(200);
    expect((await api.call('PATCH', `/schedules/${id}`, { json: { name: 'renamed' } })).status).toBe(200);
    expect((await api.call('POST', `/schedules/${id}/pause`)).status).toBe(200);
    expect((await api.call('POST', `/schedules/${id}/resume`)).status).toBe(200);
    expect((await api.call('POST', `/schedules/${id}/trigger`, { headers: { 'Idempotency-Key': key() } })).status).toBe(202);
    const pastHour = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000;
    const range = { from: new Date(pastHour - 3 * 3_600_000).toISOString(), to: new Date(pastHour).toISOString() };
    expect((await api.call('POST', `/schedules/${id}/backfill`, { json: range, headers: { 'Idempotency-Key': key() } })).status).toBe(202);
    expect((await api.call('GET', `/schedules/${id}`)).body.data.run_counts.triggered).toBe(1);
    expect((await api.call('DELETE', `/schedules/${id}`)).status).toBe(204);
    // A cron schedule read back: the other shape of a timing.
    const cron = { type: 'cron', expression: '0 9 * * 1', timezone: 'Europe/Berlin' };
    const weekly = await api.call('POST', '/schedules', { json: { name: 'weekly', timing: cron, request: { url: hook } }, headers: { 'Idempotency-Key': key() } });
    expect(weekly.status).toBe(201);
    expect((await api.call('GET', `/schedules/${weekly.body.data.id}`)).body.data.timing).toEqual({ ...cron, every_seconds: null, starts_at: null, dst: { gap: 'shift', overlap: 'first' }, ends_at: null });
    expect((await api.call('GET', '/schedules')).body.data.map((s: Json) => s.timing.type)).toEqual(['cron']);
    expect((await api.call('GET', '/usage')).status).toBe(200);

    // Flow control: a queue and a key through every call, configured, paused and read back, and keys on requests.
    for (const path of ['/queues/billing', '/flow-keys/customer:7']) {
      expect((await api.call('GET', path)).status).toBe(200);
      expect((await api.call('PUT', path, { json: { rate: { limit: 5, period: '1m' }, concurrency: 2 } })).status).toBe(200);
      expect((await api.call('POST', `${path}/pause`)).status).toBe(200);
      expect((await api.call('POST', `${path}/resume`)).status).toBe(200);
    }
    expect((await api.call('GET', '/queues?limit=1')).body.data.next_cursor).toEqual(expect.any(String));
    expect((await api.call('GET', '/flow-keys')).body.data.items).toHaveLength(1);
    const keyed = await api.call('POST', '/requests', { json: { url: hook, delay: '1h', flow_keys: ['customer:7', 'vendor'] } });
    expect((await api.call('GET', `/requests/${keyed.body.data.id}`)).body.data.flow_keys).toEqual(['customer:7', 'vendor']);
    await explicitStatus('PUT', '/queues/billing', { json: { concurrency: 0 } }, 422);

    // Bulk actions: a dry run (200, its own shape), one started (202), read, listed and cancelled.
    const dry = await api.call('POST', '/bulk-actions', { json: { action: 'cancel', filter: { queue: 'billing' }, dry_run: true } });
    expect(dry.status).toBe(200);
    const bulk = await api.call('POST', '/bulk-actions', { json: { action: 'cancel', ids: [keyed.body.data.id] }, headers: { 'Idempotency-Key': key() } });
    expect(bulk.status).toBe(202);
    expect((await api.call('GET', `/bulk-actions/${bulk.body.data.id}`)).status).toBe(200);
    expect((await api.call('GET', '/bulk-actions?limit=1')).status).toBe(200);
    expect((await api.call('GET', '/stats')).status).toBe(200);
    expect((await api.call('POST', `/bulk-actions/${bulk.body.data.id}/cancel`)).status).toBe(200);

    const operations = openapi.operations().map((o) => o.op.operationId as string);
    expect(operations.filter((op) => ![...(api.seen.get(op) ?? [])].some((k) => k.startsWith('2')))).toEqual([]);
  });

  it('for 401, 404, 405, 409, 413, 415, 422 and 431, each listed for the operation that gave it', async () => {
    const explicit = async (method: string, path: string, init: Parameters<Api['call']>[2], status: number, code: string) => {
      const res = await api.call(method, path, init);
      expect([res.status, res.body?.error?.code]).toEqual([status, code]);
      expect(openapi.check(method, path, res)).toBe(String(status));
    };
    await explicit('GET', '/requests', { auth: null }, 401, 'UNAUTHENTICATED');
    await explicit('POST', '/schedules/preview', { auth: 'Bearer nope', json: {} }, 401, 'UNAUTHENTICATED');
    await explicit('GET', '/requests/req_missing', {}, 404, 'NOT_FOUND');
    await explicit('DELETE', '/schedules/sch_missing', {}, 404, 'NOT_FOUND');
    await explicit('GET', '/no/such/route', {}, 404, 'ROUTE_NOT_FOUND');
    const refused = await api.call('PUT', '/requests', { json: {} });
    expect([refused.status, refused.body.error?.code]).toEqual([405, 'METHOD_NOT_ALLOWED']);
    expect(refused.headers.get('allow')?.split(', ').sort()).toEqual(['GET', 'POST']);

    const reused = key();
    expect((await api.call('POST', '/requests', { json: { url: hook, delay: '1h' }, headers: { 'Idempotency-Key': reused } })).status).toBe(202);
    await explicit('POST', '/requests', { json: { url: hook, delay: '2h' }, headers: { 'Idempotency-Key': reused } }, 409, 'IDEMPOTENCY_KEY_REUSED');
    const done = await api.call('POST', '/requests', { json: { url: hook } });
    await settled(done.body.data.id, 'succeeded');
    await explicit('POST', `/requests/${done.body.data.id}/cancel`, {}, 409, 'REQUEST_COMPLETED');
    const waiting = await api.call('POST', '/requests', { json: { url: hook, delay: '1h' } });
    await explicit('POST', `/requests/${waiting.body.data.id}/replay`, {}, 409, 'REQUEST_ACTIVE');

    await explicit('POST', `/send?${new URLSearchParams({ url: hook })}`, { body: new Uint8Array(MAX_BODY_BYTES + 1) }, 413, 'PAYLOAD_TOO_LARGE');
    await explicit('POST', '/requests', { json: { url: hook, body: 'x'.repeat(MAX_STRUCTURED_REQUEST_BYTES) } }, 413, 'PAYLOAD_TOO_LARGE');
    await explicit('POST', '/requests', { json: { url: 'http://insecure.example.com/' } }, 422, 'INVALID_URL');
    await explicit('GET', '/requests?colour=red', {}, 422, 'UNKNOWN_FIELD');
    await explicit('PATCH', '/schedules/sch_missing', { json: {} }, 422, 'MISSING_FIELD');
    await explicit('POST', '/requests', { json: { url: hook }, headers: { 'Content-Encoding': 'gzip' } }, 415, 'UNSUPPORTED_MEDIA_TYPE');
    await explicit('GET', '/requests', { headers: { 'X-Padding': 'x'.repeat(70 * 1024) } }, 431, 'HEADERS_TOO_LARGE');
  });

  it('for 429 when a project has no allowance left', async () => {
    const broke = new CheckedApi(new Api(ferry.baseUrl, (await createProject(ferry.dataDir, { monthlyAllowance: 0, scheduleAllowance: 0 })).apiKey));
    const cases: Array<[string, string, Parameters<Api['call']>[2], string]> = [
      ['POST', `/send?${new URLSearchParams({ url: hook })}`, { body: 'x' }, 'MONTHLY_ALLOWANCE_EXCEEDED'],
      ['POST', '/requests', { json: { url: hook } }, 'MONTHLY_ALLOWANCE_EXCEEDED'],
      ['POST', '/requests/batch', { json: { requests: [{ url: hook }] }, headers: { 'Idempotency-Key': key() } }, 'MONTHLY_ALLOWANCE_EXCEEDED'],
      ['POST', '/schedules', {
        json: { name: 'n', timing: { type: 'interval', every_seconds: 60 }, request: { url: hook } },
        headers: { 'Idempotency-Key': key() },
      }, 'SCHEDULE_ALLOWANCE_EXCEEDED'],
    ];
    for (const [method, path, init, code] of cases) {
      const res = await broke.call(method, path, init);
      expect([res.status, res.body.error?.code]).toEqual([429, code]);
      expect(openapi.check(method, path, res)).toBe('429');
    }
  });
});

/**
 * Calls again when the connection was reset: a draining server closes idle keep-alive connections, and the client
 * may have picked one of them for the call just before it was closed.
 */
async function retried<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
    return call();
  }
}

describe('a draining server answers as the OpenAPI document says', () => {
  let dest: Destination;
  let ferry: FerryProcess;

  beforeAll(async () => {
    dest = await startDestination();
    // An attempt that never ends holds the drain open for the whole grace, long past what the test needs.
    dest.on('/stall', ({ signal }) => new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve())));
    ferry = await startFerry({
      env: {
        FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true',
        FERRY_DELIVERY_CA_FILE: dest.certFile,
        FERRY_ROLES: 'api,delivery',
        FERRY_SHUTDOWN_GRACE_MS: '30000',
      },
    });
  });
  afterAll(async () => {
    if (ferry?.child.exitCode === null) await ferry.kill();
    await dest?.close();
  });

  it('with 503 SHUTTING_DOWN on every call once the drain began', async () => {
    const api = new Api(ferry.baseUrl, (await createProject(ferry.dataDir)).apiKey);
    const stalled = await api.call<Json>('POST', '/requests', { json: { url: `${dest.url}/stall` } });
    expect(stalled.status).toBe(202);
    await dest.waitForRequests('/stall', 1, 20_000);
    ferry.child.kill('SIGTERM');
    await eventually(async () => ((await retried(() => fetch(`${ferry.baseUrl}/readyz`))).status === 503 ? true : undefined));

    for (const [method, path, init] of [
      ['GET', '/requests', {}],
      ['POST', '/requests', { json: { url: `${dest.url}/hook` } }],
      ['DELETE', '/schedules/sch_missing', {}],
    ] as const) {
      const res = await retried(() => api.call<Json>(method, path, init));
      expect([res.status, res.body.error?.code]).toEqual([503, 'SHUTTING_DOWN']);
      expect(openapi.check(method, path, res)).toBe('503');
    }
  });
});
