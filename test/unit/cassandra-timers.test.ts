import { describe, expect, it } from 'vitest';
import { REQUEST_TIMERS } from '../../src/adapters/cassandra/requests/timers.js';
import { SCHEDULE_TIMERS } from '../../src/adapters/cassandra/schedules/timers.js';
import type { CassandraSession, Statement } from '../../src/adapters/cassandra/session.js';
import { TimerFloors } from '../../src/adapters/cassandra/timers/floors.js';
import { ShardScan, inDueOrder, type ScanLimits, type ScanTable } from '../../src/adapters/cassandra/timers/scan.js';
import { TimerTable } from '../../src/adapters/cassandra/timers/table.js';
import {
  EMPTY_BUCKET_AGE_MS,
  FIRST_POSITION,
  SWEEP_MARGIN_US,
  TimerStamps,
  compareTimers,
  type Timer,
  type TimerKind,
  type TimerPosition,
} from '../../src/adapters/cassandra/timers/timer.js';
import { clockAt } from '../support/fake-clock.js';

// The timer engine is one implementation configured twice; every case runs on both configurations.
const KINDS = [
  { name: 'request timers (minute buckets)', kind: REQUEST_TIMERS as TimerKind<Timer> },
  { name: 'schedule timers (hour buckets)', kind: SCHEDULE_TIMERS },
];

const SETTINGS = { lateWriteMs: 1_000, fullReadEveryMs: 10_000 };
const SHARD = 3;
/** Forty minutes and a half into an hour: the current bucket of either width has begun a while ago. */
const NOW = Date.UTC(2026, 0, 1, 10, 40, 30);

describe.each(KINDS)('timer floors: $name', ({ kind }) => {
  const buckets = kind.buckets;
  const BUCKET = buckets.of(NOW);
  const START = buckets.start(BUCKET);
  const floorsAt = (at: { now: number }) => new TimerFloors(clockAt(() => at.now), buckets, SETTINGS);
  const from = (dueAt: number): TimerPosition => ({ dueAt, id: '' });

  it('reads a bucket from its start until a read from there has been seen', () => {
    const floors = floorsAt({ now: START + 30_000 });
    expect(floors.start(SHARD, BUCKET)).toBe(FIRST_POSITION);
    expect(floors.empty(SHARD, BUCKET)).toBe(false);
  });

  it('starts at the first timer seen, or lateWriteMs before the read, whichever is earlier', () => {
    const at = { now: START + 30_000 };
    const floors = floorsAt(at);
    floors.saw(SHARD, BUCKET, FIRST_POSITION, at.now, START + 29_500, at.now);
    expect(floors.start(SHARD, BUCKET)).toEqual(from(START + 29_000));
    floors.saw(SHARD, BUCKET, FIRST_POSITION, at.now, START + 20_000, at.now);
    expect(floors.start(SHARD, BUCKET)).toEqual(from(START + 20_000));
    // Nothing due up to the read: only the late-write margin holds the start back.
    floors.saw(SHARD, BUCKET, FIRST_POSITION, at.now, undefined, at.now);
    expect(floors.start(SHARD, BUCKET)).toEqual(from(START + 29_000));
    // A floor before the bucket's start is a read from its start.
    floors.saw(SHARD, BUCKET, FIRST_POSITION, at.now, START, at.now);
    expect(floors.start(SHARD, BUCKET)).toBe(FIRST_POSITION);
    // Floors are per shard and bucket.
    floors.saw(SHARD + 1, BUCKET, FIRST_POSITION, at.now, undefined, at.now);
    expect(floors.start(SHARD, BUCKET)).toBe(FIRST_POSITION);
  });

  it('goes back to the start of a bucket every fullReadEveryMs, however recent its last floor', () => {
    const at = { now: START + 30_000 };
    const floors = floorsAt(at);
    floors.saw(SHARD, BUCKET, FIRST_POSITION, at.now, undefined, at.now);
    for (let i = 1; i < 5; i++) {
      at.now += 2_000;
      const start = floors.start(SHARD, BUCKET);
      expect(start).not.toBe(FIRST_POSITION);
      // Reads from a floor move it on without counting as reads from the start.
      floors.saw(SHARD, BUCKET, start, at.now, undefined, at.now);
    }
    at.now += 2_000;
    expect(floors.start(SHARD, BUCKET)).toBe(FIRST_POSITION);
  });

  it('learns nothing from a read whose floor was dropped meanwhile', () => {
    const at = { now: START + 30_000 };
    const floors = floorsAt(at);
    floors.saw(SHARD, BUCKET, FIRST_POSITION, at.now, undefined, at.now);
    const start = floors.start(SHARD, BUCKET);
    floors.forget(SHARD, BUCKET);
    floors.saw(SHARD, BUCKET, start, at.now, undefined, at.now);
    expect(floors.start(SHARD, BUCKET)).toBe(FIRST_POSITION);
  });

  it('knows a bucket empty only once it ended lateWriteMs before a read that found nothing in it', () => {
    const at = { now: START + buckets.ms + 500 };
    const floors = floorsAt(at);
    floors.saw(SHARD, BUCKET, FIRST_POSITION, at.now, undefined, Number.MAX_SAFE_INTEGER);
    expect(floors.empty(SHARD, BUCKET)).toBe(false);
    at.now += 600;
    floors.saw(SHARD, BUCKET, FIRST_POSITION, at.now, undefined, Number.MAX_SAFE_INTEGER);
    expect(floors.empty(SHARD, BUCKET)).toBe(true);
    // A timer found in it makes it occupied again.
    floors.saw(SHARD, BUCKET, FIRST_POSITION, at.now, START + 1, Number.MAX_SAFE_INTEGER);
    expect(floors.empty(SHARD, BUCKET)).toBe(false);
    at.now += SETTINGS.fullReadEveryMs;
    expect(floors.empty(SHARD, BUCKET)).toBe(false);
  });

  it('moves the floor back to a timer this process wrote behind it, and a bucket known empty is no longer', () => {
    const at = { now: START + 30_000 };
    const floors = floorsAt(at);
    floors.saw(SHARD, BUCKET, FIRST_POSITION, at.now, START + 29_500, at.now);
    floors.wrote(SHARD, START + 5_000);
    expect(floors.start(SHARD, BUCKET)).toEqual(from(START + 5_000));
    // One written past the floor changes nothing.
    floors.wrote(SHARD, START + 25_000);
    expect(floors.start(SHARD, BUCKET)).toEqual(from(START + 5_000));

    const past = BUCKET - 1;
    floors.saw(SHARD, past, FIRST_POSITION, at.now, undefined, Number.MAX_SAFE_INTEGER);
    expect(floors.empty(SHARD, past)).toBe(true);
    floors.wrote(SHARD, buckets.start(past) + 10);
    expect(floors.empty(SHARD, past)).toBe(false);
    expect(floors.start(SHARD, past)).toEqual(from(buckets.start(past) + 10));
  });
});

/** A timer table in memory, noting every read, for the scan. */
class MemoryTable implements ScanTable<Timer> {
  readonly stamps: TimerStamps;
  readonly reads: { what: 'entries' | 'earliest' | 'due'; shard: number; buckets: number[]; after?: TimerPosition }[] = [];
  readonly dropped: { shard: number; bucket: number; asOf: number }[] = [];
  private rows: Timer[] = [];
  private readonly listed = new Set<string>();

  constructor(
    readonly kind: TimerKind<Timer>,
    clock: { now(): number },
  ) {
    this.stamps = new TimerStamps(clock);
  }

  add(...timers: Timer[]): void {
    for (const t of timers) {
      this.rows.push(t);
      this.list(t.shard, this.kind.buckets.of(t.dueAt));
    }
    this.rows.sort(compareTimers);
  }

  /** A bucket entry with no timer (left by timers since deleted). */
  list(shard: number, bucket: number): void {
    this.listed.add(`${shard}/${bucket}`);
  }

  delete(...timers: Timer[]): void {
    this.rows = this.rows.filter((r) => !timers.some((t) => compareTimers(r, t) === 0 && r.shard === t.shard));
  }

  entries(shard: number, after: number, upTo: number, limit: number): Promise<number[]> {
    const found = [...this.listed]
      .map((k) => k.split('/').map(Number) as [number, number])
      .filter(([s, b]) => s === shard && b > after && b <= upTo)
      .map(([, b]) => b)
      .sort((a, b) => a - b)
      .slice(0, limit);
    this.reads.push({ what: 'entries', shard, buckets: found });
    return Promise.resolve(found);
  }

  earliest(shard: number, buckets: readonly number[]): Promise<Map<number, Timer>> {
    this.reads.push({ what: 'earliest', shard, buckets: [...buckets] });
    const found = new Map<number, Timer>();
    for (const bucket of buckets) {
      const first = this.inBucket(shard, bucket)[0];
      if (first !== undefined) found.set(bucket, first);
    }
    return Promise.resolve(found);
  }

  due(shard: number, bucket: number, after: TimerPosition, dueBy: number, limit: number): Promise<Timer[]> {
    this.reads.push({ what: 'due', shard, buckets: [bucket], after });
    return Promise.resolve(
      this.inBucket(shard, bucket)
        .filter((t) => compareTimers(t, after) > 0 && t.dueAt <= dueBy)
        .slice(0, limit),
    );
  }

  forgetEntry(shard: number, bucket: number, asOf: number): Promise<void> {
    this.listed.delete(`${shard}/${bucket}`);
    this.dropped.push({ shard, bucket, asOf });
    return Promise.resolve();
  }

  readsOf(what: 'entries' | 'earliest' | 'due') {
    return this.reads.filter((r) => r.what === what);
  }

  private inBucket(shard: number, bucket: number): Timer[] {
    return this.rows.filter((t) => t.shard === shard && this.kind.buckets.of(t.dueAt) === bucket);
  }
}

describe.each(KINDS)('timer scans: $name', ({ kind }) => {
  const buckets = kind.buckets;
  const B = buckets.of(NOW);
  /** A timer as the kind reads it back: request timers carry their lease flag. */
  const timer = (shard: number, dueAt: number, id: string): Timer => kind.fromRow({ shard, dueAt, id }, { lease: false });

  function setUp() {
    const at = { now: NOW };
    const clock = clockAt(() => at.now);
    const table = new MemoryTable(kind, clock);
    const floors = new TimerFloors(clock, buckets, SETTINGS);
    const tasks: Promise<unknown>[] = [];
    const scan = (shards: readonly number[], limits: ScanLimits, pageSize = 2) =>
      shards.map((shard) => new ShardScan<Timer>(table, floors, (task) => void tasks.push(task()), shard, limits, pageSize));
    const due = async (limits: ScanLimits = { throughBucket: B, dueBy: at.now, forget: true }, shards = [1, 2]) => {
      const ids: string[] = [];
      for await (const t of inDueOrder(scan(shards, limits))) ids.push(t.id);
      await Promise.all(tasks);
      return ids;
    };
    return { at, table, floors, scan, due };
  }

  it('merges the shards into one due order, across buckets and pages, up to the due time and the last bucket', async () => {
    const { table, due } = setUp();
    const s = buckets.start(B);
    table.add(
      timer(1, s - 2 * buckets.ms + 5, 'a'),
      timer(2, s - buckets.ms + 1, 'b'),
      timer(1, s + 10, 'c'),
      timer(2, s + 10, 'd'),
      timer(1, s + 20, 'e'),
      timer(2, s + 30, 'f'),
      timer(1, s + 40, 'g'),
      timer(1, NOW + 1, 'not due yet'),
      timer(2, buckets.start(B + 1), 'next bucket'),
    );
    expect(await due()).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
    expect(await due({ throughBucket: B + 1, dueBy: Number.MAX_SAFE_INTEGER, forget: false })).toEqual([
      'a', 'b', 'c', 'd', 'e', 'f', 'g', 'not due yet', 'next bucket',
    ]);
  });

  it('looks at the start of unknown buckets with one query, hands out each first timer without reading it again, and reads on past it', async () => {
    const { table, due } = setUp();
    const past = [B - 3, B - 2, B - 1].map((b) => buckets.start(b));
    table.add(...past.flatMap((t, i) => [timer(1, t + 1, `${i}a`), timer(1, t + 2, `${i}b`)]));
    expect(await due(undefined, [1])).toEqual(['0a', '0b', '1a', '1b', '2a', '2b']);
    expect(table.readsOf('earliest')).toEqual([{ what: 'earliest', shard: 1, buckets: [B - 3, B - 2, B - 1] }]);
    expect(table.readsOf('due').map((r) => r.after)).toEqual(past.map((t, i) => ({ ...timer(1, t + 1, `${i}a`) })));
  });

  it('starts the next read of a bucket at its floor, past the timers done, and at its start again after fullReadEveryMs', async () => {
    const { at, table, due } = setUp();
    const s = buckets.start(B);
    const done = Array.from({ length: 5 }, (_, i) => timer(1, s + 10_000 + i, `done${i}`));
    table.add(...done);
    expect(await due(undefined, [1])).toEqual(done.map((t) => t.id));
    table.delete(...done);

    at.now += 2_000;
    table.reads.length = 0;
    expect(await due(undefined, [1])).toEqual([]);
    expect(table.readsOf('earliest')).toEqual([]);
    // From where the look at its start saw its first timer, not from the start.
    expect(table.readsOf('due').map((r) => r.after)).toEqual([{ dueAt: s + 10_000, id: '' }]);

    // Behind the floor, by another process: found by the read from the start that comes every fullReadEveryMs.
    table.add(timer(1, s + 5_000, 'late'));
    at.now += 1_000;
    expect(await due(undefined, [1])).toEqual([]);
    at.now += SETTINGS.fullReadEveryMs;
    expect(await due(undefined, [1])).toEqual(['late']);
  });

  it("sees a timer this process wrote behind a bucket's floor at once", async () => {
    const { at, table, floors, due } = setUp();
    const s = buckets.start(B);
    table.add(timer(1, NOW - 500, 'first'));
    expect(await due(undefined, [1])).toEqual(['first']);
    at.now += 1_000;
    const own = timer(1, s + 1, 'own');
    table.add(own);
    expect(await due(undefined, [1])).toEqual(['first']);
    floors.wrote(own.shard, own.dueAt);
    expect(await due(undefined, [1])).toEqual(['own', 'first']);
  });

  it("passes by buckets known empty, and drops an empty bucket's entry only once it ended EMPTY_BUCKET_AGE_MS ago by the store's clock", async () => {
    const { at, table, due } = setUp();
    // Just after the bucket `B` ended.
    at.now = buckets.start(B + 1) + 5_000;
    const old = buckets.of(at.now - EMPTY_BUCKET_AGE_MS) - 1;
    const future = B + 3;
    for (const b of [old, B, future]) table.list(1, b);
    const everything: ScanLimits = { throughBucket: buckets.last, dueBy: Number.MAX_SAFE_INTEGER, forget: true };

    expect(await due({ ...everything, forget: false }, [1])).toEqual([]);
    expect(table.dropped).toEqual([]);
    at.now += 1_000;
    table.reads.length = 0;
    // Even a scan that reaches to the end of time drops only old buckets: a bucket to come may get timers any moment.
    expect(await due(everything, [1])).toEqual([]);
    expect(table.dropped).toEqual([{ shard: 1, bucket: old, asOf: expect.any(Number) }]);
    expect(table.dropped[0]!.asOf).toBeLessThanOrEqual(at.now * 1000 - SWEEP_MARGIN_US);
    expect(table.dropped[0]!.asOf).toBeGreaterThan(at.now * 1000 - SWEEP_MARGIN_US - 1_000);
    // `B` is known empty since the first scan: not read at all. The old one is looked at again to be dropped; the
    // one to come, never known empty, is looked at too.
    expect(table.readsOf('earliest').map((r) => r.buckets)).toEqual([[old, future]]);
    expect(table.readsOf('due')).toEqual([]);
  });

  it('looks at no more listed buckets than asked, and tells the first it listed', async () => {
    const { table, scan } = setUp();
    for (let b = B + 1; b <= B + 40; b++) table.list(2, b);
    table.add(timer(2, buckets.start(B + 40), 'far'));
    const [shard] = scan([2], { throughBucket: buckets.last, dueBy: Number.MAX_SAFE_INTEGER, forget: false, buckets: 16 });
    expect(await shard!.peek()).toBeUndefined();
    expect(shard!.firstBucket).toBe(B + 1);
    expect(table.readsOf('entries').flatMap((r) => r.buckets)).toHaveLength(16);
  });
});

describe.each(KINDS)('timer rows: $name', ({ kind }) => {
  const buckets = kind.buckets;
  const B = buckets.of(NOW);
  const session = { table: (name: string) => `ks.${name}` } as unknown as CassandraSession;
  const timer = (dueAt: number, id: string): Timer => kind.fromRow({ shard: SHARD, dueAt, id }, { lease: true });
  const inserts = (statements: Statement[], table: string) => statements.filter((s) => s.query.startsWith(`INSERT INTO ks.${table} `));

  it("writes every row at a stamp of the store's clock that never repeats, deletions included", () => {
    const at = { now: NOW };
    const table = new TimerTable(session, kind, new TimerStamps(clockAt(() => at.now)));
    const [first] = table.statements([timer(NOW, 'a')], at.now);
    const stamp = (first!.params as unknown[]).at(-1) as number;
    expect(stamp).toBe(NOW * 1000);
    expect(first!.query).toMatch(new RegExp(`^INSERT INTO ks\\.${kind.timers} \\(shard, bucket, due_at, ${kind.idColumn}.*USING TIMESTAMP \\?$`));
    // The clock standing still: the next stamp is later all the same, so a deletion decided now shadows that row.
    const asOf = table.stamps.next();
    expect(asOf).toBeGreaterThan(stamp);
    const removal = table.removeStatement(timer(NOW, 'a'), asOf);
    expect(removal.params).toEqual([asOf, SHARD, B, NOW, 'a']);
    const [again] = table.statements([timer(NOW, 'a')], at.now);
    expect((again!.params as unknown[]).at(-1)).toBeGreaterThan(asOf);
  });

  it('writes a bucket entry once per batch, not again while this process wrote it lately, and again once the bucket is old', () => {
    const at = { now: NOW };
    const table = new TimerTable(session, kind, new TimerStamps(clockAt(() => at.now)));
    const s = buckets.start(B);
    const batch = [timer(s + 1, 'a'), timer(s + 2, 'b'), timer(buckets.start(B + 1), 'c')];
    const statements = table.statements(batch, at.now);
    expect(inserts(statements, kind.timers)).toHaveLength(3);
    expect(inserts(statements, kind.entries).map((e) => (e.params as unknown[]).slice(0, 2))).toEqual([
      [SHARD, B],
      [SHARD, B + 1],
    ]);

    // Not remembered until the write has succeeded.
    expect(inserts(table.statements([timer(s + 3, 'd')], at.now), kind.entries)).toHaveLength(1);
    table.written(batch);
    expect(inserts(table.statements([timer(s + 3, 'd')], at.now), kind.entries)).toEqual([]);
    // Five minutes after the bucket's end (half the age at which a scan may drop its entry), the entry goes again.
    at.now = buckets.start(B + 1) + EMPTY_BUCKET_AGE_MS / 2;
    expect(inserts(table.statements([timer(s + 4, 'e')], at.now), kind.entries)).toHaveLength(1);
  });
});
