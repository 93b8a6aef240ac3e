import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SCHEDULE_POLICY } from '../../src/domain/schedule/policy.js';
import { EMPTY_RUN_STATE } from '../../src/domain/schedule/runs.js';
import { IdempotencyGuard } from '../../src/app/idempotency-guard.js';
import { ProjectAdmin } from '../../src/app/project-admin.js';
import { ScheduleCommands } from '../../src/app/schedule-commands.js';
import { systemClock } from '../../src/domain/clock.js';
import { newScheduleId } from '../../src/domain/ids.js';
import type { StoredSchedule } from '../../src/domain/schedule/schedule.js';
import type { ScheduleStore } from '../../src/ports/schedules.js';
import type { SchedulerEvent } from '../../src/workers/scheduler/events.js';
import { Api, eventually } from '../support/api-client.js';
import { openTestBackend, prepareStorage, TEST_BACKEND } from '../support/deployment.js';
import { startDestination, type Destination } from '../support/destination.js';
import { createProject, newDataDir, startFerry, type FerryProcess } from '../support/ferry-process.js';
import {
  diesBeforeRecording,
  expectOneRequestPerOccurrence,
  firingWorker,
  occurrenceRequestIds,
  recurringRequests,
  revisionOf,
  rewrite,
  schedulerLog,
  withStorage,
} from '../support/occurrences.js';
import { at, interval, iso, Schedules, secondsAhead, type ScheduleDetail } from '../support/schedule-client.js';

/**
 * Every occurrence makes exactly one request, whatever happens to the processes firing it: killed with SIGKILL
 * right after firing (or between storing the request and moving the schedule on), two processes firing the same
 * storage at once, or down over several occurrences (the latest fires if at most 12 h old, none older).
 * Real time: these wait for occurrences on the wall clock, with deadlines, never fixed sleeps.
 *
 * Every test has a deployment (data directory, storage, processes) and destination paths of its own, so three lanes
 * run side by side: the first test, which waits a minute for a second occurrence, and two groups run one test at a
 * time, restarts after a kill or a downtime, and races.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe.concurrent(`schedule occurrences across crashes, races and downtime (${TEST_BACKEND})`, () => {
  let dest: Destination;
  beforeAll(async () => {
    dest = await startDestination();
  });
  afterAll(async () => {
    await dest?.close();
  });

  const env = () => ({
    FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true',
    FERRY_DELIVERY_CA_FILE: dest.certFile,
    FERRY_AUTH_CACHE_MS: '0',
  });

  /** A fresh deployment with one project and a running `ferry serve` (API and delivery). */
  async function deployment(): Promise<{ dataDir: string; ferry: FerryProcess; projectId: string; apiKey: string; schedules: Schedules }> {
    const dataDir = newDataDir();
    const ferry = await startFerry({ dataDir, env: env() });
    const { projectId, apiKey } = await createProject(dataDir);
    return { dataDir, ferry, projectId, apiKey, schedules: new Schedules(new Api(ferry.baseUrl, apiKey)) };
  }

  /** The schedule once `done` holds for it. */
  function scheduleWhen(schedules: Schedules, id: string, done: (d: ScheduleDetail) => boolean, deadlineMs = 60_000): Promise<ScheduleDetail> {
    return eventually(async () => {
      const d = await schedules.detail(id);
      return done(d) ? d : undefined;
    }, deadlineMs);
  }

  it('kill -9 as soon as an occurrence\'s request exists: after restart that occurrence has one request, and the next one fires once', async () => {
    const { dataDir, ferry, projectId, apiKey, schedules } = await deployment();
    const path = '/crash-after-firing';
    const startsAt = secondsAhead(4000);
    const t1 = Date.parse(startsAt);
    const s = await schedules.created({ name: 'killed', timing: interval(60, startsAt), request: { url: `${dest.url}${path}`, body: { n: 1 } } });

    // Polled in storage, where the request exists from its firing, ahead of its instant (the API shows it only from
    // then on): the kill lands within milliseconds of the request being stored.
    await withStorage(dataDir, async (b) => {
      await eventually(async () => ((await recurringRequests(b, projectId)).has(s.id) ? true : undefined), 60_000);
      await ferry.kill();
    });
    // Where the kill landed, for the record: before or after the occurrence's outcome and the schedule's move.
    const [left, record] = await withStorage(dataDir, async (b) => [await b.schedules.get(projectId, s.id), await occurrenceRequestIds(b, revisionOf(s), t1)] as const);
    console.info(`killed with the occurrence ${record?.length ? 'recorded' : 'not yet recorded'}, the schedule ${left?.nextRunAt === t1 ? 'not yet moved on' : 'moved on'}`);

    const again = await startFerry({ dataDir, env: env() });
    const log = schedulerLog((f) => again.followOutput(f));
    try {
      const after = new Schedules(new Api(again.baseUrl, apiKey));
      const first = await scheduleWhen(after, s.id, (d) => d.last_run_at !== null && at(d.last_run_at) >= t1);
      expect(at(first.last_run_at)).toBe(t1);
      const second = await scheduleWhen(after, s.id, (d) => at(d.last_run_at) >= t1 + MINUTE, 90_000);
      expect(at(second.last_run_at)).toBe(t1 + MINUTE);
      expect(second.last_run_outcome).toBe('enqueued');

      const ids = await withStorage(dataDir, (b) => expectOneRequestPerOccurrence(b, projectId, s.id, [t1, t1 + MINUTE]));
      // Both were delivered; a delivery cut by the kill may be repeated, but no other request ever arrives.
      await eventually(async () => (ids.every((id) => dest.requestsTo(path).some((r) => r.headers['service-request-id'] === id)) ? true : undefined), 60_000);
      // Paused only once the second was delivered: a pause cancels an occurrence enqueued ahead of its instant.
      expect((await after.pause(s.id)).status).toBe(200);
      expect(new Set(dest.requestsTo(path).map((r) => r.headers['service-request-id']))).toEqual(new Set(ids));
      // A kill that lands between the occurrence's claim and its outcome leaves the claim open until its lease runs
      // out: the restart reports the occurrence as still in progress meanwhile, and nothing else.
      for (const line of log.errors) expect(line).toContain('still in progress');
    } finally {
      await again.stop();
    }
  }, 240_000);

  describe('restarted after a kill or a downtime', () => {
    it.sequential('killed after the request was stored but before the schedule moved on: the restart fires that occurrence again and finds its request', async () => {
      const { dataDir, ferry, projectId, schedules } = await deployment();
      const startsAt = secondsAhead(3000);
      const t1 = Date.parse(startsAt);
      // Every 10 minutes: the restart comes long before the next occurrence, so the same one is due again.
      const s = await schedules.created({ name: 'window', timing: interval(600, startsAt), request: { url: `${dest.url}/window`, body: { n: 2 } } });
      await scheduleWhen(schedules, s.id, (d) => d.last_run_at !== null);
      await ferry.kill();

      // Back to the state between the two writes of a firing: its request stored, the schedule still due at t1.
      const before = await withStorage(dataDir, async (b) => {
        const [id] = await expectOneRequestPerOccurrence(b, projectId, s.id, [t1]);
        const rewound = await rewrite(b, projectId, s.id, { nextRunAt: t1, lastRunAt: null, lastRunOutcome: null });
        expect(rewound).toMatchObject({ status: 'active', nextRunAt: t1, lastRunAt: null });
        expect((await b.schedules.due(Math.max(Date.now(), t1), 100)).map((x) => x.id)).toContain(s.id);
        return id!;
      });

      const again = await startFerry({ dataDir, env: env() });
      const log = schedulerLog((f) => again.followOutput(f));
      try {
        const after = new Schedules(new Api(again.baseUrl, schedules.api.apiKey));
        const d = await scheduleWhen(after, s.id, (x) => x.last_run_at !== null);
        expect(at(d.last_run_at)).toBe(t1);
        expect(d.last_run_outcome).toBe('enqueued');
        expect(at(d.next_run_at)).toBe(t1 + 10 * MINUTE);
        const [id] = await withStorage(dataDir, (b) => expectOneRequestPerOccurrence(b, projectId, s.id, [t1]));
        expect(id).toBe(before);
        expect(log.errors).toEqual([]);
      } finally {
        await again.stop();
      }
    }, 180_000);

    it.sequential('killed after the request was stored but before the occurrence\'s outcome was recorded: the restart takes the claim over and finds the request', async () => {
      const { dataDir, ferry, projectId, schedules } = await deployment();
      const s = await schedules.created({ name: 'open claim', timing: interval(600, secondsAhead(DAY)), request: { url: `${dest.url}/open-claim` } });
      await ferry.stop();
      // Every 10 minutes from a minute ago: t1 is due and stays the latest occurrence until long after the restart.
      const t1 = Math.floor((Date.now() - MINUTE) / 1000) * 1000;
      const stored = await withStorage(dataDir, async (b) => {
        const schedule = await rewrite(b, projectId, s.id, { timing: { type: 'interval', everySeconds: 600, startsAt: t1, firstRunAt: t1, endsAt: null }, nextRunAt: t1 });
        // A process firing t1 that dies after its request is stored, before the idempotency record gets its outcome.
        void diesBeforeRecording(b).fire(schedule, t1);
        const made = await eventually(async () => (await recurringRequests(b, projectId)).get(s.id), 30_000);
        expect(await occurrenceRequestIds(b, schedule, t1)).toEqual([]);
        return made.map((r) => r.id);
      });
      expect(stored).toHaveLength(1);

      const again = await startFerry({ dataDir, env: env() });
      const log = schedulerLog((f) => again.followOutput(f));
      try {
        const after = new Schedules(new Api(again.baseUrl, schedules.api.apiKey));
        // The dead holder's claim is taken over once its lease (30 s, counted from its stamp 25 s back) has run out.
        const d = await scheduleWhen(after, s.id, (x) => x.last_run_at !== null, 120_000);
        expect(at(d.last_run_at)).toBe(t1);
        expect(at(d.next_run_at)).toBe(t1 + 10 * MINUTE);
        expect(await withStorage(dataDir, (b) => expectOneRequestPerOccurrence(b, projectId, s.id, [t1]))).toEqual(stored);
        // Until then the occurrence is reported as still in progress, and nothing else.
        for (const line of log.errors) expect(line).toContain('still in progress');
        console.info(`${log.errors.length} scheduler error line(s) while the dead holder's claim was open`);
      } finally {
        await again.stop();
      }
    }, 240_000);

    it.sequential('after a downtime over several occurrences, only the most recent one fires, once, and the schedule carries on from it', async () => {
      const { dataDir, ferry, projectId, schedules } = await deployment();
      const path = '/catch-up';
      // Created far ahead, then rewritten while Ferry is down, as if it had been created 35 minutes ago, fired
      // its first occurrence, and then Ferry went down: every 10 minutes from g0, last fired at g0, due at g0+10min.
      // Ten minutes, not one: the latest occurrence at or before now stays g0+30min for five minutes, whatever the
      // start-up takes, so the instant expected does not depend on how fast the process comes up.
      const s = await schedules.created({ name: 'caught up', timing: interval(600, secondsAhead(DAY)), request: { url: `${dest.url}${path}`, body: { n: 3 } } });
      await ferry.stop();
      const g0 = Math.floor((Date.now() - 35 * MINUTE) / 1000) * 1000;
      const latest = g0 + 30 * MINUTE;
      await withStorage(dataDir, (b) =>
        rewrite(b, projectId, s.id, {
          timing: { type: 'interval', everySeconds: 600, startsAt: g0, firstRunAt: g0, endsAt: null },
          nextRunAt: g0 + 10 * MINUTE,
          lastRunAt: g0,
          lastRunOutcome: 'enqueued',
        }),
      );

      const again = await startFerry({ dataDir, env: env() });
      const log = schedulerLog((f) => again.followOutput(f));
      try {
        const after = new Schedules(new Api(again.baseUrl, schedules.api.apiKey));
        const d = await scheduleWhen(after, s.id, (x) => at(x.last_run_at) > g0);
        expect(at(d.last_run_at)).toBe(latest);
        expect(at(d.next_run_at)).toBe(latest + 10 * MINUTE);
        expect(d).toMatchObject({ status: 'active', last_run_outcome: 'enqueued' });
        const [id] = await withStorage(dataDir, async (b) => {
          // The occurrences in between were skipped, not fired late.
          for (const skipped of [g0 + 10 * MINUTE, g0 + 20 * MINUTE]) expect(await occurrenceRequestIds(b, revisionOf(s), skipped)).toBeNull();
          return expectOneRequestPerOccurrence(b, projectId, s.id, [latest]);
        });
        const [got] = await dest.waitForRequests(path, 1, 30_000);
        expect(got!.headers['service-request-id']).toBe(id);
        expect(log.errors).toEqual([]);
      } finally {
        await again.stop();
      }
    }, 180_000);

    it.sequential('a missed occurrence older than 12 h does not fire: nothing is created, next_run_at moves to the next future run, last_run_at stays', async () => {
      const { dataDir, ferry, projectId, schedules } = await deployment();
      const path = '/too-old';
      const s = await schedules.created({ name: 'too old', timing: interval(2 * 86_400, secondsAhead(DAY)), request: { url: `${dest.url}${path}` } });
      await ferry.stop();
      // Every two days; the previous occurrence fired, the one due 13 hours ago was missed while Ferry was down.
      const missed = Math.floor((Date.now() - 13 * HOUR) / 1000) * 1000;
      await withStorage(dataDir, (b) =>
        rewrite(b, projectId, s.id, {
          timing: { type: 'interval', everySeconds: 2 * 86_400, startsAt: missed - 2 * DAY, firstRunAt: missed - 2 * DAY, endsAt: null },
          nextRunAt: missed,
          lastRunAt: missed - 2 * DAY,
          lastRunOutcome: 'enqueued',
        }),
      );

      const again = await startFerry({ dataDir, env: env() });
      const log = schedulerLog((f) => again.followOutput(f));
      try {
        const after = new Schedules(new Api(again.baseUrl, schedules.api.apiKey));
        const d = await scheduleWhen(after, s.id, (x) => at(x.next_run_at) !== missed);
        expect(at(d.next_run_at)).toBe(missed + 2 * DAY);
        expect(at(d.last_run_at)).toBe(missed - 2 * DAY);
        expect(d).toMatchObject({ status: 'active', last_run_outcome: 'enqueued' });
        await withStorage(dataDir, async (b) => {
          expect((await recurringRequests(b, projectId)).get(s.id)).toBeUndefined();
          expect(await occurrenceRequestIds(b, revisionOf(s), missed)).toBeNull();
        });
        expect(log.missed.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
          expect.objectContaining({ level: 'warn', schedule_id: s.id, at: iso(missed) }),
        ]);
        expect(dest.requestsTo(path)).toEqual([]);
        expect(log.errors).toEqual([]);
      } finally {
        await again.stop();
      }
    }, 180_000);
  });

  describe('processes and writers racing', () => {
    // Distributed only: an embedded data directory serves one process (a second `serve` is refused); the race of two
    // firing workers on one embedded database is the next test.
    it.runIf(TEST_BACKEND === 'cassandra').sequential('two processes on the same storage both firing: one request per occurrence, no error', async () => {
      const dataDir = newDataDir();
      const procs = await Promise.all([0, 1].map(() => startFerry({ dataDir, env: env() })));
      const logs = procs.map((p) => schedulerLog((f) => p.followOutput(f)));
      // What each process said of its shards and of problems, printed should an occurrence never fire.
      const ownership = procs.map((p, n) => {
        const lines: string[] = [];
        p.followOutput((text) => lines.push(...text.split('\n').filter((l) => /shards|coordinator|"level":"(warn|error)"/.test(l)).map((l) => `${n}: ${l.slice(0, 300)}`)));
        return lines;
      });
      try {
        const { projectId, apiKey } = await createProject(dataDir);
        const clients = procs.map((p) => new Schedules(new Api(p.baseUrl, apiKey)));
        // One instant for all, seconds ahead: each process has looked at storage by then and wakes for it.
        const startsAt = secondsAhead(TEST_BACKEND === 'embedded' ? 5000 : 8000);
        const t1 = Date.parse(startsAt);
        // Created at once, through both processes: on a busy machine twelve in turn could outlast the lead.
        const created = await Promise.all(
          Array.from({ length: 12 }, async (_, i) => {
            const s = await clients[i % 2]!.created({ name: `race ${i}`, timing: interval(600, startsAt), request: { url: `${dest.url}/race`, body: { i } } });
            expect(at(s.next_run_at), `first run of race ${i}`).toBe(t1);
            return s.id;
          }),
        );
        for (const id of created) {
          const d = await scheduleWhen(clients[0]!, id, (x) => x.last_run_at !== null, 90_000).catch((err: unknown) => {
            console.log(`${id} never fired; the processes' shard and problem lines:\n${ownership.flat().slice(-60).join('\n')}`);
            throw err;
          });
          expect(at(d.last_run_at)).toBe(t1);
          expect(at(d.next_run_at)).toBe(t1 + 10 * MINUTE);
        }
        await withStorage(dataDir, async (b) => {
          for (const id of created) await expectOneRequestPerOccurrence(b, projectId, id, [t1]);
        });
        expect(logs.flatMap((l) => l.errors)).toEqual([]);
      } finally {
        await Promise.all(procs.map((p) => p.stop()));
      }
    }, 180_000);

    it.sequential('two firing workers on two connections to the same storage, racing for every due schedule: one request per occurrence', async () => {
      const dataDir = newDataDir();
      await prepareStorage(dataDir);
      const backends = [await openTestBackend(dataDir), await openTestBackend(dataDir)];
      const events: SchedulerEvent[][] = [[], []];
      let stops: Array<() => Promise<void>> = [];
      try {
        const { project } = await new ProjectAdmin(backends[0]!.projects, systemClock).createProject({ name: 'race' });
        // Hourly, first run ten minutes ago: due now, with the next run far from now.
        const t1 = Math.floor((Date.now() - 10 * MINUTE) / 1000) * 1000;
        const due: StoredSchedule[] = Array.from({ length: 40 }, (_, i) => ({
          id: newScheduleId(Date.now() + i),
          projectId: project.id,
          name: `race ${i}`,
          timing: { type: 'interval', everySeconds: 3600, startsAt: t1, firstRunAt: t1, endsAt: null },
          status: 'active',
          pauseReason: null,
          policy: DEFAULT_SCHEDULE_POLICY,
          runs: EMPTY_RUN_STATE,
          request: { url: 'https://example.com/race', headers: [], body: new TextEncoder().encode(`{"i":${i}}`), retry: 0, flowKeys: [], queue: 'default', timeoutSeconds: 50, metadata: {} },
          nextRunAt: t1,
          lastRunAt: null,
          lastRunOutcome: null,
          previousRunAt: null,
          previousRunOutcome: null,
          createdAt: t1,
          updatedAt: t1,
          version: 1,
        }));
        for (const s of due) await backends[0]!.schedules.insert(s);

        // Neither worker reads what is due before the other has too: both set out to fire every schedule.
        let arrived = 0;
        let bothArrived!: () => void;
        const barrier = new Promise<void>((r) => (bothArrived = r));
        const held = (store: ScheduleStore): ScheduleStore => {
          let first = true;
          return {
            insert: (x) => store.insert(x),
            get: (p, id) => store.get(p, id),
            list: (q) => store.list(q),
            update: (p, id, v, patch) => store.update(p, id, v, patch),
            delete: (p, id) => store.delete(p, id),
            nextDueAt: (shards) => store.nextDueAt(shards),
            due: async (now, limit, shards) => {
              if (first) {
                first = false;
                if (++arrived === 2) bothArrived();
                await barrier;
              }
              return store.due(now, limit, shards);
            },
          };
        };
        const workers = backends.map((b, n) => firingWorker(b, { schedules: held(b.schedules), onEvent: (e) => events[n]!.push(e) }));
        stops = workers.map(({ worker, allowance }) => async () => {
          await worker.stop();
          await allowance.releaseAll();
        });
        for (const { worker } of workers) worker.start();

        await eventually(async () => {
          const fired = await Promise.all(due.map((s) => backends[1]!.schedules.get(project.id, s.id)));
          return fired.every((s) => s?.lastRunAt === t1) ? true : undefined;
        }, 60_000);
        // Each worker finishes its firings: the slower one waited for the other's outcome, it did not make its own.
        await eventually(async () => (events.every((e) => e.filter((x) => x.type === 'occurrence_fired').length >= due.length) ? true : undefined), 60_000);
        for (const stop of stops.splice(0)) await stop();

        expect(events.flat().filter((e) => e.type === 'scheduler_error')).toEqual([]);
        for (const e of events) {
          const fired = e.flatMap((x) => (x.type === 'occurrence_fired' ? [`${x.scheduleId}@${x.at}:${x.outcome}`] : []));
          expect(fired.sort()).toEqual(due.map((s) => `${s.id}@${t1}:enqueued`).sort());
        }
        const b = backends[0]!;
        for (const s of due) {
          await expectOneRequestPerOccurrence(b, project.id, s.id, [t1]);
          expect(await b.schedules.get(project.id, s.id)).toMatchObject({ status: 'active', lastRunAt: t1, lastRunOutcome: 'enqueued', nextRunAt: t1 + HOUR });
        }
        expect([...(await recurringRequests(b, project.id)).values()].flat()).toHaveLength(due.length);
      } finally {
        for (const stop of stops) await stop().catch(() => undefined);
        for (const b of backends) await b.close();
      }
    }, 180_000);

    it.sequential('an update through the API landing between an occurrence\'s firing ahead and the schedule\'s move: one request, with the new definition', async () => {
      const dataDir = newDataDir();
      await prepareStorage(dataDir);
      const backend = await openTestBackend(dataDir);
      const events: SchedulerEvent[] = [];
      let stop = async (): Promise<void> => undefined;
      try {
        const { project } = await new ProjectAdmin(backend.projects, systemClock).createProject({ name: 'update race' });
        const commands = new ScheduleCommands(backend, new IdempotencyGuard(backend.idempotency, systemClock), systemClock, { allowPrivateDestinations: true });
        // Every hour from half a minute from now, fired ahead at once under a lead of a minute.
        const t1 = Math.floor((Date.now() + 30_000) / 1000) * 1000;
        const s = await commands.create(
          project,
          { name: 'raced', timing: { type: 'interval', everySeconds: 3600, startsAt: iso(t1) }, request: { url: 'https://example.com/old', body: { v: 1 } } },
          'update-race',
        );
        // The worker's first move of the schedule after firing waits for an update made through the API meanwhile.
        let raced = false;
        const racing: ScheduleStore = {
          ...backend.schedules,
          get: (p, id) => backend.schedules.get(p, id),
          list: (q) => backend.schedules.list(q),
          insert: (x) => backend.schedules.insert(x),
          delete: (p, id) => backend.schedules.delete(p, id),
          due: (now, limit, shards) => backend.schedules.due(now, limit, shards),
          nextDueAt: (shards) => backend.schedules.nextDueAt(shards),
          update: async (p, id, version, patch) => {
            if (!raced && patch.lastRunAt !== undefined) {
              raced = true;
              await commands.update(project, id, { request: { url: 'https://example.com/new', body: { v: 2 } } });
            }
            return backend.schedules.update(p, id, version, patch);
          },
        };
        const { worker, allowance } = firingWorker(backend, { schedules: racing, leadMs: MINUTE, onEvent: (e) => events.push(e) });
        stop = async () => {
          await worker.stop();
          await allowance.releaseAll();
        };
        worker.start();

        const fired = await eventually(async () => {
          const stored = await backend.schedules.get(project.id, s.id);
          return stored?.lastRunAt === t1 ? stored : undefined;
        }, 60_000);
        await stop();
        expect(raced).toBe(true);
        expect(Date.now()).toBeLessThan(t1);
        // Fired twice, the first time under the definition the update replaced; that request was withdrawn.
        expect(events.filter((e) => e.type === 'occurrence_fired').map((e) => e.type === 'occurrence_fired' && e.at)).toEqual([t1, t1]);
        const [id] = await expectOneRequestPerOccurrence(backend, project.id, s.id, [t1]);
        const request = await backend.requests.get(project.id, id!);
        expect(request).toMatchObject({ url: 'https://example.com/new', createdAt: t1, status: 'queued' });
        expect(new TextDecoder().decode(request!.body!)).toBe('{"v":2}');
        expect(fired).toMatchObject({ nextRunAt: t1 + 60 * MINUTE, lastRunOutcome: 'enqueued', previousRunAt: null });
        expect(events.filter((e) => e.type === 'scheduler_error')).toEqual([]);
      } finally {
        await stop().catch(() => undefined);
        await backend.close();
      }
    }, 120_000);
  });
});
