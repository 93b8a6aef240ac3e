import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openEmbeddedBackend } from '../../src/adapters/embedded/backend.js';
import { BudgetQueries } from '../../src/app/budget-queries.js';
import { StatsQueries } from '../../src/app/stats-queries.js';
import { StatsRecorder } from '../../src/app/stats-recorder.js';
import { IDLE_STATE } from '../../src/domain/flow/budgets.js';
import type { Project } from '../../src/domain/project.js';
import { MINUTE_MS, minuteOf, windowStart } from '../../src/domain/stats.js';
import type { Backend } from '../../src/ports/backend.js';
import { FakeClock } from '../support/fake-clock.js';

const T0 = Date.UTC(2030, 0, 15, 12, 0, 10);
const project = (id: string): Project => ({ id }) as Project;
const accepted = (projectId: string, n: number, source = 'api') => Array.from({ length: n }, () => ({ projectId, source }));

describe('stats: counting by minute, written in batches', () => {
  let backend: Backend;
  let clock: FakeClock;
  let recorder: StatsRecorder;
  let queries: StatsQueries;

  beforeEach(() => {
    backend = openEmbeddedBackend({ path: join(mkdtempSync(join(tmpdir(), 'ferry-stats-')), 'db.sqlite') });
    clock = new FakeClock(T0);
    recorder = new StatsRecorder(backend.stats, clock, 'proc-a', { flushMs: 5_000 });
    recorder.start();
    // No delivering process reports any budget here: every queue stands idle.
    const budgets = new BudgetQueries(backend.budgets, { stateOf: async () => IDLE_STATE }, new Uint8Array(32));
    queries = new StatsQueries(backend.stats, recorder, budgets, clock);
  });
  afterEach(async () => {
    await recorder.stop();
    await backend.close();
  });

  it('counts per project and minute, stores nothing before the flush, and answers its own counts at once', async () => {
    recorder.accepted([...accepted('prj_a', 3), ...accepted('prj_b', 1), { projectId: 'prj_a', source: 'callback' }]);
    recorder.attemptEnded('prj_a', 'delivered');
    recorder.attemptEnded('prj_a', 'retried');
    expect(await backend.stats.minutes('prj_a', 0)).toEqual([]);
    const seen = await queries.of(project('prj_a'));
    expect(seen.minutes).toEqual([{ minute: minuteOf(T0), counts: { accepted: 4, delivered: 1, failed: 0, retried: 1, callbacks: 1 } }]);
    expect(seen.failureRate).toBe(0);

    clock.advance(5_000);
    await recorder.flush();
    expect(await backend.stats.minutes('prj_a', 0)).toEqual([
      { minute: minuteOf(T0), processId: 'proc-a', counts: { accepted: 4, delivered: 1, failed: 0, retried: 1, callbacks: 1 } },
    ]);
    expect((await queries.of(project('prj_b'))).totals).toEqual({ accepted: 1, delivered: 0, failed: 0, retried: 0, callbacks: 0 });
  });

  it('writes whole totals, so a second flush or a later count of the same minute never counts twice', async () => {
    recorder.attemptEnded('prj_a', 'failed');
    await recorder.flush();
    await recorder.flush();
    recorder.attemptEnded('prj_a', 'failed');
    await recorder.flush();
    const stored = await backend.stats.minutes('prj_a', 0);
    expect(stored).toHaveLength(1);
    expect(stored[0]!.counts.failed).toBe(2);
    expect((await queries.of(project('prj_a'))).totals.failed).toBe(2);
  });

  it('sums the processes of a minute, and keeps the minutes apart', async () => {
    const other = new StatsRecorder(backend.stats, clock, 'proc-b');
    recorder.accepted(accepted('prj_a', 2));
    other.accepted(accepted('prj_a', 5));
    await other.flush();
    clock.advance(MINUTE_MS);
    recorder.accepted(accepted('prj_a', 1));
    const { minutes, totals } = await queries.of(project('prj_a'));
    expect(minutes.map((m) => [m.minute, m.counts.accepted])).toEqual([
      [minuteOf(T0), 7],
      [minuteOf(T0) + MINUTE_MS, 1],
    ]);
    expect(totals.accepted).toBe(8);
    await other.stop();
  });

  it('flushes on its timer, lets go of minutes that are over once stored, and answers them from storage', async () => {
    recorder.accepted(accepted('prj_a', 2));
    clock.advance(5_000);
    await recorder.flush(); // the one the timer started
    expect(await backend.stats.minutes('prj_a', 0)).toHaveLength(1);
    clock.advance(2 * MINUTE_MS);
    await recorder.flush();
    expect(recorder.held('prj_a').size).toBe(0);
    expect((await queries.of(project('prj_a'))).totals.accepted).toBe(2);
  });

  it('covers the last 24 hours: a minute falls out of the window, and storage drops it after a day', async () => {
    recorder.accepted(accepted('prj_a', 1));
    await recorder.flush();
    clock.advance(23 * 60 * MINUTE_MS);
    recorder.accepted(accepted('prj_a', 1));
    let view = await queries.of(project('prj_a'));
    expect(view.from).toBe(windowStart(clock.now()));
    expect(view.totals.accepted).toBe(2);
    clock.advance(61 * MINUTE_MS);
    view = await queries.of(project('prj_a'));
    expect(view.totals.accepted).toBe(1);
    expect(view.minutes[0]!.minute).toBeGreaterThanOrEqual(view.from);
    // The next write drops minutes over a day and an hour old.
    clock.advance(2 * 60 * MINUTE_MS);
    recorder.accepted(accepted('prj_c', 1));
    await recorder.flush();
    expect((await backend.stats.minutes('prj_a', 0)).map((m) => m.minute)).toEqual([minuteOf(T0) + 23 * 60 * MINUTE_MS]);
  });

  it('keeps counts that failed to be written, and writes them at the next flush', async () => {
    const problems: string[] = [];
    const failing = new StatsRecorder({ ...backend.stats, putTotals: () => Promise.reject(new Error('storage away')), minutes: (p, f) => backend.stats.minutes(p, f), backlog: (p) => backend.stats.backlog(p) }, clock, 'proc-c', {
      onProblem: (what) => problems.push(what),
    });
    failing.accepted(accepted('prj_d', 3));
    await failing.flush();
    expect(problems).toHaveLength(1);
    expect(failing.held('prj_d').get(minuteOf(T0))?.accepted).toBe(3);
    const recovered = new StatsRecorder(backend.stats, clock, 'proc-c');
    // The same process's totals, written again by a store that answers: nothing lost, nothing doubled.
    recovered.accepted(accepted('prj_d', 3));
    await recovered.flush();
    expect((await backend.stats.minutes('prj_d', 0))[0]!.counts.accepted).toBe(3);
  });

  it('bounds the entries it holds: past twice the bound, counts of new projects are dropped and reported', async () => {
    const problems: Array<Record<string, unknown>> = [];
    const small = new StatsRecorder(backend.stats, clock, 'proc-d', { maxEntries: 2, onProblem: (_w, d) => problems.push(d) });
    for (let i = 0; i < 6; i++) small.accepted(accepted(`prj_${i}`, 1));
    await small.flush();
    expect(problems).toContainEqual({ dropped: 2 });
  });
});
