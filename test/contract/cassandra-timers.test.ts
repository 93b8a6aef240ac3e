import { describe, expect, it, vi } from 'vitest';
import { CassandraRequestStore } from '../../src/adapters/cassandra/requests/store.js';
import { SCHEDULE_TIMERS } from '../../src/adapters/cassandra/schedules/timers.js';
import { TimerTable } from '../../src/adapters/cassandra/timers/table.js';
import { TimerStamps } from '../../src/adapters/cassandra/timers/timer.js';
import { clockAt } from '../support/fake-clock.js';
import { PROJECT_A, aRequest, anAttempt, settled, succeededAt } from './suite/harness.js';
import { holdingEveryShard, scratchCassandraBackend } from './suite/scratch-cassandra.js';

const SHARDS = 4;
const HOUR = 3_600_000;

// Cassandra only: timer writes of concurrent changes share batches, and timer deletions are gathered and written
// per partition a moment later. Whatever the grouping, every timer a change made obsolete must go. Claims are
// stored at once here, so that they write lease timers.
describe('Cassandra timers around claims and outcomes', () => {
  const open = scratchCassandraBackend('timers', SHARDS, 0);

  it('leaves no timer behind for requests claimed and ended together, and keeps the lease timers until then', async () => {
    const backend = open();
    const now = Date.now();
    const requests = Array.from({ length: 60 }, () => aRequest({ projectId: PROJECT_A, createdAt: now }));
    await Promise.all(requests.map((r) => backend.requests.insertMany([r])));
    const leaseUntil = now + 60_000;
    const claimed = await backend.requests.claimDue(now + 1_000, 100, leaseUntil);
    expect(claimed.map((c) => c.request.id).sort()).toEqual(requests.map((r) => r.id).sort());

    const timers = async () => {
      const rs = await backend.session.read(`SELECT request_id, lease FROM ${backend.session.table('timers')}`, [], 'reading timers', 5000);
      const leases = rs.rows.filter((row) => row['lease'] === true).length;
      return { leases, others: rs.rowLength - leases };
    };
    // The claims' old timers go; one lease timer per claimed request stays.
    await expect.poll(timers, { timeout: 10_000 }).toEqual({ leases: 60, others: 0 });

    await Promise.all(
      claimed.map((c) => backend.requests.recordAttempt(c, settled(anAttempt(c.request.id, 1, { status: 'succeeded', responseStatusCode: 200 }), succeededAt(now + 10)))),
    );
    await expect.poll(timers, { timeout: 10_000 }).toEqual({ leases: 0, others: 0 });
  });

  it("deletes timers as of the store's own clock, whatever time the process's would say", async () => {
    const backend = open();
    // A store whose clock is an hour behind the machine's: its deletions must still shadow its own writes.
    const behind = () => Date.now() - HOUR;
    const store = new CassandraRequestStore(backend.session, { shardCount: SHARDS, claimStoredAfterMs: 0, clock: clockAt(behind), epochs: holdingEveryShard(2, behind()) });
    try {
      const now = behind();
      const requests = Array.from({ length: 8 }, () => aRequest({ projectId: PROJECT_A, createdAt: now }));
      await store.insertMany(requests);
      const claimed = await store.claimDue(now + 1_000, 100, now + 60_000);
      expect(claimed.map((c) => c.request.id).sort()).toEqual(requests.map((r) => r.id).sort());
      for (const c of claimed) {
        await store.recordAttempt(c, settled(anAttempt(c.request.id, 1, { status: 'succeeded', responseStatusCode: 200 }), succeededAt(now + 10)));
      }
      const ids = new Set(requests.map((r) => r.id));
      const left = async () => {
        const rs = await backend.session.read(`SELECT request_id FROM ${backend.session.table('timers')}`, [], 'reading timers', 5000);
        return rs.rows.filter((row) => ids.has(row['request_id'] as string)).length;
      };
      await expect.poll(left, { timeout: 10_000 }).toBe(0);
    } finally {
      await store.close();
    }
  });

  it("lists the buckets of shards asked for at once with one read, each shard's own, oldest first, up to the limit", async () => {
    const backend = open();
    const table = new TimerTable(backend.session, SCHEDULE_TIMERS, new TimerStamps({ now: () => Date.now() }));
    const { buckets } = SCHEDULE_TIMERS;
    const base = buckets.of(Date.now());
    // Shard 0 in three buckets, shard 2 in one, shards 1 and 3 in none.
    const timers = [
      { shard: 0, dueAt: buckets.start(base + 2), id: 'sch_a' },
      { shard: 0, dueAt: buckets.start(base), id: 'sch_b' },
      { shard: 0, dueAt: buckets.start(base + 5), id: 'sch_c' },
      { shard: 2, dueAt: buckets.start(base + 1), id: 'sch_d' },
    ];
    await backend.session.writeTogether(table.statements(timers, Date.now()), 'writing test timers');

    const reads = vi.spyOn(backend.session, 'read');
    try {
      const listed = await Promise.all([0, 1, 2, 3].map((shard) => table.entries(shard, base - 1, base + 10, 2, 'listing')));
      expect(listed).toEqual([[base, base + 2], [], [base + 1], []]);
      expect(reads).toHaveBeenCalledTimes(1);
      // Other bounds are another read; a shard asked for alone, the single-partition one.
      const [wider, alone] = await Promise.all([table.entries(0, base - 1, base + 10, 5, 'listing'), table.entries(2, base, base + 10, 5, 'listing')]);
      expect([wider, alone]).toEqual([[base, base + 2, base + 5], [base + 1]]);
      expect(reads).toHaveBeenCalledTimes(3);
    } finally {
      reads.mockRestore();
    }
  });
});
