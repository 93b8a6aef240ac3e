import type { Clock } from '../../../domain/clock.js';
import type { StoredSchedule } from '../../../domain/schedule/schedule.js';
import { allShards } from '../../../domain/shards.js';
import type { ShardScope } from '../../../ports/requests.js';
import type { ScheduleListQuery, SchedulePatch, ScheduleStore } from '../../../ports/schedules.js';
import { InFlight, mapBounded, takeUpTo } from '../shared/concurrency.js';
import type { CassandraSession } from '../session.js';
import { TimerEngine, compareTimers, type ScanLimits, type Timer } from '../timers/engine.js';
import { ScheduleChanges } from './changes.js';
import { ScheduleRows } from './rows.js';
import { SCHEDULE_TIMERS, matchesTimer } from './timers.js';

export interface CassandraScheduleStoreOptions {
  /** Shards of timer work; fixed for the life of a deployment. */
  readonly shardCount: number;
  /** The only source of time: floors, the `nextDueAt` horizon and the stamps of timer writes. */
  readonly clock: Clock;
}

/** Schedule rows read at once: by a page of the list, or to check due timers. */
const READS_AT_ONCE = 16;

/**
 * How many buckets past the later of the current one and the oldest listed one `nextDueAt` looks through: its
 * horizon is the end of the next hour at least.
 */
export const NEXT_DUE_BUCKETS_AHEAD = 1;

/**
 * Schedules in Cassandra. A schedule is one partition of `schedules`, changed only by conditional writes; the list
 * reads `schedules_by_project`; due occurrences are found through `schedule_timers`, hints checked against the
 * schedule's row before a schedule is answered due.
 *
 * `nextDueAt` looks through the buckets listed up to `NEXT_DUE_BUCKETS_AHEAD` past the later of the current
 * bucket and the oldest bucket listed in any of the shards, so it answers exactly for anything due before the end of
 * the next hour, and null only when nothing is due within it.
 */
export class CassandraScheduleStore implements ScheduleStore {
  private readonly inFlight = new InFlight('The Cassandra schedule store');
  private readonly rows: ScheduleRows;
  private readonly timers: TimerEngine<Timer>;
  private readonly changes: ScheduleChanges;
  private readonly shards: readonly number[];

  constructor(
    session: CassandraSession,
    private readonly options: CassandraScheduleStoreOptions,
  ) {
    this.rows = new ScheduleRows(session);
    this.timers = new TimerEngine(session, SCHEDULE_TIMERS, { clock: options.clock, background: (task) => this.inFlight.background(task) });
    this.changes = new ScheduleChanges(session, this.rows, this.timers, options.shardCount);
    this.shards = allShards(options.shardCount);
  }

  insert(schedule: StoredSchedule): Promise<void> {
    return this.inFlight.run(() => this.changes.insert(schedule));
  }

  get(projectId: string, id: string): Promise<StoredSchedule | null> {
    return this.inFlight.run(async () => {
      const row = await this.rows.read(id, 'reading a schedule');
      return row !== null && row.schedule.projectId === projectId ? row.schedule : null;
    });
  }

  /** Entries whose schedule is gone (or never landed) are skipped, and the page filled from further entries. */
  list(query: ScheduleListQuery): Promise<StoredSchedule[]> {
    return this.inFlight.run(async () => {
      const during = 'listing schedules';
      const found: StoredSchedule[] = [];
      let before = query.afterId;
      while (found.length < query.limit) {
        const want = query.limit - found.length;
        const ids = await this.rows.listIds(query.projectId, before, want, during);
        const read = await mapBounded(ids, READS_AT_ONCE, (id) => this.rows.read(id, during));
        for (const row of read) if (row !== null && row.schedule.projectId === query.projectId) found.push(row.schedule);
        if (ids.length < want) break;
        before = ids.at(-1);
      }
      return found;
    });
  }

  update(projectId: string, id: string, expectedVersion: number, patch: SchedulePatch): Promise<StoredSchedule> {
    return this.inFlight.run(() => this.changes.update(projectId, id, expectedVersion, patch));
  }

  delete(projectId: string, id: string): Promise<boolean> {
    return this.inFlight.run(() => this.changes.delete(projectId, id));
  }

  due(now: number, limit: number, shards: ShardScope = this.shards): Promise<StoredSchedule[]> {
    return this.inFlight.run(async () => {
      if (limit <= 0 || shards.length === 0) return [];
      const pageSize = Math.min(Math.max(limit, 16), 500);
      const buckets = this.timers.buckets;
      const found = await this.firstLive(shards, { throughBucket: buckets.bounded(buckets.of(now)), dueBy: now, forget: true }, pageSize, limit);
      return found.sort((a, b) => compareTimers(positionOf(a), positionOf(b)));
    });
  }

  nextDueAt(shards: ShardScope = this.shards): Promise<number | null> {
    return this.inFlight.run(async () => {
      const oldest = await Promise.all(shards.map((shard) => this.timers.listed(shard, 1, 'finding the next due schedule')));
      const listed = oldest.flat();
      if (listed.length === 0) return null;
      // From the oldest listed bucket on: past ones may hold overdue schedules, and when every timer lies further
      // ahead than the horizon, its first bucket is looked at anyway, which answers exactly instead of null.
      const buckets = this.timers.buckets;
      const through = buckets.bounded(Math.max(buckets.of(this.options.clock.now()), Math.min(...listed)) + NEXT_DUE_BUCKETS_AHEAD);
      const [first] = await this.firstLive(shards, { throughBucket: through, dueBy: Number.MAX_SAFE_INTEGER, forget: false }, 16, 1);
      return first?.nextRunAt ?? null;
    });
  }

  /** Waits for every operation and clean-up under way; later calls fail. The session is closed by its owner. */
  close(): Promise<void> {
    this.timers.close();
    return this.inFlight.close();
  }

  /** The schedules of the first `want` timers (in due order across `shards`) that still stand for them. */
  private async firstLive(shards: ShardScope, limits: ScanLimits, pageSize: number, want: number): Promise<StoredSchedule[]> {
    // What a scan finds stale may be the new timer of a change still landing: see `TimerEngine.sweepStamp`.
    const asOf = this.timers.sweepStamp();
    const { taken, failure } = await takeUpTo(this.timers.scan(shards, limits, pageSize), want, READS_AT_ONCE, (timer) => this.live(timer, asOf));
    if (failure !== null) throw failure.error;
    return taken;
  }

  /** The schedule `timer` stands for, or null (dropping the timer in the background) when it no longer does. */
  private async live(timer: Timer, asOf: number): Promise<StoredSchedule | null> {
    const row = await this.rows.read(timer.id, 'reading a due schedule');
    if (row !== null && matchesTimer(row.schedule, timer)) return row.schedule;
    this.timers.remove(timer, asOf);
    return null;
  }
}

function positionOf(s: StoredSchedule): { dueAt: number; id: string } {
  return { dueAt: s.nextRunAt!, id: s.id };
}
