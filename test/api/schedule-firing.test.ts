import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, type Api } from '../support/api-client.js';
import { sharedSelfSignedCertificate } from '../support/certs.js';
import { startDestination, type Destination } from '../support/destination.js';
import { useFerry } from '../support/fixture.js';
import { at, cron, expectError, interval, iso, scheduleProject, secondsAhead, type Schedules, type ScheduleDetail } from '../support/schedule-client.js';

interface RequestSummary {
  id: string;
  schedule_id: string | null;
  url: string;
  method: string;
  created_at: string;
}

const MINUTE = 60_000;

// Real time: occurrences fire on the wall clock, so these tests wait for them (with deadlines, never fixed sleeps).
describe('schedule firing (delivery on)', () => {
  const certificate = sharedSelfSignedCertificate();
  const f = useFerry({
    env: {
      FERRY_ROLES: 'api,delivery',
      FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true',
      FERRY_DELIVERY_CA_FILE: certificate.certFile,
    },
  });
  let dest: Destination;
  let n = 0;
  const path = () => `/fire${++n}`;

  beforeAll(async () => {
    dest = await startDestination({ certificate });
  });
  afterAll(async () => {
    await dest?.close();
  });

  async function recurring(api: Api): Promise<RequestSummary[]> {
    const res = await api.call<{ items: RequestSummary[] }>('GET', '/requests?source=recurring');
    expect(res.status).toBe(200);
    return res.body.data.items;
  }

  /** The schedule once its latest occurrence has been recorded. */
  function afterRun(schedules: Schedules, id: string, deadlineMs: number): Promise<ScheduleDetail> {
    return eventually(async () => {
      const d = await schedules.detail(id);
      return d.last_run_outcome !== null ? d : undefined;
    }, deadlineMs);
  }

  it('an interval occurrence creates an ordinary request, delivered as a JSON POST with the schedule\'s body, headers and Service-Schedule-Id', async () => {
    const { api, schedules } = await scheduleProject(f);
    const p = path();
    const startsAt = secondsAhead(3000);
    const body = { kind: 'tick', n: [1, 2, { x: null }] };
    const s = await schedules.created({
      name: 'every minute',
      timing: interval(60, startsAt),
      request: { url: `${dest.url}${p}`, body, headers: { 'X-Tenant': 'acme', Authorization: 'Bearer downstream' }, retry: 2 },
    });
    expect(at(s.next_run_at)).toBe(Date.parse(startsAt));

    const [got] = await dest.waitForRequests(p, 1, 60_000);
    expect(got!.method).toBe('POST');
    expect(got!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(got!.body.toString('utf8'))).toEqual(body);
    expect(got!.headers['x-tenant']).toBe('acme');
    expect(got!.headers.authorization).toBe('Bearer downstream');
    expect(got!.headers['service-schedule-id']).toBe(s.id);
    expect(got!.headers['service-request-id']).toMatch(/^req_./);
    expect(JSON.stringify(got!.headers)).not.toContain(api.apiKey);
    expect(got!.receivedAt).toBeGreaterThanOrEqual(Date.parse(startsAt));
    const requestId = got!.headers['service-request-id']!;

    const listed = await eventually(async () => {
      const items = await recurring(api);
      return items.some((i) => i.id === requestId) ? items : undefined;
    }, 20_000);
    expect(listed.find((i) => i.id === requestId)).toMatchObject({ schedule_id: s.id, url: `${dest.url}${p}`, method: 'POST' });
    for (const item of listed) expect(item.schedule_id).toBe(s.id);
    expect((await api.call<{ items: RequestSummary[] }>('GET', '/requests?source=api')).body.data.items).toEqual([]);
    const detail = await api.call<Record<string, unknown>>('GET', `/requests/${requestId}`);
    expect(detail.body.data).toMatchObject({
      schedule_id: s.id,
      method: 'POST',
      max_attempts: 3,
      content_type: 'application/json',
      headers: { 'X-Tenant': '[REDACTED]', Authorization: '[REDACTED]' },
    });

    const after = await afterRun(schedules, s.id, 20_000);
    expect(after).toMatchObject({ status: 'active', last_run_outcome: 'enqueued' });
    expect(at(after.last_run_at)).toBe(Date.parse(startsAt));
    expect(at(after.next_run_at)).toBe(Date.parse(startsAt) + MINUTE);

    // Deleting the schedule cancels its future, not the requests it already created.
    expect((await schedules.remove(s.id)).status).toBe(204);
    expect((await api.call('GET', `/requests/${requestId}`)).status).toBe(200);
  }, 120_000);

  it('a cron "* * * * *" schedule fires once at the next minute boundary', async () => {
    const { api, schedules } = await scheduleProject(f);
    const p = path();
    const s = await schedules.created({ name: 'cron minute', timing: cron('* * * * *'), request: { url: `${dest.url}${p}`, body: { cron: true } } });
    const boundary = at(s.next_run_at);
    expect(boundary % MINUTE).toBe(0);
    expect(boundary).toBeGreaterThan(at(s.created_at));
    expect(boundary).toBeLessThanOrEqual(at(s.created_at) + MINUTE);

    const [got] = await dest.waitForRequests(p, 1, 90_000);
    // Stop the next occurrence before looking at this one.
    expect((await schedules.pause(s.id)).status).toBe(200);
    expect(got!.receivedAt).toBeGreaterThanOrEqual(boundary);
    expect(got!.headers['service-schedule-id']).toBe(s.id);
    expect(JSON.parse(got!.body.toString('utf8'))).toEqual({ cron: true });

    const after = await afterRun(schedules, s.id, 20_000);
    expect(after.last_run_outcome).toBe('enqueued');
    expect(at(after.last_run_at)).toBe(boundary);
    expect(after).toMatchObject({ status: 'paused', next_run_at: null });
    const items = await eventually(async () => {
      const list = await recurring(api);
      return list.length > 0 ? list : undefined;
    }, 20_000);
    expect(items.map((i) => [i.id, i.schedule_id])).toEqual([[got!.headers['service-request-id'], s.id]]);
    expect(new Set(dest.requestsTo(p).map((r) => r.headers['service-request-id'])).size).toBe(1);
    expect((await schedules.remove(s.id)).status).toBe(204);
  }, 150_000);

  it('an occurrence over the monthly allowance is skipped: no request, last_run_outcome skipped_usage_limit, next_run_at moves on', async () => {
    const { api, schedules } = await scheduleProject(f, { monthlyAllowance: 1 });
    expect((await api.send({ url: `${dest.url}/allowance` })).status).toBe(202);
    expectError(await api.send({ url: `${dest.url}/allowance` }), 429, 'MONTHLY_ALLOWANCE_EXCEEDED');
    const p = path();
    const startsAt = secondsAhead(3000);
    const s = await schedules.created({ name: 'over the allowance', timing: interval(60, startsAt), request: { url: `${dest.url}${p}`, body: { n: 1 } } });

    const after = await afterRun(schedules, s.id, 60_000);
    expect(after).toMatchObject({ status: 'active', last_run_outcome: 'skipped_usage_limit' });
    expect(at(after.last_run_at)).toBe(Date.parse(startsAt));
    expect(at(after.next_run_at)).toBe(Date.parse(startsAt) + MINUTE);
    expect(await recurring(api)).toEqual([]);
    expect((await api.call<{ items: unknown[] }>('GET', '/requests')).body.data.items).toHaveLength(1);
    expect(dest.requestsTo(p)).toEqual([]);
    expect((await schedules.remove(s.id)).status).toBe(204);
  }, 120_000);

  it('a paused or deleted schedule does not fire, and resuming after a missed run does not catch up', async () => {
    const { api, schedules } = await scheduleProject(f);
    // Beyond the lead (occurrences are enqueued 10 s ahead), so the pause and the delete come before anything is.
    const startsAt = secondsAhead(15_000);
    const [pausedPath, deletedPath, probePath, laterPath] = [path(), path(), path(), path()];
    const define = (name: string, p: string, start = startsAt) => ({ name, timing: interval(60, start), request: { url: `${dest.url}${p}` } });
    const paused = await schedules.created(define('paused', pausedPath));
    const deleted = await schedules.created(define('deleted', deletedPath));
    expect((await schedules.pause(paused.id)).status).toBe(200);
    expect((await schedules.remove(deleted.id)).status).toBe(204);
    // A probe due a second after both: once it has fired, both would have.
    const probe = await schedules.created(define('probe', probePath, iso(Date.parse(startsAt) + 1000)));
    await dest.waitForRequests(probePath, 1, 60_000);
    expect(dest.requestsTo(pausedPath)).toEqual([]);
    expect(dest.requestsTo(deletedPath)).toEqual([]);
    expect(await schedules.detail(paused.id)).toMatchObject({ status: 'paused', next_run_at: null, last_run_at: null, last_run_outcome: null });
    expect(await schedules.ids()).toEqual([probe.id, paused.id]);

    const before = Date.now();
    const resumed = await schedules.resume(paused.id);
    expect(resumed.status).toBe(200);
    expect(resumed.body.data.status).toBe('active');
    const next = at(resumed.body.data.next_run_at);
    expect(next).toBeGreaterThan(before);
    expect(next).toBeLessThanOrEqual(Date.now() + MINUTE);
    expect((next - Date.parse(startsAt)) % MINUTE).toBe(0);

    // A delayed request sent now arrives after the missed run would have been caught up; nothing came before `next`.
    expect((await api.send({ url: `${dest.url}${laterPath}`, delay: '2s' })).status).toBe(202);
    await dest.waitForRequests(laterPath, 1, 30_000);
    expect(dest.requestsTo(pausedPath).filter((r) => r.receivedAt < next)).toEqual([]);
    const detail = await schedules.detail(paused.id);
    if (detail.last_run_at !== null) expect(at(detail.last_run_at)).toBeGreaterThanOrEqual(next);
    expect((await recurring(api)).filter((r) => r.schedule_id === paused.id && Date.parse(r.created_at) < next)).toEqual([]);

    for (const id of [paused.id, probe.id]) expect((await schedules.remove(id)).status).toBe(204);
  }, 120_000);

  it('a pause cancels an occurrence already enqueued ahead of its instant, and nothing is delivered', async () => {
    const { api, schedules } = await scheduleProject(f);
    const [p, probePath] = [path(), path()];
    const startsAt = secondsAhead(6000);
    const s = await schedules.created({ name: 'enqueued ahead', timing: interval(60, startsAt), request: { url: `${dest.url}${p}` } });
    // Within the lead: the occurrence is enqueued at once, as a request scheduled for its instant.
    const enqueued = await afterRun(schedules, s.id, 30_000);
    expect(enqueued).toMatchObject({ last_run_outcome: 'enqueued' });
    expect(at(enqueued.last_run_at)).toBe(Date.parse(startsAt));
    const [request] = (await recurring(api)).filter((r) => r.schedule_id === s.id);
    const ahead = await api.call<{ status: string; scheduled_at: string }>('GET', `/requests/${request!.id}`);
    expect(ahead.body.data).toMatchObject({ status: 'scheduled', scheduled_at: new Date(Date.parse(startsAt)).toISOString() });

    expect((await schedules.pause(s.id)).status).toBe(200);
    expect((await api.call<{ status: string }>('GET', `/requests/${request!.id}`)).body.data.status).toBe('cancelled');
    // A request due a second after the instant: once it has arrived, the occurrence would have too.
    expect((await api.send({ url: `${dest.url}${probePath}`, deliver_at: iso(Date.parse(startsAt) + 1000) })).status).toBe(202);
    await dest.waitForRequests(probePath, 1, 30_000);
    expect(dest.requestsTo(p)).toEqual([]);
    expect((await schedules.remove(s.id)).status).toBe(204);
  }, 60_000);
});
