import { describe, expect, it } from 'vitest';
import { BudgetCommands } from '../../src/app/budget-commands.js';
import { BudgetQueries } from '../../src/app/budget-queries.js';
import { QueueUses } from '../../src/app/queue-uses.js';
import { IDLE_STATE, type BudgetConfig, type BudgetKind, type BudgetLimits, type BudgetState } from '../../src/domain/flow/budgets.js';
import type { Project } from '../../src/domain/project.js';
import type { StoredRequest } from '../../src/domain/request.js';
import type { BudgetStore } from '../../src/ports/budgets.js';
import { FakeClock } from '../support/fake-clock.js';

/** Budgets in memory, with every write recorded; `failNotes` makes `noteQueuesUsed` fail. */
class MemoryBudgets implements BudgetStore {
  readonly rows = new Map<string, BudgetConfig>();
  readonly notes: Array<[string, string[]]> = [];
  failNotes = false;

  private key(projectId: string, kind: BudgetKind, name: string): string {
    return `${projectId}/${kind}/${name}`;
  }

  async get(projectId: string, kind: BudgetKind, name: string) {
    return this.rows.get(this.key(projectId, kind, name)) ?? null;
  }

  async list(projectId: string, kind: BudgetKind, after: string | null, limit: number) {
    const all = [...this.rows.values()].filter((b) => b.projectId === projectId && b.kind === kind && (after === null || b.name > after));
    all.sort((a, b) => (a.name < b.name ? -1 : 1));
    const budgets = all.slice(0, limit);
    return { budgets, nextAfter: all.length > limit ? budgets.at(-1)!.name : null };
  }

  async putLimits(projectId: string, kind: BudgetKind, name: string, limits: BudgetLimits, now: number) {
    const earlier = await this.get(projectId, kind, name);
    const row = { projectId, kind, name, ...limits, paused: earlier?.paused ?? false, updatedAt: now };
    this.rows.set(this.key(projectId, kind, name), row);
    return row;
  }

  async setPaused(projectId: string, kind: BudgetKind, name: string, paused: boolean, now: number) {
    const earlier = await this.get(projectId, kind, name);
    const row = { projectId, kind, name, rate: null, concurrency: null, adaptive: true, ...earlier, paused, updatedAt: now };
    this.rows.set(this.key(projectId, kind, name), row);
    return row;
  }

  async noteQueuesUsed(projectId: string, names: readonly string[], now: number) {
    this.notes.push([projectId, [...names]]);
    if (this.failNotes) throw new Error('storage is down');
    for (const name of names) {
      if (!this.rows.has(this.key(projectId, 'queue', name))) await this.setPaused(projectId, 'queue', name, false, now);
    }
  }

  async changedSince() {
    return [];
  }
}

const PROJECT: Project = { id: 'prj_1', name: 'p', monthlyAllowance: 10, scheduleAllowance: 1, retentionDays: 1, captureResponseBodies: true, createdAt: 0 };
const SECRET = new Uint8Array(32).fill(7);
const BUSY: BudgetState = { inFlight: 3, startedInPeriod: 4, waiting: { rate: 1, concurrency: 2, paused: 0 }, admittedRate: 7.5 };

function setup() {
  const clock = new FakeClock(1_000);
  const store = new MemoryBudgets();
  const asked: string[] = [];
  const states = { stateOf: async (_p: string, kind: BudgetKind, name: string) => (asked.push(`${kind}/${name}`), name === 'busy' ? BUSY : IDLE_STATE) };
  const changed: BudgetConfig[] = [];
  const queries = new BudgetQueries(store, states, SECRET);
  const commands = new BudgetCommands(store, queries, clock, (c) => changed.push(c));
  return { clock, store, queries, commands, changed, asked };
}

describe('budget use cases', () => {
  it('reads a name never stored without limits, with its live state', async () => {
    const { queries } = setup();
    expect(await queries.get(PROJECT, 'flow_key', 'busy')).toEqual({
      kind: 'flow_key', name: 'busy', limits: { rate: null, concurrency: null, adaptive: true }, paused: false, updatedAt: null,
      // Without a rate there is no rate to report, whatever a process last published.
      state: { ...BUSY, startedInPeriod: null, admittedRate: null },
    });
  });

  it('stores a change, tells the hook and answers the budget as stored', async () => {
    const { commands, changed, clock } = setup();
    const set = await commands.setLimits(PROJECT, 'queue', 'busy', { rate: { limit: 5, period: '1m' }, concurrency: 2 });
    expect(set).toMatchObject({ limits: { rate: { limit: 5, periodMs: 60_000, burst: 5 }, concurrency: 2, adaptive: true }, paused: false, updatedAt: 1_000, state: BUSY });
    clock.advance(5);
    expect(await commands.pause(PROJECT, 'queue', 'busy')).toMatchObject({ paused: true, updatedAt: 1_005, limits: { concurrency: 2 } });
    expect(await commands.resume(PROJECT, 'queue', 'busy')).toMatchObject({ paused: false });
    expect(changed.map((c) => [c.kind, c.name, c.paused])).toEqual([['queue', 'busy', false], ['queue', 'busy', true], ['queue', 'busy', false]]);
  });

  it('validates the name and the whole configuration before writing anything', async () => {
    const { commands, store, changed } = setup();
    await expect(commands.setLimits(PROJECT, 'queue', 'a b', {})).rejects.toMatchObject({ code: 'INVALID_QUEUE', field: 'name' });
    await expect(commands.setLimits(PROJECT, 'flow_key', 'k', { concurrency: 1, rate: { limit: 0, period: '1s' } })).rejects.toMatchObject({ code: 'INVALID_BUDGET', field: 'rate.limit' });
    await expect(commands.pause(PROJECT, 'flow_key', 'a b')).rejects.toMatchObject({ code: 'INVALID_FLOW_KEY', field: 'key' });
    expect(store.rows.size).toBe(0);
    expect(changed).toEqual([]);
  });

  it('pages a list in name order with cursors bound to its kind', async () => {
    const { commands, queries } = setup();
    for (const name of ['c', 'a', 'b']) await commands.pause(PROJECT, 'flow_key', name);
    const first = await queries.list(PROJECT, 'flow_key', { limit: 2 });
    expect(first.items.map((i) => i.name)).toEqual(['a', 'b']);
    const second = await queries.list(PROJECT, 'flow_key', { limit: 2, cursor: first.nextCursor! });
    expect(second).toMatchObject({ items: [{ name: 'c' }], nextCursor: null });
    await expect(queries.list(PROJECT, 'queue', { cursor: first.nextCursor! })).rejects.toMatchObject({ code: 'INVALID_CURSOR' });
    await expect(queries.list(PROJECT, 'queue', { limit: 0 })).rejects.toMatchObject({ code: 'INVALID_LIMIT', field: 'limit' });
  });
});

function request(queue: string): StoredRequest {
  return { queue } as StoredRequest;
}

describe('queue uses', () => {
  it('writes each new (project, queue) once per process, and only the new ones', async () => {
    const store = new MemoryBudgets();
    const uses = new QueueUses(store, new FakeClock(0));
    await uses.note('prj_1', [request('a'), request('b'), request('a')]);
    await uses.note('prj_1', [request('a'), request('c')]);
    await uses.note('prj_2', [request('a')]);
    await uses.note('prj_1', [request('b')]);
    expect(store.notes).toEqual([['prj_1', ['a', 'b']], ['prj_1', ['c']], ['prj_2', ['a']]]);
  });

  it('forgets a failed write, so the next use tries again; it never rejects', async () => {
    const store = new MemoryBudgets();
    const errors: unknown[] = [];
    const uses = new QueueUses(store, new FakeClock(0), (err) => errors.push(err));
    store.failNotes = true;
    await uses.note('prj_1', [request('a')]);
    expect(errors).toHaveLength(1);
    store.failNotes = false;
    await uses.note('prj_1', [request('a')]);
    await uses.note('prj_1', [request('a')]);
    expect(store.notes).toEqual([['prj_1', ['a']], ['prj_1', ['a']]]);
  });
});
