import { mkdtempSync, rmSync } from 'node:fs';
import { DEFAULT_SCHEDULE_POLICY } from '../../src/domain/schedule/policy.js';
import { EMPTY_RUN_STATE } from '../../src/domain/schedule/runs.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openEmbeddedBackend, type EmbeddedBackend } from '../../src/adapters/embedded/backend.js';
import { OverlapSlots } from '../../src/app/overlap-slots.js';
import { newScheduleId } from '../../src/domain/ids.js';
import type { StoredSchedule } from '../../src/domain/schedule/schedule.js';
import type { FiredOccurrence } from '../../src/domain/schedule/runs.js';
import type { IntervalTiming } from '../../src/domain/schedule/timing.js';
import type { ScheduleStore } from '../../src/ports/schedules.js';
import type { SchedulerEvent } from '../../src/workers/scheduler/events.js';
import { ScheduleFiring } from '../../src/workers/scheduler/firing-worker.js';
import { FakeClock } from '../support/fake-clock.js';

/**
 * The firing loop on the fake clock over a real embedded store: occurrences fire when the clock reaches them and
 * never before, once each; after downtime only the latest missed one fires (none older than 12 h); a change made
 * while an occurrence is being fired wins over the loop's move; a failed firing is tried again a second later.
 */

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const T0 = Date.UTC(2030, 0, 15, 12, 0, 0);
const T1 = T0 + MINUTE;
const IDLE_POLL_MS = 5 * MINUTE;
const RETRY_AFTER_FAILURE_MS = 1_000;
const PROJECT = 'prj_unit_firing';

const dir = mkdtempSync(join(tmpdir(), 'ferry-firing-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
let backend: EmbeddedBackend;
const workers: ScheduleFiring[] = [];
beforeEach(() => {
  backend = openEmbeddedBackend({ path: join(dir, `case-${++files}.db`) });
});
afterEach(async () => {
  for (const w of workers.splice(0)) await w.stop();
  await backend.close();
});

function interval(everySeconds: number, firstRunAt: number): IntervalTiming {
  return { type: 'interval', everySeconds, startsAt: firstRunAt, firstRunAt, endsAt: null };
}

async function aSchedule(overrides: Partial<StoredSchedule> = {}): Promise<StoredSchedule> {
  const timing = interval(60, T1);
  const s: StoredSchedule = {
    id: newScheduleId(T0),
    projectId: PROJECT,
    name: 'every minute',
    timing,
    status: 'active',
    pauseReason: null,
    policy: DEFAULT_SCHEDULE_POLICY,
    runs: EMPTY_RUN_STATE,
    request: { url: 'https://example.com/tick', headers: [], body: null, retry: 0, flowKeys: [], queue: 'default', timeoutSeconds: 50, metadata: {} },
    nextRunAt: timing.firstRunAt,
    lastRunAt: null,
    lastRunOutcome: null,
    previousRunAt: null,
    previousRunOutcome: null,
    createdAt: T0,
    updatedAt: T0,
    version: 1,
    ...overrides,
  };
  await backend.schedules.insert(s);
  return s;
}

const stored = async (id: string): Promise<StoredSchedule> => (await backend.schedules.get(PROJECT, id))!;

interface Fired {
  readonly id: string;
  readonly at: number;
  /** What the clock showed when the occurrence was fired. */
  readonly now: number;
}

type Fire = (s: StoredSchedule, at: number) => Promise<FiredOccurrence['outcome']>;

/**
 * A worker over the embedded store, its calls to storage and to `fire` counted while under way. `settle` waits
 * until the worker sleeps on its clock: nothing under way and its next look set as a timer.
 */
function firing(clock: FakeClock, fire: Fire = async () => 'enqueued', failLooks = { remaining: 0 }, leadMs = 0) {
  let underWay = 0;
  const track = <T>(call: () => Promise<T>): Promise<T> => {
    underWay += 1;
    return call().finally(() => (underWay -= 1));
  };
  const s = backend.schedules;
  const looks = { nextDueAt: 0, due: 0 };
  const store: ScheduleStore = {
    insert: (x) => track(() => s.insert(x)),
    get: (p, id) => track(() => s.get(p, id)),
    list: (q) => track(() => s.list(q)),
    update: (p, id, v, patch) => track(() => s.update(p, id, v, patch)),
    delete: (p, id) => track(() => s.delete(p, id)),
    due: (now, limit, shards) => track(() => ((looks.due += 1), s.due(now, limit, shards))),
    nextDueAt: (shards) =>
      track(async () => {
        looks.nextDueAt += 1;
        if (failLooks.remaining > 0) {
          failLooks.remaining -= 1;
          throw new Error('storage unavailable');
        }
        return s.nextDueAt(shards);
      }),
  };
  const fired: Fired[] = [];
  const withdrawn: Array<Fired & { asOf: number; revision: number }> = [];
  const events: SchedulerEvent[] = [];
  const worker = new ScheduleFiring({
    schedules: store,
    fire: (schedule, at) =>
      track(async () => {
        fired.push({ id: schedule.id, at, now: clock.now() });
        const outcome = await fire(schedule, at);
        return { outcome, requestId: null };
      }),
    requestStatus: async () => null,
    overlap: new OverlapSlots(backend.idempotency, async () => null, clock),
    withdraw: (schedule, at, asOf) =>
      track(async () => {
        withdrawn.push({ id: schedule.id, at, now: clock.now(), asOf, revision: schedule.updatedAt });
      }),
    clock,
    idlePollMs: IDLE_POLL_MS,
    leadMs,
    maxConcurrent: 8,
    onEvent: (e) => events.push(e),
  });
  workers.push(worker);
  const settle = async (): Promise<void> => {
    const giveUpAt = Date.now() + 10_000;
    for (;;) {
      await nextTurn();
      if (underWay === 0 && clock.timers > 0) return;
      if (Date.now() > giveUpAt) throw new Error(`the worker did not settle (${underWay} calls under way, ${clock.timers} timers)`);
    }
  };
  /**
   * Moves the clock to `t` as time passes for a running process: stopping at each timer on the way and letting
   * the worker finish what it does then, before the clock moves on.
   */
  const advanceTo = async (t: number): Promise<void> => {
    for (let next = clock.nextAt; next !== undefined && next <= t; next = clock.nextAt) {
      clock.advanceTo(next);
      await settle();
    }
    clock.advanceTo(t);
    await settle();
  };
  const start = async (): Promise<void> => (worker.start(), settle());
  const errors = () => events.filter((e) => e.type === 'scheduler_error');
  return { worker, fired, withdrawn, events, looks, settle, advanceTo, start, errors };
}

describe('ScheduleFiring on the fake clock', () => {
  it('fires an occurrence when the clock reaches its instant and not before, then moves the schedule to its next run', async () => {
    const clock = new FakeClock(T0);
    const s = await aSchedule();
    const w = firing(clock);
    await w.start();
    expect(w.fired).toEqual([]);
    // Asleep until the occurrence is due, not polling until then.
    expect(clock.nextAt).toBe(T1);

    await w.advanceTo(T1 - 1);
    expect(w.fired).toEqual([]);
    expect(await stored(s.id)).toMatchObject({ nextRunAt: T1, lastRunAt: null, version: 1 });

    await w.advanceTo(T1);
    expect(w.fired).toEqual([{ id: s.id, at: T1, now: T1 }]);
    expect(await stored(s.id)).toMatchObject({ status: 'active', nextRunAt: T1 + MINUTE, lastRunAt: T1, lastRunOutcome: 'enqueued', version: 2 });
    expect(w.events).toEqual([{ type: 'occurrence_fired', scheduleId: s.id, at: T1, outcome: 'enqueued', firedAt: T1 }]);
    expect(clock.nextAt).toBe(T1 + MINUTE);

    await w.advanceTo(T1 + MINUTE - 1);
    expect(w.fired).toHaveLength(1);
    await w.advanceTo(T1 + MINUTE);
    expect(w.fired.map((f) => f.at)).toEqual([T1, T1 + MINUTE]);
    expect(await stored(s.id)).toMatchObject({ nextRunAt: T1 + 2 * MINUTE, lastRunAt: T1 + MINUTE });
    expect(w.errors()).toEqual([]);
  });

  it('over many looks, every occurrence of several schedules fires exactly once, at its own instant', async () => {
    const clock = new FakeClock(T0);
    const a = await aSchedule({ timing: interval(60, T1), nextRunAt: T1 });
    const b = await aSchedule({ timing: interval(60, T1 + 30 * SECOND), nextRunAt: T1 + 30 * SECOND });
    const c = await aSchedule({ timing: interval(180, T1 + 90 * SECOND), nextRunAt: T1 + 90 * SECOND });
    const w = firing(clock);
    await w.start();
    for (let t = T0; t <= T1 + 10 * MINUTE; t += 7 * SECOND) await w.advanceTo(t);

    const expected = [
      ...Array.from({ length: 10 }, (_, k) => ({ id: a.id, at: T1 + k * MINUTE })),
      ...Array.from({ length: 10 }, (_, k) => ({ id: b.id, at: T1 + 30 * SECOND + k * MINUTE })),
      ...Array.from({ length: 3 }, (_, k) => ({ id: c.id, at: T1 + 90 * SECOND + k * 3 * MINUTE })),
    ].filter((o) => o.at <= T1 + 10 * MINUTE);
    const key = (o: { id: string; at: number }) => `${o.id}@${o.at}`;
    expect(w.fired.map(key).sort()).toEqual(expected.map(key).sort());
    // Each fired when the clock showed its instant: the worker woke for it instead of waiting for a step.
    for (const f of w.fired) expect(f.now).toBe(f.at);
    expect(w.errors()).toEqual([]);
  });

  it('after a downtime over several occurrences only the most recent fires, once, and the schedule carries on from it', async () => {
    const clock = new FakeClock(T0);
    const s = await aSchedule();
    const w = firing(clock);
    // Down from before T1 until 5.5 minutes after it: T1 .. T1+5min were all missed.
    clock.advanceTo(T1 + 5 * MINUTE + 30 * SECOND);
    await w.start();
    expect(w.fired).toEqual([{ id: s.id, at: T1 + 5 * MINUTE, now: T1 + 5 * MINUTE + 30 * SECOND }]);
    expect(await stored(s.id)).toMatchObject({ nextRunAt: T1 + 6 * MINUTE, lastRunAt: T1 + 5 * MINUTE, lastRunOutcome: 'enqueued' });

    await w.advanceTo(T1 + 6 * MINUTE - 1);
    expect(w.fired).toHaveLength(1);
    await w.advanceTo(T1 + 6 * MINUTE);
    expect(w.fired.map((f) => f.at)).toEqual([T1 + 5 * MINUTE, T1 + 6 * MINUTE]);
    expect(w.events.filter((e) => e.type === 'occurrence_missed')).toEqual([]);
  });

  it('a missed occurrence older than 12 h does not fire; the schedule moves on to its next future run, its last run unchanged', async () => {
    const clock = new FakeClock(T0);
    // Every two days; the previous occurrence fired two days before T1, the one at T1 is missed by 13 hours.
    const timing = interval(2 * 86_400, T1 - 2 * DAY);
    const s = await aSchedule({ timing, nextRunAt: T1, lastRunAt: T1 - 2 * DAY, lastRunOutcome: 'enqueued' });
    const w = firing(clock);
    clock.advanceTo(T1 + 13 * HOUR);
    await w.start();
    expect(w.fired).toEqual([]);
    expect(w.events).toEqual([{ type: 'occurrence_missed', scheduleId: s.id, at: T1 }]);
    expect(await stored(s.id)).toMatchObject({ status: 'active', nextRunAt: T1 + 2 * DAY, lastRunAt: T1 - 2 * DAY, lastRunOutcome: 'enqueued' });

    await w.advanceTo(T1 + 2 * DAY);
    expect(w.fired).toEqual([{ id: s.id, at: T1 + 2 * DAY, now: T1 + 2 * DAY }]);
  });

  it('exactly 12 h late still fires', async () => {
    const clock = new FakeClock(T0);
    const s = await aSchedule({ timing: interval(2 * 86_400, T1), nextRunAt: T1 });
    const w = firing(clock);
    clock.advanceTo(T1 + 12 * HOUR);
    await w.start();
    expect(w.fired).toEqual([{ id: s.id, at: T1, now: T1 + 12 * HOUR }]);
    expect(await stored(s.id)).toMatchObject({ nextRunAt: T1 + 2 * DAY, lastRunAt: T1 });
  });

  it('a pause between firing and moving on is respected: the schedule stays paused, the fired run is still recorded', async () => {
    const clock = new FakeClock(T0);
    const s = await aSchedule();
    // As the API pauses it (see ScheduleCommands.pause), while the occurrence is being fired.
    const w = firing(clock, async (current) => {
      const fresh = (await backend.schedules.get(PROJECT, current.id))!;
      await backend.schedules.update(PROJECT, current.id, fresh.version, { status: 'paused', nextRunAt: null, updatedAt: clock.now() });
      return 'enqueued';
    });
    await w.start();
    await w.advanceTo(T1);
    expect(w.fired.map((f) => f.at)).toEqual([T1]);
    expect(await stored(s.id)).toMatchObject({ status: 'paused', nextRunAt: null, lastRunAt: T1, lastRunOutcome: 'enqueued' });

    // Paused: nothing fires any more, however far the clock goes.
    for (let t = T1; t <= T1 + 30 * MINUTE; t += MINUTE) await w.advanceTo(t);
    expect(w.fired).toHaveLength(1);
    expect(await stored(s.id)).toMatchObject({ status: 'paused', nextRunAt: null, lastRunAt: T1 });
    expect(w.errors()).toEqual([]);
  });

  it('a timing change between firing and moving on keeps its new next run; the fired run is recorded', async () => {
    const clock = new FakeClock(T0);
    const s = await aSchedule();
    const hourly = interval(3600, T1 + HOUR);
    const w = firing(clock, async (current) => {
      const fresh = (await backend.schedules.get(PROJECT, current.id))!;
      await backend.schedules.update(PROJECT, current.id, fresh.version, { timing: hourly, nextRunAt: T1 + HOUR, updatedAt: clock.now() });
      return 'enqueued';
    });
    await w.start();
    await w.advanceTo(T1);
    expect(await stored(s.id)).toMatchObject({ timing: hourly, nextRunAt: T1 + HOUR, lastRunAt: T1, lastRunOutcome: 'enqueued' });
    await w.advanceTo(T1 + HOUR - 1);
    expect(w.fired.map((f) => f.at)).toEqual([T1]);
    await w.advanceTo(T1 + HOUR);
    expect(w.fired.map((f) => f.at)).toEqual([T1, T1 + HOUR]);
  });

  it('a schedule deleted while its occurrence is being fired stays deleted and is not fired again', async () => {
    const clock = new FakeClock(T0);
    const s = await aSchedule();
    const w = firing(clock, async (current) => {
      await backend.schedules.delete(PROJECT, current.id);
      return 'enqueued';
    });
    await w.start();
    await w.advanceTo(T1);
    expect(await backend.schedules.get(PROJECT, s.id)).toBeNull();
    await w.advanceTo(T1 + 5 * MINUTE);
    expect(w.fired).toHaveLength(1);
    expect(w.errors()).toEqual([]);
  });

  it('two workers firing the same occurrence at once: one moves the schedule on, the other leaves it as it found it', async () => {
    const clock = new FakeClock(T0);
    const s = await aSchedule();
    const one = firing(clock);
    const two = firing(clock);
    await one.start();
    await two.start();
    await one.advanceTo(T1);
    await two.settle();
    // Both read it due before either moved it on, so both fired T1 (ScheduleOccurrences makes that one request).
    expect([...one.fired, ...two.fired]).toEqual([
      { id: s.id, at: T1, now: T1 },
      { id: s.id, at: T1, now: T1 },
    ]);
    // One move, not two: the second writer found the schedule already past this run.
    expect(await stored(s.id)).toMatchObject({ nextRunAt: T1 + MINUTE, lastRunAt: T1, lastRunOutcome: 'enqueued', version: 2 });
    expect([...one.errors(), ...two.errors()]).toEqual([]);
  });

  it('a failing fire leaves the schedule due; it is fired again a second later, not in a busy loop, and others are not held up', async () => {
    const clock = new FakeClock(T0);
    const failing = await aSchedule();
    const healthy = await aSchedule();
    let failuresLeft = 2;
    const w = firing(clock, async (sch) => {
      if (sch.id === failing.id && failuresLeft > 0) {
        failuresLeft -= 1;
        throw new Error('storage unavailable');
      }
      return 'enqueued';
    });
    await w.start();
    await w.advanceTo(T1);
    const firesOf = (id: string) => w.fired.filter((f) => f.id === id).map((f) => f.now);
    expect(firesOf(failing.id)).toEqual([T1]);
    expect(firesOf(healthy.id)).toEqual([T1]);
    expect(await stored(failing.id)).toMatchObject({ nextRunAt: T1, lastRunAt: null, lastRunOutcome: null, version: 1 });
    expect(await stored(healthy.id)).toMatchObject({ nextRunAt: T1 + MINUTE, lastRunAt: T1 });
    expect(w.errors()).toHaveLength(1);
    expect(clock.nextAt).toBe(T1 + RETRY_AFTER_FAILURE_MS);

    // No look at all until the retry is due.
    const looksBefore = { ...w.looks };
    await w.advanceTo(T1 + RETRY_AFTER_FAILURE_MS - 1);
    expect(w.looks).toEqual(looksBefore);
    expect(firesOf(failing.id)).toEqual([T1]);

    await w.advanceTo(T1 + RETRY_AFTER_FAILURE_MS);
    expect(firesOf(failing.id)).toEqual([T1, T1 + RETRY_AFTER_FAILURE_MS]);
    // A schedule that failed again waits twice as long before its next try, so one that keeps failing cannot
    // crowd out the others.
    await w.advanceTo(T1 + 3 * RETRY_AFTER_FAILURE_MS - 1);
    expect(firesOf(failing.id)).toEqual([T1, T1 + RETRY_AFTER_FAILURE_MS]);
    await w.advanceTo(T1 + 3 * RETRY_AFTER_FAILURE_MS);
    // The third try succeeds, for the same occurrence: T1 is still the latest.
    expect(w.fired.filter((f) => f.id === failing.id).map((f) => f.at)).toEqual([T1, T1, T1]);
    expect(await stored(failing.id)).toMatchObject({ nextRunAt: T1 + MINUTE, lastRunAt: T1, lastRunOutcome: 'enqueued' });
    expect(firesOf(healthy.id)).toEqual([T1]);
    expect(w.errors()).toHaveLength(2);

    // And then it sleeps until the next occurrence.
    await w.advanceTo(T1 + MINUTE - 1);
    expect(w.fired).toHaveLength(4);
    expect(clock.nextAt).toBe(T1 + MINUTE);
  });

  it('a failing look at storage is retried a second later, not in a busy loop', async () => {
    const clock = new FakeClock(T0);
    const s = await aSchedule();
    const failLooks = { remaining: 3 };
    const w = firing(clock, undefined, failLooks);
    clock.advanceTo(T1);
    await w.start();
    expect(w.looks.nextDueAt).toBe(1);
    expect(w.fired).toEqual([]);
    await w.advanceTo(T1 + 999);
    expect(w.looks.nextDueAt).toBe(1);
    await w.advanceTo(T1 + 3 * SECOND - 1);
    expect(w.looks.nextDueAt).toBe(3);
    expect(w.fired).toEqual([]);
    await w.advanceTo(T1 + 3 * SECOND);
    expect(w.fired).toEqual([{ id: s.id, at: T1, now: T1 + 3 * SECOND }]);
    expect(w.errors()).toHaveLength(3);
  });

  it('stop waits for the occurrences being fired, and nothing fires after it', async () => {
    const clock = new FakeClock(T0);
    const s = await aSchedule();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const w = firing(clock, async () => {
      await held;
      return 'enqueued';
    });
    await w.start();
    clock.advanceTo(T1);
    while (w.fired.length === 0) await nextTurn();
    const stopped = w.worker.stop();
    release();
    await stopped;
    expect(await stored(s.id)).toMatchObject({ nextRunAt: T1 + MINUTE, lastRunAt: T1 });
    clock.advanceTo(T1 + 10 * MINUTE);
    await nextTurn();
    expect(w.fired).toHaveLength(1);
    expect(clock.timers).toBe(0);
  });

  it('with a lead, enqueues each occurrence that long before its instant, for its instant, once', async () => {
    const clock = new FakeClock(T0);
    const lead = 10 * SECOND;
    const s = await aSchedule();
    const w = firing(clock, undefined, undefined, lead);
    await w.start();
    expect(clock.nextAt).toBe(T1 - lead);
    await w.advanceTo(T1 - lead - 1);
    expect(w.fired).toEqual([]);
    await w.advanceTo(T1 - lead);
    expect(w.fired).toEqual([{ id: s.id, at: T1, now: T1 - lead }]);
    // The schedule has moved past the occurrence it enqueued, and sleeps until the lead of the next one.
    expect(await stored(s.id)).toMatchObject({ nextRunAt: T1 + MINUTE, lastRunAt: T1, lastRunOutcome: 'enqueued' });
    expect(clock.nextAt).toBe(T1 + MINUTE - lead);
    await w.advanceTo(T1 + MINUTE - lead);
    expect(w.fired.map((f) => [f.at, f.now])).toEqual([[T1, T1 - lead], [T1 + MINUTE, T1 + MINUTE - lead]]);
    // The run before the one fired ahead is kept: it reads as the last run until the new one's instant.
    expect(await stored(s.id)).toMatchObject({ lastRunAt: T1 + MINUTE, previousRunAt: T1, previousRunOutcome: 'enqueued' });
    expect(w.withdrawn).toEqual([]);
    expect(w.errors()).toEqual([]);
  });

  it('a pause between firing ahead and moving on, before the instant: what was fired is withdrawn as of the pause, nothing is recorded', async () => {
    const clock = new FakeClock(T0);
    const lead = 10 * SECOND;
    const s = await aSchedule();
    // As the API pauses it (a new revision, see ScheduleCommands), while the occurrence is being fired ahead.
    const w = firing(
      clock,
      async (current) => {
        const fresh = (await backend.schedules.get(PROJECT, current.id))!;
        await backend.schedules.update(PROJECT, current.id, fresh.version, { status: 'paused', nextRunAt: null, updatedAt: clock.now() });
        return 'enqueued';
      },
      undefined,
      lead,
    );
    await w.start();
    await w.advanceTo(T1 - lead);
    expect(w.fired).toEqual([{ id: s.id, at: T1, now: T1 - lead }]);
    expect(w.withdrawn).toEqual([{ id: s.id, at: T1, now: T1 - lead, asOf: T1 - lead, revision: T0 }]);
    expect(await stored(s.id)).toMatchObject({ status: 'paused', nextRunAt: null, lastRunAt: null, lastRunOutcome: null, previousRunAt: null });
    await w.advanceTo(T1 + 5 * MINUTE);
    expect(w.fired).toHaveLength(1);
    expect(w.errors()).toEqual([]);
  });

  it('an update between firing ahead and moving on: what was fired is withdrawn, and the occurrence fires again under the new revision', async () => {
    const clock = new FakeClock(T0);
    const lead = 10 * SECOND;
    const s = await aSchedule();
    const changed = { url: 'https://example.com/changed', headers: [], body: null, retry: 1, flowKeys: [], queue: 'default', timeoutSeconds: 50, metadata: {} };
    const revisions: number[] = [];
    const w = firing(
      clock,
      async (current) => {
        revisions.push(current.updatedAt);
        if (revisions.length === 1) {
          // As the API updates it before the instant: a new definition and revision, the next run still T1.
          const fresh = (await backend.schedules.get(PROJECT, current.id))!;
          await backend.schedules.update(PROJECT, current.id, fresh.version, { request: changed, updatedAt: clock.now() });
        }
        return 'enqueued';
      },
      undefined,
      lead,
    );
    await w.start();
    await w.advanceTo(T1 - lead);
    expect(w.fired.map((f) => [f.at, f.now])).toEqual([[T1, T1 - lead], [T1, T1 - lead]]);
    expect(revisions).toEqual([T0, T1 - lead]);
    expect(w.withdrawn).toEqual([{ id: s.id, at: T1, now: T1 - lead, asOf: T1 - lead, revision: T0 }]);
    expect(await stored(s.id)).toMatchObject({ request: changed, nextRunAt: T1 + MINUTE, lastRunAt: T1, lastRunOutcome: 'enqueued', previousRunAt: null });
    expect(w.errors()).toEqual([]);
  });

  it('a schedule deleted between firing ahead and moving on: what was fired is withdrawn', async () => {
    const clock = new FakeClock(T0);
    const lead = 10 * SECOND;
    const s = await aSchedule();
    const w = firing(
      clock,
      async (current) => {
        await backend.schedules.delete(PROJECT, current.id);
        return 'enqueued';
      },
      undefined,
      lead,
    );
    await w.start();
    await w.advanceTo(T1 - lead);
    expect(w.withdrawn).toEqual([{ id: s.id, at: T1, now: T1 - lead, asOf: T1 - lead, revision: T0 }]);
    expect(await backend.schedules.get(PROJECT, s.id)).toBeNull();
    expect(w.errors()).toEqual([]);
  });

  it('a change at or after the instant does not withdraw: the occurrence is a run by then, and is recorded', async () => {
    const clock = new FakeClock(T0);
    const s = await aSchedule();
    // No lead: the occurrence fires at its instant, and the change lands at that same instant.
    const w = firing(clock, async (current) => {
      const fresh = (await backend.schedules.get(PROJECT, current.id))!;
      await backend.schedules.update(PROJECT, current.id, fresh.version, { name: 'renamed', updatedAt: clock.now() });
      return 'enqueued';
    });
    await w.start();
    await w.advanceTo(T1);
    expect(w.withdrawn).toEqual([]);
    expect(await stored(s.id)).toMatchObject({ name: 'renamed', nextRunAt: T1 + MINUTE, lastRunAt: T1, lastRunOutcome: 'enqueued' });
  });
});
