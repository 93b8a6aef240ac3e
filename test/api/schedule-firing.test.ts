import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredRequest } from '../../src/domain/request.js';
import { isWithdrawn } from '../../src/domain/schedule/enqueued-ahead.js';
import type { Backend } from '../../src/ports/backend.js';
import { eventually, type Api } from '../support/api-client.js';
import { sharedSelfSignedCertificate } from '../support/certs.js';
import { openTestBackend } from '../support/deployment.js';
import { startDestination, type Destination } from '../support/destination.js';
import { useFerry } from '../support/fixture.js';
import { expectOneRequestPerOccurrence, recurringRequests } from '../support/occurrences.js';
import { at, cron, expectError, interval, iso, scheduleProject, secondsAhead, type Schedules, type ScheduleDetail } from '../support/schedule-client.js';

interface RequestSummary {
  id: string;
  schedule_id: string | null;
  url: string;
  method: string;
  created_at: string;
}

const MINUTE = 60_000;
/**
 * How long before its instant an occurrence is enqueued here: set, not left to the default, so that an occurrence
 * due `AHEAD_MS` after its schedule is created is surely enqueued at once, and stays ahead of its instant for
 * seconds, long enough to look at it through the API on either backend.
 */
const LEAD_MS = 20_000;
const AHEAD_MS = 8_000;

// Real time: occurrences fire on the wall clock, so these tests wait for them (with deadlines, never fixed sleeps).
// Each test has a project, schedules and destination paths of its own, and most of its time is spent waiting for an
// instant: the cron test for the next minute boundary (up to a minute), the pause test for its instant 15 s away.
// So three lanes run side by side: the cron test, the pause test, and the rest one at a time (those look at an
// occurrence within seconds of its instant, and stay clear of one another's load).
describe.concurrent('schedule firing (delivery on)', () => {
  const certificate = sharedSelfSignedCertificate();
  const f = useFerry({
    env: {
      FERRY_ROLES: 'api,delivery',
      FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true',
      FERRY_DELIVERY_CA_FILE: certificate.certFile,
      FERRY_SCHEDULE_LEAD_MS: String(LEAD_MS),
    },
  });
  let dest: Destination;
  /** The server's storage, read behind the API: where an occurrence enqueued ahead can be seen before its instant. */
  let storage: Backend;
  let n = 0;
  const path = () => `/fire${++n}`;

  beforeAll(async () => {
    dest = await startDestination({ certificate });
    storage = await openTestBackend(f.ferry.dataDir);
  });
  afterAll(async () => {
    await storage?.close();
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
  /** The request of `scheduleId`'s occurrence once the scheduler has enqueued it: in storage, ahead of its instant. */
  function enqueuedAhead(projectId: string, scheduleId: string): Promise<StoredRequest> {
    return eventually(async () => (await recurringRequests(storage, projectId)).get(scheduleId)?.[0], 30_000);
  }

  /** The requests `GET /requests?schedule_id=` lists for a schedule. */
  async function listedFor(api: Api, scheduleId: string): Promise<RequestSummary[]> {
    const res = await api.call<{ items: RequestSummary[] }>('GET', `/requests?schedule_id=${scheduleId}`);
    expect(res.status).toBe(200);
    return res.body.data.items;
  }

  /** Asserts that the API shows nothing of request `id`: it is in no list, and reading, cancelling or replaying it is a 404. */
  async function expectHidden(api: Api, id: string): Promise<void> {
    for (const query of ['', '?source=recurring', `?search=${id}`]) {
      const res = await api.call<{ items: RequestSummary[] }>('GET', `/requests${query}`);
      expect(res.status).toBe(200);
      expect(res.body.data.items.map((i) => i.id), `GET /requests${query}`).not.toContain(id);
    }
    for (const [method, suffix] of [['GET', ''], ['GET', '/attempts'], ['POST', '/cancel'], ['POST', '/replay']] as const) {
      expectError(await api.call(method, `/requests/${id}${suffix}`), 404, 'NOT_FOUND');
    }
  }

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

  it('a paused or deleted schedule does not fire, and resuming after a missed run does not catch up', async () => {
    const { api, schedules } = await scheduleProject(f);
    // Within the lead, so both may be enqueued ahead already: the pause and the delete come before their instant
    // all the same, and withdraw them (see below).
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

  describe('one at a time, each a few seconds from its instant', () => {
    it.sequential('an interval occurrence creates an ordinary request, delivered as a JSON POST with the schedule\'s body, headers and Service-Schedule-Id', async () => {
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

    it.sequential('an occurrence over the monthly allowance is skipped: no request, last_run_outcome skipped_usage_limit, next_run_at moves on', async () => {
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

    it.sequential('an occurrence enqueued ahead is no run before its instant: not listed, not readable, not the last run; from its instant on it is', async () => {
      const { api, schedules, projectId } = await scheduleProject(f);
      const p = path();
      const startsAt = secondsAhead(AHEAD_MS);
      const t1 = Date.parse(startsAt);
      const s = await schedules.created({ name: 'ahead', timing: interval(60, startsAt), request: { url: `${dest.url}${p}`, body: { n: 1 } } });

      const r = await enqueuedAhead(projectId, s.id);
      await expectHidden(api, r.id);
      expect(await listedFor(api, s.id)).toEqual([]);
      const before = await schedules.detail(s.id);
      expect(before).toMatchObject({ status: 'active', last_run_at: null, last_run_outcome: null });
      expect(at(before.next_run_at)).toBe(t1);
      const summary = (await schedules.list()).body.data.find((x) => x.id === s.id);
      expect(summary).toMatchObject({ last_run_at: null, last_run_outcome: null, next_run_at: before.next_run_at });
      // All of that was seen before the instant, while the occurrence's request existed in storage, created as of its
      // instant: the very request the scheduler would have made then.
      expect(Date.now()).toBeLessThan(t1);
      expect(r).toMatchObject({ createdAt: t1, dueAt: t1, status: 'queued', scheduledAt: null });

      const [got] = await dest.waitForRequests(p, 1, 60_000);
      expect(got!.headers['service-request-id']).toBe(r.id);
      expect(got!.receivedAt).toBeGreaterThanOrEqual(t1);
      expect((await listedFor(api, s.id)).map((i) => [i.id, at(i.created_at)])).toEqual([[r.id, t1]]);
      expect((await api.call('GET', `/requests/${r.id}`)).status).toBe(200);
      const after = await afterRun(schedules, s.id, 20_000);
      expect(after.last_run_outcome).toBe('enqueued');
      expect(at(after.last_run_at)).toBe(t1);
      expect(at(after.next_run_at)).toBe(t1 + MINUTE);
      expect((await schedules.remove(s.id)).status).toBe(204);
    }, 90_000);

    it.sequential('a pause or a delete before the instant withdraws an occurrence enqueued ahead: nothing of it shows, ever, nothing is delivered, its allowance is given back', async () => {
      // An allowance of two, which the two occurrences enqueued ahead take until they are withdrawn.
      const { api, schedules, projectId } = await scheduleProject(f, { monthlyAllowance: 2 });
      const [pausedPath, deletedPath, probePath] = [path(), path(), path()];
      const startsAt = secondsAhead(AHEAD_MS);
      const t1 = Date.parse(startsAt);
      const define = (name: string, p: string) => ({ name, timing: interval(60, startsAt), request: { url: `${dest.url}${p}` } });
      const paused = await schedules.created(define('paused', pausedPath));
      const deleted = await schedules.created(define('deleted', deletedPath));
      const withdrawn = [await enqueuedAhead(projectId, paused.id), await enqueuedAhead(projectId, deleted.id)];
      expectError(await api.send({ url: `${dest.url}${probePath}` }), 429, 'MONTHLY_ALLOWANCE_EXCEEDED');

      const pause = await schedules.pause(paused.id);
      expect(pause.status).toBe(200);
      expect(pause.body.data).toMatchObject({ status: 'paused', next_run_at: null, last_run_at: null, last_run_outcome: null });
      expect((await schedules.remove(deleted.id)).status).toBe(204);
      expect(Date.now()).toBeLessThan(t1);
      for (const r of withdrawn) expect(isWithdrawn((await storage.requests.get(projectId, r.id))!)).toBe(true);

      // Both units are back: two requests due a second after the instant are accepted, a third one is not.
      for (let i = 0; i < 2; i++) expect((await api.send({ url: `${dest.url}${probePath}`, deliver_at: iso(t1 + 1000) })).status).toBe(202);
      expectError(await api.send({ url: `${dest.url}${probePath}` }), 429, 'MONTHLY_ALLOWANCE_EXCEEDED');
      // Once they have arrived, the occurrences would have too.
      await dest.waitForRequests(probePath, 2, 60_000);
      expect(dest.requestsTo(pausedPath)).toEqual([]);
      expect(dest.requestsTo(deletedPath)).toEqual([]);
      for (const r of withdrawn) await expectHidden(api, r.id);
      for (const id of [paused.id, deleted.id]) expect(await listedFor(api, id)).toEqual([]);
      expect((await api.call<{ items: RequestSummary[] }>('GET', '/requests')).body.data.items).toHaveLength(2);
      expect(await schedules.detail(paused.id)).toMatchObject({ status: 'paused', next_run_at: null, last_run_at: null, last_run_outcome: null });
      expect((await schedules.remove(paused.id)).status).toBe(204);
    }, 90_000);

    it.sequential('an update before the instant applies to an occurrence enqueued ahead: it is delivered once, at its instant, as updated', async () => {
      const { api, schedules, projectId } = await scheduleProject(f);
      const p = path();
      const startsAt = secondsAhead(AHEAD_MS);
      const t1 = Date.parse(startsAt);
      const s = await schedules.created({ name: 'updated', timing: interval(60, startsAt), request: { url: `${dest.url}${p}`, body: { v: 1 } } });
      const first = await enqueuedAhead(projectId, s.id);

      const patched = await schedules.patch(s.id, { request: { url: `${dest.url}${p}`, body: { v: 2 }, headers: { 'X-Version': '2' } } });
      expect(patched.status).toBe(200);
      expect(patched.body.data).toMatchObject({ last_run_at: null, last_run_outcome: null });
      expect(at(patched.body.data.next_run_at)).toBe(t1);
      expect(Date.now()).toBeLessThan(t1);
      expect(isWithdrawn((await storage.requests.get(projectId, first.id))!)).toBe(true);

      const [got] = await dest.waitForRequests(p, 1, 60_000);
      expect(got!.receivedAt).toBeGreaterThanOrEqual(t1);
      expect(JSON.parse(got!.body.toString('utf8'))).toEqual({ v: 2 });
      expect(got!.headers['x-version']).toBe('2');
      const id = got!.headers['service-request-id']!;
      expect(id).not.toBe(first.id);
      const after = await afterRun(schedules, s.id, 20_000);
      expect(after.last_run_outcome).toBe('enqueued');
      expect(at(after.last_run_at)).toBe(t1);
      expect((await listedFor(api, s.id)).map((i) => [i.id, at(i.created_at)])).toEqual([[id, t1]]);
      await expectHidden(api, first.id);
      // One request for the occurrence, the one fired under the schedule's new revision; one delivery.
      expect(await expectOneRequestPerOccurrence(storage, projectId, s.id, [t1])).toEqual([id]);
      expect(new Set(dest.requestsTo(p).map((r) => r.headers['service-request-id']))).toEqual(new Set([id]));
      expect((await schedules.remove(s.id)).status).toBe(204);
    }, 90_000);
  });
});
