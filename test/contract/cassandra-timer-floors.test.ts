import { describe, expect, it, vi } from 'vitest';
import { CassandraRequestStore } from '../../src/adapters/cassandra/requests/store.js';
import type { TimerFloorSettings } from '../../src/adapters/cassandra/timers/floors.js';
import type { Claim } from '../../src/ports/requests.js';
import { aRequest, anAttempt, settled, succeededAt } from './suite/harness.js';
import { holdingEveryShard, scratchCassandraBackend } from './suite/scratch-cassandra.js';

const LEASE_MS = 60_000;

// Cassandra only: claims delete the timers they are done with, and later reads of a bucket start past them (see
// TimerFloors), without losing a timer that lands behind such a start.
describe('Cassandra timer reads start past the timers done', () => {
  const open = scratchCassandraBackend('floors', 1, 60_000);

  const withStore = async (floors: TimerFloorSettings, run: (store: CassandraRequestStore) => Promise<void>) => {
    const store = new CassandraRequestStore(open().session, { shardCount: 1, claimStoredAfterMs: 60_000, timerFloors: floors, epochs: holdingEveryShard() });
    try {
      await run(store);
    } finally {
      await store.close();
    }
  };
  const timerCount = async () => {
    const rs = await open().session.read(`SELECT request_id FROM ${open().session.table('timers')}`, [], 'reading timers', 5000);
    return rs.rowLength;
  };
  // A request created at its due time: `aRequest` makes it due when created.
  const due = (dueAt: number) => aRequest({ createdAt: dueAt });
  const claimAll = async (store: CassandraRequestStore) => store.claimDue(Date.now(), 500, Date.now() + LEASE_MS);
  const succeed = (store: CassandraRequestStore, claimed: readonly Claim[]) =>
    Promise.all(claimed.map((c) => store.recordAttempt(c, settled(anAttempt(c.request.id, 1, { status: 'succeeded', responseStatusCode: 200 }), succeededAt(Date.now())))));
  /**
   * Where the reads of timers made while `run` runs start: the due time after which each read of due timers
   * starts, and how many reads start at the beginning of their buckets (the look for each bucket's earliest).
   */
  const timerReads = async (run: () => Promise<unknown>) => {
    const read = vi.spyOn(open().session, 'read');
    try {
      await run();
      const queries = read.mock.calls.map(([query, params]) => ({ query, params: params as unknown[] }));
      return {
        dueFrom: queries.filter((q) => q.query.includes('(due_at, request_id) >')).map((q) => Number(q.params[2])),
        fromStart: queries.filter((q) => q.query.includes('PER PARTITION LIMIT 1')).length,
      };
    } finally {
      read.mockRestore();
    }
  };

  it('reads a bucket from past the timers its claims are done with, and still finds new due work at once', async () => {
    await withStore({ lateWriteMs: 1_000, fullReadEveryMs: 60_000 }, async (store) => {
      const base = Date.now() - 30_000;
      const done = Array.from({ length: 40 }, (_, i) => due(base + i));
      await store.insertMany(done);
      const claimed = await claimAll(store);
      expect(claimed.map((c) => c.request.id).sort()).toEqual(done.map((r) => r.id).sort());
      await succeed(store, claimed);
      await expect.poll(timerCount, { timeout: 10_000 }).toBe(0);

      // The first look after the outcomes passes their deletions once; from then on reads start past them.
      expect(await claimAll(store)).toEqual([]);
      const reads = await timerReads(() => claimAll(store));
      expect(reads.fromStart).toBe(0);
      for (const from of reads.dueFrom) expect(from).toBeGreaterThan(base + 40);

      const fresh = due(Date.now());
      await store.insertMany([fresh]);
      const [claimedFresh] = await claimAll(store);
      expect(claimedFresh?.request.id).toBe(fresh.id);
      await succeed(store, [claimedFresh!]);
      await expect.poll(timerCount, { timeout: 10_000 }).toBe(0);
    });
  });

  it('finds a timer that lands behind the start of the reads, by reading the bucket from its start again', async () => {
    await withStore({ lateWriteMs: 1_000, fullReadEveryMs: 3_000 }, async (store) => {
      const first = due(Date.now() - 20_000);
      await store.insertMany([first]);
      await succeed(store, await claimAll(store));
      await expect.poll(timerCount, { timeout: 10_000 }).toBe(0);
      expect(await claimAll(store)).toEqual([]);

      // Due just after the timer done, in the same bucket: written this late, it lands behind where reads start.
      const late = due(first.dueAt! + 1);
      await store.insertMany([late]);
      const claimed = new Map<string, Claim>();
      await expect
        .poll(
          async () => {
            for (const c of await claimAll(store)) claimed.set(c.request.id, c);
            return claimed.has(late.id);
          },
          { timeout: 20_000, interval: 250 },
        )
        .toBe(true);
      await succeed(store, [...claimed.values()]);
      await expect.poll(timerCount, { timeout: 10_000 }).toBe(0);
    });
  });
});
