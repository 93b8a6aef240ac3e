import { describe, expect, it } from 'vitest';
import { dayOf, insertListEntry, insertProjectDay } from '../../src/adapters/cassandra/requests/rows.js';
import { REQUEST_TIMERS, timerOf } from '../../src/adapters/cassandra/requests/timers.js';
import { TimerEngine } from '../../src/adapters/cassandra/timers/engine.js';
import { systemClock } from '../../src/domain/clock.js';
import { PROJECT_A, aRequest } from './suite/harness.js';
import { scratchCassandraBackend } from './suite/scratch-cassandra.js';

const SHARDS = 4;

// Cassandra only: a request stored on its own is written without the batch log, its own row last. Until that row
// is there, what points at it (its list entry, its timer) must lead nowhere.
describe('Cassandra single-request insert', () => {
  const open = scratchCassandraBackend('single', SHARDS);

  it('lists and claims nothing for a request whose own row was never written, and everything once it is', async () => {
    const backend = open();
    const now = Date.now();
    const r = aRequest({ projectId: PROJECT_A, createdAt: now, body: new Uint8Array([7, 0, 255]) });
    const s = backend.session;
    // What a process that stopped between the two steps of the insert leaves behind.
    const timer = timerOf(SHARDS, r)!;
    const timers = new TimerEngine(s, REQUEST_TIMERS, { clock: systemClock, background: () => undefined });
    const leftovers = [insertListEntry(s, r), insertProjectDay(s, PROJECT_A, dayOf(now)), ...timers.statements([timer])];
    for (const row of leftovers) await s.execute(row.query, row.params!, 'writing what an insert leaves');

    expect(await backend.requests.list({ projectId: PROJECT_A, terminalCutoff: 0, limit: 10 })).toEqual([]);
    expect(await backend.requests.get(PROJECT_A, r.id)).toBeNull();
    expect(await backend.requests.claimDue(now + 1_000, 10, now + 60_000)).toEqual([]);

    await backend.requests.insertMany([r]);
    expect(await backend.requests.get(PROJECT_A, r.id)).toEqual(r);
    expect((await backend.requests.list({ projectId: PROJECT_A, terminalCutoff: 0, limit: 10 })).map((x) => x.id)).toEqual([r.id]);
    const claimed = await backend.requests.claimDue(now + 1_000, 10, now + 60_000);
    expect(claimed.map(({ request: x }) => [x.id, x.status, x.body])).toEqual([[r.id, 'delivering', r.body]]);
  });
});
