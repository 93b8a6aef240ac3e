import { describe, expect, it } from 'vitest';
import { IDLE_STATE, type BudgetState } from '../../src/domain/flow/budgets.js';
import type { PublishedBudgetState } from '../../src/ports/budgets.js';
import { PROJECT_A, PROJECT_B } from './suite/harness.js';
import { scratchCassandraBackend } from './suite/scratch-cassandra.js';

const MINUTE = 60_000;
const RATED: BudgetState = { inFlight: 3, startedInPeriod: 7, waiting: { rate: 12, concurrency: 1, paused: 0 }, admittedRate: 2.5 };

function entry(name: string, state: BudgetState, overrides: Partial<PublishedBudgetState> = {}): PublishedBudgetState {
  return { projectId: PROJECT_A, kind: 'flow_key', name, state, ...overrides };
}

// Cassandra only: the board where delivering processes publish their budgets' state (`BudgetStateBoard`). The
// embedded backend has one delivering process, and no board.
describe('Cassandra budget state board', () => {
  const open = scratchCassandraBackend('board', 4);
  const board = () => open().budgetBoard;

  it('answers one state per process that published the budget, as published, and the latest of each', async () => {
    await board().publish('process-1', [entry('k', RATED), entry('other', IDLE_STATE)], MINUTE);
    await board().publish('process-2', [entry('k', IDLE_STATE)], MINUTE);
    const read = await board().read(PROJECT_A, 'flow_key', 'k');
    expect(read).toHaveLength(2);
    expect(read).toEqual(expect.arrayContaining([RATED, IDLE_STATE]));

    // Published again: replaced, nulls included (a rate removed leaves nothing of it behind).
    const unrated: BudgetState = { ...RATED, startedInPeriod: null, admittedRate: null, inFlight: 1 };
    await board().publish('process-1', [entry('k', unrated)], MINUTE);
    expect(await board().read(PROJECT_A, 'flow_key', 'k')).toEqual(expect.arrayContaining([unrated, IDLE_STATE]));
    expect(await board().read(PROJECT_A, 'flow_key', 'k')).toHaveLength(2);

    // By project, kind and name.
    expect(await board().read(PROJECT_A, 'flow_key', 'other')).toEqual([IDLE_STATE]);
    expect(await board().read(PROJECT_B, 'flow_key', 'k')).toEqual([]);
    expect(await board().read(PROJECT_A, 'queue', 'k')).toEqual([]);
  });

  it('takes a few thousand entries in one publish', async () => {
    const entries = Array.from({ length: 2_000 }, (_, i) => entry(`many-${i}`, { ...RATED, inFlight: i }, { kind: 'queue' }));
    await board().publish('process-1', entries, MINUTE);
    for (const i of [0, 31, 32, 1_999]) expect(await board().read(PROJECT_A, 'queue', `many-${i}`)).toEqual([{ ...RATED, inFlight: i }]);
  });

  it('drops an entry once its time to live is over', async () => {
    // 1 ms is a second's time to live (Cassandra counts whole seconds, and 0 would mean for ever), so it is gone
    // within about two.
    await board().publish('gone', [entry('brief', RATED)], 1);
    await board().publish('stays', [entry('brief', IDLE_STATE)], MINUTE);
    await expect.poll(() => board().read(PROJECT_A, 'flow_key', 'brief'), { timeout: 10_000, interval: 200 }).toEqual([IDLE_STATE]);
  });
});
