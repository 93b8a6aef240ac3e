import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AcceptRequests } from '../../src/app/accept-requests.js';
import { AllowanceLeases } from '../../src/app/allowance-leases.js';
import { IdempotencyGuard } from '../../src/app/idempotency-guard.js';
import { ProjectAdmin } from '../../src/app/project-admin.js';
import { ScheduleOccurrences } from '../../src/app/schedule-occurrences.js';
import { ScheduleRunCommands } from '../../src/app/schedule-run-commands.js';
import { systemClock } from '../../src/domain/clock.js';
import { newScheduleId } from '../../src/domain/ids.js';
import { DEFAULT_SCHEDULE_POLICY } from '../../src/domain/schedule/policy.js';
import { EMPTY_RUN_STATE } from '../../src/domain/schedule/runs.js';
import type { StoredSchedule } from '../../src/domain/schedule/schedule.js';
import type { Backend } from '../../src/ports/backend.js';
import { Api, eventually, type ApiResponse } from '../support/api-client.js';
import { sharedSelfSignedCertificate } from '../support/certs.js';
import { openTestBackend, prepareStorage, TEST_BACKEND } from '../support/deployment.js';
import { replies, startDestination, type Destination } from '../support/destination.js';
import { createProject, newDataDir, startFerry } from '../support/ferry-process.js';
import { useFerry } from '../support/fixture.js';
import { recurringRequests, withStorage } from '../support/occurrences.js';
import { at, expectError, interval, iso, newKey, scheduleProject, secondsAhead, Schedules, type ScheduleDetail } from '../support/schedule-client.js';

/**
 * The policy as schedules fire for real, on the wall clock (waits with deadlines, never fixed sleeps), against a
 * destination on loopback that answers slowly or fails; and trigger and backfill exactly once across kill -9 and two
 * connections racing on one storage.
 *
 * The two groups below have a server, deployments and destinations of their own: they run side by side, the second
 * group's tests one at a time, while the first waits for a slow delivery to outlast an interval.
 */

const MINUTE = 60_000;
/** Longer than an interval: the first occurrence's request is still being delivered when the second is due. */
const SLOW_MS = 75_000;

interface RequestSummary {
  id: string;
  created_at: string;
  completed_at: string | null;
  status: string;
}

async function requestsOf(api: Api, scheduleId: string): Promise<RequestSummary[]> {
  const res = await api.call<{ items: RequestSummary[] }>('GET', `/requests?schedule_id=${scheduleId}&limit=100`);
  expect(res.status).toBe(200);
  return res.body.data.items.reverse();
}

describe.concurrent(`the schedule policy at firing (${TEST_BACKEND})`, () => {
  const certificate = sharedSelfSignedCertificate();
  const f = useFerry({
    env: { FERRY_ROLES: 'api,delivery', FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true', FERRY_DELIVERY_CA_FILE: certificate.certFile },
  });
  let dest: Destination;
  beforeAll(async () => {
    dest = await startDestination({ certificate });
    dest.on('/slow-skip', replies.delayedHeaders(SLOW_MS));
    dest.on('/slow-buffer', replies.delayedHeaders(SLOW_MS));
    dest.on('/fails', replies.status(500));
  });
  afterAll(async () => {
    await dest?.close();
  });

  function when(schedules: Schedules, id: string, done: (d: ScheduleDetail) => boolean, deadlineMs: number): Promise<ScheduleDetail> {
    return eventually(async () => {
      const d = await schedules.detail(id);
      return done(d) ? d : undefined;
    }, deadlineMs);
  }

  it('skip, buffer_one, pause after failures and max_runs, each against its destination', async () => {
    const { api, schedules } = await scheduleProject(f);
    // Five schedules are created for this instant, beside the other lane's processes: under that load the creates
    // took more than 5 s, and a start in the past is refused.
    const startsAt = secondsAhead(15_000);
    const t1 = Date.parse(startsAt);
    const make = (name: string, path: string, policy: Record<string, unknown>) =>
      schedules.created({ name, timing: interval(60, startsAt), request: { url: `${dest.url}${path}`, timeout: '2m' }, policy });
    const skip = await make('skip', '/slow-skip', { overlap: 'skip' });
    const buffer = await make('buffer', '/slow-buffer', { overlap: 'buffer_one' });
    const failing = await make('failing', '/fails', { pause_after_failures: 1 });
    const once = await make('once', '/ok', { max_runs: 1 });
    const jittered = await make('jittered', '/jittered', { jitter_seconds: 30 });
    // Jitter: next_run_at is the instant plus this schedule's delay, the same on every read.
    const firesAt = at(jittered.next_run_at);
    expect(firesAt).toBeGreaterThanOrEqual(t1);
    expect(firesAt).toBeLessThan(t1 + 30_000);
    expect(at((await schedules.detail(jittered.id)).next_run_at)).toBe(firesAt);

    // max_runs 1: ended after its first occurrence, no next run; it can be neither resumed nor triggered.
    const ended = await when(schedules, once.id, (d) => d.status === 'ended' && d.last_run_at !== null, 30_000);
    expect(ended).toMatchObject({ next_run_at: null, last_run_outcome: 'enqueued', pause_reason: null });
    expect(at(ended.last_run_at)).toBe(t1);
    expectError(await schedules.resume(once.id), 409, 'SCHEDULE_ENDED');
    expectError(await api.call('POST', `/schedules/${once.id}/trigger`, { headers: { 'idempotency-key': newKey() } }), 409, 'SCHEDULE_ENDED');

    // The jittered occurrence's request is due at the time shown, arrives no earlier, and the run keeps its instant.
    const [arrived] = await dest.waitForRequests('/jittered', 1, MINUTE);
    expect(arrived!.receivedAt).toBeGreaterThanOrEqual(firesAt);
    const [jitteredRequest] = await requestsOf(api, jittered.id);
    const scheduledAt = (await api.call<{ scheduled_at: string }>('GET', `/requests/${jitteredRequest!.id}`)).body.data.scheduled_at;
    expect(at(scheduledAt)).toBe(firesAt);
    expect((await schedules.detail(jittered.id)).recent_runs.map((r) => at(r.run_at))).toEqual([t1]);

    // pause_after_failures 1: its first request failed, so the second occurrence is not fired; it pauses instead.
    const paused = await when(schedules, failing.id, (d) => d.status === 'paused', 2 * MINUTE);
    expect(paused).toMatchObject({ pause_reason: 'failures', next_run_at: null });
    expect(await requestsOf(api, failing.id)).toMatchObject([{ status: 'failed' }]);
    expect(paused.recent_runs.map((r) => [r.outcome, r.request_status])).toEqual([['enqueued', 'failed']]);

    // skip: the second occurrence finds the first request still being delivered, and creates nothing.
    const skipped = await when(schedules, skip.id, (d) => d.last_run_outcome === 'skipped_overlap', 2 * MINUTE);
    expect(at(skipped.last_run_at)).toBe(t1 + MINUTE);
    expect(skipped.run_counts).toMatchObject({ enqueued: 1, skipped_overlap: 1 });
    expect(skipped.recent_runs.map((r) => r.outcome)).toEqual(['skipped_overlap', 'enqueued']);
    expect(await requestsOf(api, skip.id)).toHaveLength(1);

    // buffer_one: the second occurrence waits while the first request is delivered, then is created, once.
    await when(schedules, buffer.id, (d) => at(d.next_run_at) === t1 + 2 * MINUTE, 30_000);
    expect(await requestsOf(api, buffer.id)).toHaveLength(1);
    const [first, second] = await eventually(async () => {
      const made = await requestsOf(api, buffer.id);
      return made.length === 2 ? made : undefined;
    }, SLOW_MS);
    const firstDone = await eventually(async () => {
      const r = (await requestsOf(api, buffer.id))[0]!;
      return r.completed_at ?? undefined;
    }, 10_000);
    expect(first!.id).not.toBe(second!.id);
    // Created once the first had ended, not at its own instant.
    expect(Date.parse(second!.created_at)).toBeGreaterThanOrEqual(Date.parse(firstDone));
    // The schedule records the run just after its request is stored.
    const after = await when(schedules, buffer.id, (d) => d.run_counts.enqueued === 2, 10_000);
    expect(after.run_counts).toMatchObject({ enqueued: 2, skipped_overlap: 0 });
    expect(after.recent_runs.map((r) => [r.outcome, at(r.run_at)])).toEqual([
      ['enqueued', t1 + MINUTE],
      ['enqueued', t1],
    ]);
  }, 5 * MINUTE);
});

describe.concurrent(`trigger and backfill exactly once across kill -9 and racing connections (${TEST_BACKEND})`, () => {
  let dest: Destination;
  beforeAll(async () => {
    dest = await startDestination();
  });
  afterAll(async () => {
    await dest?.close();
  });
  const env = () => ({ FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true', FERRY_DELIVERY_CA_FILE: dest.certFile, FERRY_AUTH_CACHE_MS: '0', FERRY_ROLES: 'api' });

  /** A minutely interval's range of `count` whole past instants, ending a minute before its first run. */
  function pastRange(s: { next_run_at: string | null }, count: number): { from: string; to: string; instants: number[] } {
    const to = at(s.next_run_at) - 2 * MINUTE;
    const from = to - count * MINUTE;
    return { from: iso(from), to: iso(to), instants: Array.from({ length: count }, (_, k) => from + k * MINUTE) };
  }

  it.sequential('killed in the middle of a 1,000-instant backfill: the retry creates the rest, each instant once', async () => {
    const dataDir = newDataDir();
    const ferry = await startFerry({ dataDir, env: env() });
    const { projectId, apiKey } = await createProject(dataDir);
    const api = new Api(ferry.baseUrl, apiKey);
    const schedules = new Schedules(api);
    const s = await schedules.created({ name: 'backfilled', timing: interval(60, secondsAhead(90_000)), request: { url: `${dest.url}/bf` } });
    const range = pastRange(s, 1000);
    const call = (a: Api) => a.call<{ occurrences: number }>('POST', `/schedules/${s.id}/backfill`, { json: { from: range.from, to: range.to }, headers: { 'idempotency-key': 'bf-1' } });

    const cut = call(api).catch(() => null);
    await withStorage(dataDir, async (b) => {
      await eventually(async () => (((await recurringRequests(b, projectId)).get(s.id)?.length ?? 0) > 0 ? true : undefined), 60_000);
      await ferry.kill();
    });
    await cut;
    const before = await withStorage(dataDir, async (b) => (await recurringRequests(b, projectId)).get(s.id)?.length ?? 0);
    console.info(`killed with ${before} of 1000 backfilled requests stored`);

    const again = await startFerry({ dataDir, env: env() });
    try {
      const retried = new Api(again.baseUrl, apiKey);
      // The dead call's claims are taken over once their lease runs out; until then the retry is told to retry.
      const done: ApiResponse<{ occurrences: number }> = await eventually(async () => {
        const res = await call(retried);
        return res.status === 409 ? undefined : res;
      }, 2 * MINUTE);
      expect(done.status, JSON.stringify(done.body)).toBe(202);
      expect(done.body.data.occurrences).toBeLessThanOrEqual(1000 - before);
      expect((await call(retried)).body.data).toEqual({ occurrences: 0 });
      const made = await withStorage(dataDir, async (b) => (await recurringRequests(b, projectId)).get(s.id) ?? []);
      expect(made).toHaveLength(1000);
      expect(new Set(made.map((r) => r.id)).size).toBe(1000);
      // Counted once each, those the killed call created included.
      expect((await new Schedules(retried).detail(s.id)).run_counts.backfilled).toBe(1000);
    } finally {
      await again.stop();
    }
  }, 4 * MINUTE);

  it.sequential('killed while a trigger is answered: its retry with the same key answers the one request there is', async () => {
    const dataDir = newDataDir();
    const ferry = await startFerry({ dataDir, env: env() });
    const { projectId, apiKey } = await createProject(dataDir);
    const api = new Api(ferry.baseUrl, apiKey);
    const s = await new Schedules(api).created({ name: 'triggered', timing: interval(3600, secondsAhead(90_000)), request: { url: `${dest.url}/tr` } });
    const call = (a: Api) => a.call<{ id: string }>('POST', `/schedules/${s.id}/trigger`, { headers: { 'idempotency-key': 'tr-1' } });

    // Killed as the call arrives: whether the request was stored before the kill or not, the retry settles it.
    const cut = call(api).catch(() => null);
    await ferry.kill();
    await cut;
    const again = await startFerry({ dataDir, env: env() });
    try {
      const retried = new Api(again.baseUrl, apiKey);
      const done: ApiResponse<{ id: string }> = await eventually(async () => {
        const res = await call(retried);
        return res.status === 409 ? undefined : res;
      }, 2 * MINUTE);
      expect(done.status, JSON.stringify(done.body)).toBe(202);
      expect((await call(retried)).body.data.id).toBe(done.body.data.id);
      const made = await withStorage(dataDir, async (b) => (await recurringRequests(b, projectId)).get(s.id) ?? []);
      expect(made.map((r) => r.id)).toEqual([done.body.data.id]);
    } finally {
      await again.stop();
    }
  }, 4 * MINUTE);

  it.sequential('two connections to one storage backfilling the same range, then triggering with one key, at once: one request per instant and one trigger between them', async () => {
    const dataDir = newDataDir();
    await prepareStorage(dataDir);
    const backends: Backend[] = [await openTestBackend(dataDir), await openTestBackend(dataDir)];
    const leases: AllowanceLeases[] = [];
    try {
      const { project } = await new ProjectAdmin(backends[0]!.projects, systemClock).createProject({ name: 'race' });
      const firstRun = Math.ceil((Date.now() + MINUTE) / MINUTE) * MINUTE;
      const schedule: StoredSchedule = {
        id: newScheduleId(Date.now()),
        projectId: project.id,
        name: 'raced',
        timing: { type: 'interval', everySeconds: 60, startsAt: firstRun, firstRunAt: firstRun, endsAt: null },
        status: 'active',
        pauseReason: null,
        policy: DEFAULT_SCHEDULE_POLICY,
        runs: EMPTY_RUN_STATE,
        request: { url: `${dest.url}/race`, headers: [], body: null, retry: 0, flowKeys: [], queue: 'default', timeoutSeconds: 50, metadata: {} },
        nextRunAt: firstRun,
        lastRunAt: null,
        lastRunOutcome: null,
        previousRunAt: null,
        previousRunOutcome: null,
        createdAt: Date.now(),
        updatedAt: Date.now(),
        version: 1,
      };
      await backends[0]!.schedules.insert(schedule);
      const range = pastRange({ next_run_at: iso(firstRun) }, 300);
      const commands = backends.map((b) => {
        const allowance = new AllowanceLeases(b.usage);
        leases.push(allowance);
        const guard = new IdempotencyGuard(b.idempotency, systemClock);
        const occurrences = new ScheduleOccurrences(new AcceptRequests(b.requests, allowance, guard, systemClock), b.projects, systemClock);
        return new ScheduleRunCommands(b, occurrences, systemClock);
      });
      const created = await Promise.all(commands.map((c, n) => c.backfill(project, schedule.id, { from: range.from, to: range.to }, `race-${n}`)));
      expect(created[0]! + created[1]!).toBe(300);

      const made = (await recurringRequests(backends[1]!, project.id)).get(schedule.id) ?? [];
      expect(made).toHaveLength(300);
      expect(new Set(made.map((r) => r.id)).size).toBe(300);
      const stored = await backends[0]!.schedules.get(project.id, schedule.id);
      expect(stored!.runs.counts.backfilled).toBe(300);
      expect(stored!.runs.backfilled).toEqual([[Date.parse(range.from), Date.parse(range.to)]]);

      // A trigger sent twice at once with one key, over both connections: one request, counted once.
      const triggered = await Promise.all(commands.map((c) => c.trigger(project, schedule.id, 'race-trigger')));
      expect(triggered[1]!.id).toBe(triggered[0]!.id);
      const all = (await recurringRequests(backends[0]!, project.id)).get(schedule.id) ?? [];
      expect(all.filter((r) => !made.some((m) => m.id === r.id)).map((r) => r.id)).toEqual([triggered[0]!.id]);
      expect((await backends[1]!.schedules.get(project.id, schedule.id))!.runs.counts.triggered).toBe(1);
    } finally {
      for (const l of leases) await l.releaseAll();
      for (const b of backends) await b.close();
    }
  }, 3 * MINUTE);
});
