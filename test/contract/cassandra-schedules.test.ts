import { describe, expect, it } from 'vitest';
import { openCassandraBackend, type CassandraBackend } from '../../src/adapters/cassandra/backend.js';
import { CassandraScheduleStore } from '../../src/adapters/cassandra/schedules/store.js';
import { SCHEDULE_TIMERS } from '../../src/adapters/cassandra/schedules/timers.js';
import { TIMER_FLOORS } from '../../src/adapters/cassandra/timers/floors.js';
import { systemClock, type Clock } from '../../src/domain/clock.js';
import { shardOf } from '../../src/domain/shards.js';
import { clockAt } from '../support/fake-clock.js';
import { infra } from '../support/infra.js';
import { PROJECT_A, aSchedule, nextScheduleId, useBackend } from './suite/harness.js';
import { TestKeyspaces } from './suite/scratch-cassandra.js';

const SHARDS = 8;
const MINUTE = 60_000;
const BUCKET_MS = SCHEDULE_TIMERS.buckets.ms;
const bucketOf = (t: number) => SCHEDULE_TIMERS.buckets.of(t);

// What the schedule port does not show on Cassandra (the port's own suite runs in cassandra.test.ts): the
// backend's other stores as they are, its `schedules` built here on the backend's session with the test's clock. Keyspaces are lent from the test pool, as in cassandra.test.ts.
const keyspaces = new TestKeyspaces('ferry_cs');

const connection = (keyspace: string) => ({ ...infra.cassandra.connection(keyspace), shardCount: SHARDS });

interface ScheduleBackend extends CassandraBackend {
  readonly schedules: CassandraScheduleStore;
}

async function openBackend(clock: Clock = systemClock): Promise<ScheduleBackend> {
  const lent = await keyspaces.take();
  const backend = await openCassandraBackend(connection(lent.keyspace));
  const schedules = new CassandraScheduleStore(backend.session, { shardCount: SHARDS, clock });
  return {
    ...backend,
    schedules,
    close: async () => {
      await schedules.close();
      await backend.close();
      await keyspaces.giveBack(lent);
    },
  };
}

/** Rows of the timer tables, for what the port does not show. */
async function timerRows(b: CassandraBackend): Promise<{ timers: string[]; buckets: string[]; entries: string[] }> {
  const all = async (table: string, columns: string) =>
    (await b.session.read(`SELECT ${columns} FROM ${b.session.table(table)}`, [], 'reading test rows', 5000)).rows.map((r) =>
      columns
        .split(', ')
        .map((c) => String(r[c]))
        .join('/'),
    );
  return {
    timers: (await all('schedule_timers', 'schedule_id, due_at')).sort(),
    buckets: (await all('schedule_timer_buckets', 'shard, bucket')).sort(),
    entries: (await all('schedules_by_project', 'project_id, id')).sort(),
  };
}

describe('Cassandra schedules: timer rows', () => {
  const backend = useBackend(() => openBackend()) as () => ScheduleBackend;
  const store = () => backend().schedules;
  const now = Date.now();

  it('keeps exactly one timer per active schedule through moves, pauses and deletion', async () => {
    const s = aSchedule({ nextRunAt: now + MINUTE });
    await store().insert(s);
    expect((await timerRows(backend())).timers).toEqual([`${s.id}/${now + MINUTE}`]);

    await store().update(PROJECT_A, s.id, 1, { nextRunAt: now + 3 * BUCKET_MS });
    await expect.poll(async () => (await timerRows(backend())).timers).toEqual([`${s.id}/${now + 3 * BUCKET_MS}`]);

    await store().update(PROJECT_A, s.id, 2, { status: 'paused', nextRunAt: null });
    await expect.poll(async () => (await timerRows(backend())).timers).toEqual([]);

    // Resumed at the time it had before the pause: the pause's late deletion must not take the new timer.
    await store().update(PROJECT_A, s.id, 3, { status: 'active', nextRunAt: now + 3 * BUCKET_MS });
    await store().close();
    expect((await timerRows(backend())).timers).toEqual([`${s.id}/${now + 3 * BUCKET_MS}`]);
  });

  it('removes the list entry and the timer of a deleted schedule', async () => {
    const s = aSchedule({ nextRunAt: now + MINUTE });
    await store().insert(s);
    expect(await store().delete(PROJECT_A, s.id)).toBe(true);
    const rows = await timerRows(backend());
    expect(rows.timers).toEqual([]);
    expect(rows.entries).toEqual([]);
  });

  it('takes the same schedule stored twice as stored once, and refuses another one under its ID', async () => {
    const s = aSchedule();
    await store().insert(s);
    await store().insert(s);
    await expect(store().insert({ ...s, name: 'other', createdAt: s.createdAt + 1 })).rejects.toThrow(/exists already/);
    expect(await store().get(PROJECT_A, s.id)).toStrictEqual(s);
  });

  it('drops the entries of buckets left empty once they are past, and keeps those that still hold timers', async () => {
    const fired = aSchedule({ nextRunAt: now - 5 * BUCKET_MS });
    const overdue = aSchedule({ nextRunAt: now - 4 * BUCKET_MS });
    await store().insert(fired);
    await store().insert(overdue);
    await store().update(PROJECT_A, fired.id, 1, { nextRunAt: now + BUCKET_MS });
    await store().close();

    // Another process whose clock is two minutes on: entries written in the last minute before a scan are not
    // its to drop.
    const later = new CassandraScheduleStore(backend().session, { shardCount: SHARDS, clock: clockAt(() => Date.now() + 2 * MINUTE) });
    expect((await later.due(now, 10)).map((s) => s.id)).toEqual([overdue.id]);
    await later.close();
    const bucket = (t: number, id: string) => `${shardOf(id, SHARDS)}/${bucketOf(t)}`;
    expect((await timerRows(backend())).buckets).toEqual([bucket(now - 4 * BUCKET_MS, overdue.id), bucket(now + BUCKET_MS, fired.id)].sort());
  });

  it('answers null from nextDueAt when the first live timer lies beyond its horizon, and exactly within it', async () => {
    const early = aSchedule({ nextRunAt: now + 10 * MINUTE });
    const far = aSchedule({ nextRunAt: now + 5 * BUCKET_MS });
    await store().insert(early);
    await store().insert(far);
    expect(await store().nextDueAt()).toBe(now + 10 * MINUTE);

    await store().update(PROJECT_A, early.id, 1, { status: 'paused', nextRunAt: null });
    expect(await store().nextDueAt()).toBeNull();
    expect(await store().due(now + 5 * BUCKET_MS, 10)).toEqual([await store().get(PROJECT_A, far.id)]);
    expect((await store().due(Number.MAX_SAFE_INTEGER, 10)).map((s) => s.id)).toEqual([far.id]);
  });
});

describe('Cassandra schedules: timings stored before the DST policy and bounds', () => {
  const backend = useBackend(() => openBackend()) as () => ScheduleBackend;

  it('read back with their defaults', async () => {
    const b = backend();
    const s = aSchedule({ timing: { type: 'cron', expression: '30 2 * * *', timezone: 'Europe/Berlin', dst: { gap: 'skip', overlap: 'second' }, startsAt: null, endsAt: null } });
    await b.schedules.insert(s);
    expect((await b.schedules.get(PROJECT_A, s.id))?.timing).toEqual(s.timing);
    const legacy = '{"type":"cron","expression":"30 2 * * *","timezone":"Europe/Berlin"}';
    await b.session.execute(`UPDATE ${b.session.table('schedules')} SET timing = ? WHERE id = ? IF EXISTS`, [legacy, s.id], 'rewriting a test row');
    expect((await b.schedules.get(PROJECT_A, s.id))?.timing).toEqual({
      type: 'cron',
      expression: '30 2 * * *',
      timezone: 'Europe/Berlin',
      dst: { gap: 'shift', overlap: 'first' },
      startsAt: null,
      endsAt: null,
    });
  });
});

describe('Cassandra schedules: scan floors', () => {
  // Forty minutes into an hour, so that every time below falls into the same bucket.
  const start = Date.UTC(2029, 5, 1, 10, 40);
  let time = start;
  const clock = clockAt(() => time);
  const backend = useBackend(() => openBackend(clock)) as () => ScheduleBackend;

  it("reads from where the timers begin: its own late timers are seen at once, another process's after a full read", async () => {
    time = start;
    const store = backend().schedules;
    const ids = sameShardIds(3);
    const found = async () => (await store.due(time, 10)).map((s) => s.id);
    const first = aSchedule({ id: ids[0], nextRunAt: start - 10 * MINUTE });
    await store.insert(first);
    expect(await found()).toEqual([first.id]);
    time += 1_000;
    expect(await found()).toEqual([first.id]);

    // Written here, behind the floor the scans above left: seen at once.
    const own = aSchedule({ id: ids[1], nextRunAt: start - 20 * MINUTE });
    await store.insert(own);
    expect(await found()).toEqual([own.id, first.id]);

    // Written by another process, due well before the floor: missed until the bucket is read whole again.
    const other = new CassandraScheduleStore(backend().session, { shardCount: SHARDS, clock });
    const foreign = aSchedule({ id: ids[2], nextRunAt: start - 35 * MINUTE });
    await other.insert(foreign);
    await other.close();
    time += 1_000;
    expect(await found()).toEqual([own.id, first.id]);
    time += TIMER_FLOORS.fullReadEveryMs;
    expect(await found()).toEqual([foreign.id, own.id, first.id]);
  });
});

/** Schedule IDs in one shard, in creation order. */
function sameShardIds(count: number): string[] {
  const ids: string[] = [];
  let shard: number | undefined;
  while (ids.length < count) {
    const id = nextScheduleId();
    shard ??= shardOf(id, SHARDS);
    if (shardOf(id, SHARDS) === shard) ids.push(id);
  }
  return ids;
}
