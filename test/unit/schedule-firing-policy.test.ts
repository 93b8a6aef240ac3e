import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openEmbeddedBackend, type EmbeddedBackend } from '../../src/adapters/embedded/backend.js';
import { OverlapSlots } from '../../src/app/overlap-slots.js';
import { newScheduleId } from '../../src/domain/ids.js';
import type { RequestStatus } from '../../src/domain/request.js';
import { scheduleAsOf } from '../../src/domain/schedule/enqueued-ahead.js';
import type { SchedulePolicy } from '../../src/domain/schedule/policy.js';
import { DEFAULT_SCHEDULE_POLICY } from '../../src/domain/schedule/policy.js';
import { EMPTY_RUN_STATE } from '../../src/domain/schedule/runs.js';
import type { StoredSchedule } from '../../src/domain/schedule/schedule.js';
import type { SchedulerEvent } from '../../src/workers/scheduler/events.js';
import { BUFFER_LOOK_MS } from '../../src/workers/scheduler/firing-steps.js';
import { ScheduleFiring } from '../../src/workers/scheduler/firing-worker.js';
import { FakeClock } from '../support/fake-clock.js';

/**
 * The policy's rules at firing, on the fake clock over a real embedded store: overlap `skip` and `buffer_one` look
 * at the previous occurrence's request, `max_runs` ends the schedule, `pause_after_failures` pauses it instead of
 * firing the next occurrence. The requests are stand-ins whose status each case sets: what is checked here is what
 * the scheduler does with a status, not delivery (the API tests deliver real ones).
 */

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const T0 = Date.UTC(2030, 0, 15, 12, 0, 0);
const T1 = T0 + MINUTE;
const PROJECT = 'prj_unit_policy';

const dir = mkdtempSync(join(tmpdir(), 'ferry-firing-policy-'));
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

async function aSchedule(policy: Partial<SchedulePolicy>): Promise<StoredSchedule> {
  const s: StoredSchedule = {
    id: newScheduleId(T0),
    projectId: PROJECT,
    name: 'every minute',
    timing: { type: 'interval', everySeconds: 60, startsAt: T1, firstRunAt: T1, endsAt: null },
    status: 'active',
    pauseReason: null,
    policy: { ...DEFAULT_SCHEDULE_POLICY, ...policy },
    runs: EMPTY_RUN_STATE,
    request: { url: 'https://example.com/tick', headers: [], body: null, retry: 0, flowKeys: [], queue: 'default', timeoutSeconds: 50, metadata: {} },
    nextRunAt: T1,
    lastRunAt: null,
    lastRunOutcome: null,
    previousRunAt: null,
    previousRunOutcome: null,
    createdAt: T0,
    updatedAt: T0,
    version: 1,
  };
  await backend.schedules.insert(s);
  return s;
}

const stored = async (id: string): Promise<StoredSchedule> => (await backend.schedules.get(PROJECT, id))!;

/** A worker whose occurrences create stand-in requests `req_1`, `req_2`, … whose status the case sets. */
function firing(clock: FakeClock, leadMs = 0) {
  let underWay = 0;
  const track = <T>(call: () => Promise<T>): Promise<T> => {
    underWay += 1;
    return call().finally(() => (underWay -= 1));
  };
  const statuses = new Map<string, RequestStatus>();
  const fired: Array<{ at: number; now: number; requestId: string }> = [];
  const events: SchedulerEvent[] = [];
  const overlap = new OverlapSlots(backend.idempotency, (_projectId, id) => track(async () => statuses.get(id) ?? null), clock);
  const worker = new ScheduleFiring({
    schedules: backend.schedules,
    fire: (_schedule, at) =>
      track(async () => {
        const requestId = `req_${fired.length + 1}`;
        fired.push({ at, now: clock.now(), requestId });
        statuses.set(requestId, 'queued');
        return { outcome: 'enqueued' as const, requestId };
      }),
    requestStatus: (_projectId, id) => track(async () => statuses.get(id) ?? null),
    overlap,
    withdraw: () => track(async () => undefined),
    clock,
    idlePollMs: 5 * MINUTE,
    leadMs,
    maxConcurrent: 4,
    onEvent: (e) => events.push(e),
  });
  workers.push(worker);
  const settle = async (): Promise<void> => {
    const giveUpAt = Date.now() + 10_000;
    for (;;) {
      await nextTurn();
      if (underWay === 0 && clock.timers > 0) return;
      if (Date.now() > giveUpAt) throw new Error('the worker did not settle');
    }
  };
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
  return { fired, statuses, advanceTo, start, errors, overlap };
}

describe('the schedule policy at firing', () => {
  it('skip: an occurrence due while the previous request is active creates nothing, is counted, and the next one fires once it has ended', async () => {
    const clock = new FakeClock(T0);
    const s = await aSchedule({ overlap: 'skip' });
    const w = firing(clock);
    await w.start();
    await w.advanceTo(T1);
    expect(w.fired.map((f) => f.at)).toEqual([T1]);

    w.statuses.set('req_1', 'delivering');
    await w.advanceTo(T1 + MINUTE);
    expect(w.fired.map((f) => f.at)).toEqual([T1]);
    const skipped = await stored(s.id);
    expect(skipped).toMatchObject({ lastRunAt: T1 + MINUTE, lastRunOutcome: 'skipped_overlap', nextRunAt: T1 + 2 * MINUTE });
    expect(skipped.runs.counts).toMatchObject({ enqueued: 1, skipped_overlap: 1 });
    expect(skipped.runs.recent.map((r) => [r.at, r.outcome, r.requestId])).toEqual([
      [T1 + MINUTE, 'skipped_overlap', null],
      [T1, 'enqueued', 'req_1'],
    ]);

    w.statuses.set('req_1', 'failed');
    await w.advanceTo(T1 + 2 * MINUTE);
    expect(w.fired.map((f) => f.at)).toEqual([T1, T1 + 2 * MINUTE]);
    expect(w.errors()).toEqual([]);
  });

  it('skip: a run another starter began after the latest one, not yet in the run state, counts as the previous one', async () => {
    const clock = new FakeClock(T0);
    const s = await aSchedule({ overlap: 'skip' });
    const w = firing(clock);
    await w.start();
    await w.advanceTo(T1);
    w.statuses.set('req_1', 'succeeded');
    // A trigger took the slot after req_1 and created its request; its record in the run state has not landed.
    const slot = (await w.overlap.take(PROJECT, s.id, 'req_1', 'trigger:k'))!;
    await w.overlap.fill(slot, 'req_trigger');
    w.statuses.set('req_trigger', 'delivering');
    await w.advanceTo(T1 + MINUTE);
    expect(w.fired.map((f) => f.at)).toEqual([T1]);
    expect((await stored(s.id)).lastRunOutcome).toBe('skipped_overlap');
    // Once it has ended, the next occurrence fires.
    w.statuses.set('req_trigger', 'succeeded');
    await w.advanceTo(T1 + 2 * MINUTE);
    expect(w.fired.map((f) => f.at)).toEqual([T1, T1 + 2 * MINUTE]);
    expect(w.errors()).toEqual([]);
  });

  it('skip and buffer_one are decided at the instant, not when an occurrence would be enqueued ahead', async () => {
    const clock = new FakeClock(T0);
    const allowAll = await aSchedule({});
    const skip = await aSchedule({ overlap: 'skip' });
    const w = firing(clock, 10 * SECOND);
    await w.start();
    await w.advanceTo(T1 - 10 * SECOND);
    expect((await stored(allowAll.id)).lastRunAt).toBe(T1);
    expect((await stored(skip.id)).lastRunAt).toBeNull();
    await w.advanceTo(T1);
    expect((await stored(skip.id)).lastRunAt).toBe(T1);
    expect(w.fired.filter((f) => f.at === T1).map((f) => f.now).sort()).toEqual([T1 - 10 * SECOND, T1]);
    expect(w.errors()).toEqual([]);
  });

  it('buffer_one: one occurrence waits while the previous request is active and is created as soon as it ends; a further one is skipped', async () => {
    const clock = new FakeClock(T0);
    const s = await aSchedule({ overlap: 'buffer_one' });
    const w = firing(clock);
    await w.start();
    await w.advanceTo(T1);
    w.statuses.set('req_1', 'delivering');

    await w.advanceTo(T1 + MINUTE);
    expect(w.fired).toHaveLength(1);
    const waiting = await stored(s.id);
    expect(waiting.runs.buffered).toBe(T1 + MINUTE);
    // Its timer looks again soon; it reads as due at the timing's next occurrence.
    expect(waiting.nextRunAt).toBe(T1 + MINUTE + BUFFER_LOOK_MS);
    expect(scheduleAsOf(waiting, clock.now()).nextRunAt).toBe(T1 + 2 * MINUTE);

    // Still active at the next occurrence: the buffer is full, that one is skipped.
    await w.advanceTo(T1 + 2 * MINUTE);
    expect(w.fired).toHaveLength(1);
    expect((await stored(s.id)).runs.counts.skipped_overlap).toBe(1);

    w.statuses.set('req_1', 'succeeded');
    const endedAt = clock.now();
    await w.advanceTo(endedAt + BUFFER_LOOK_MS);
    expect(w.fired.map((f) => f.at)).toEqual([T1, T1 + MINUTE]);
    expect(w.fired[1]!.now).toBeLessThanOrEqual(endedAt + BUFFER_LOOK_MS);
    const after = await stored(s.id);
    expect(after.runs).toMatchObject({ buffered: null, upcoming: null });
    expect(after.nextRunAt).toBe(T1 + 3 * MINUTE);
    expect(after.runs.counts).toMatchObject({ enqueued: 2, skipped_overlap: 1 });

    // The buffered one's request is now the previous one: it ended, so the next occurrence fires on time.
    w.statuses.set('req_2', 'succeeded');
    await w.advanceTo(T1 + 3 * MINUTE);
    expect(w.fired.map((f) => [f.at, f.now])).toEqual([
      [T1, T1],
      [T1 + MINUTE, w.fired[1]!.now],
      [T1 + 3 * MINUTE, T1 + 3 * MINUTE],
    ]);
    expect(w.errors()).toEqual([]);
  });

  it('max_runs: after that many occurrences the schedule ends, with no next run, and fires no more', async () => {
    const clock = new FakeClock(T0);
    const s = await aSchedule({ maxRuns: 2 });
    const w = firing(clock);
    await w.start();
    await w.advanceTo(T1 + MINUTE);
    expect(await stored(s.id)).toMatchObject({ status: 'ended', nextRunAt: null, lastRunAt: T1 + MINUTE, pauseReason: null });
    await w.advanceTo(T1 + 5 * MINUTE);
    expect(w.fired.map((f) => f.at)).toEqual([T1, T1 + MINUTE]);
    expect(w.errors()).toEqual([]);
  });

  it('pause_after_failures: after that many consecutive failed occurrences the next one is not fired; the schedule pauses for failures', async () => {
    const clock = new FakeClock(T0);
    const s = await aSchedule({ pauseAfterFailures: 2 });
    const w = firing(clock);
    await w.start();
    await w.advanceTo(T1);
    w.statuses.set('req_1', 'failed');
    await w.advanceTo(T1 + MINUTE);
    w.statuses.set('req_2', 'succeeded');
    // A success starts the streak again.
    await w.advanceTo(T1 + 2 * MINUTE);
    w.statuses.set('req_3', 'failed');
    await w.advanceTo(T1 + 3 * MINUTE);
    expect((await stored(s.id)).status).toBe('active');
    w.statuses.set('req_4', 'failed');
    await w.advanceTo(T1 + 4 * MINUTE);

    expect(w.fired.map((f) => f.at)).toEqual([T1, T1 + MINUTE, T1 + 2 * MINUTE, T1 + 3 * MINUTE]);
    const paused = await stored(s.id);
    expect(paused).toMatchObject({ status: 'paused', pauseReason: 'failures', nextRunAt: null, lastRunAt: T1 + 3 * MINUTE });
    expect(paused.runs.failureStreak).toBe(2);
    await w.advanceTo(T1 + 10 * MINUTE);
    expect(w.fired).toHaveLength(4);
    expect(w.errors()).toEqual([]);
  });

  it('a still active request is not counted yet: the streak waits for it', async () => {
    const clock = new FakeClock(T0);
    const s = await aSchedule({ pauseAfterFailures: 1 });
    const w = firing(clock);
    await w.start();
    await w.advanceTo(T1);
    w.statuses.set('req_1', 'delivering');
    await w.advanceTo(T1 + MINUTE);
    expect((await stored(s.id)).runs.watched).toEqual(['req_1', 'req_2']);
    w.statuses.set('req_1', 'failed');
    await w.advanceTo(T1 + 2 * MINUTE);
    expect(await stored(s.id)).toMatchObject({ status: 'paused', pauseReason: 'failures' });
    expect(w.fired).toHaveLength(2);
  });
});
