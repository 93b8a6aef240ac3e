import type { Clock } from '../../../domain/clock.js';
import type { StoredSchedule } from '../../../domain/schedule/schedule.js';
import { shardOf } from '../../../domain/shards.js';
import { millis, type CassandraSession, type Statement } from '../session.js';

/**
 * Width of a timer partition: an hour. Most schedules fire at most once a minute, so a due scan near now reads one
 * or two partitions per shard, and `schedule_timer_buckets` gains 24 entries a day per shard; dropping them once
 * past leaves only a few hundred deletions in it at any time. Narrower buckets would make that list, read by every
 * scan, grow by the minute. The cost, the deletions of fired timers piling up in the current hour, is what
 * `ScanFloors` keeps out of most reads.
 */
export const BUCKET_MS = 3_600_000;

/** One row of `schedule_timers`: schedule `scheduleId` may fall due at `dueAt`. */
export interface ScheduleTimer {
  readonly shard: number;
  readonly dueAt: number;
  readonly scheduleId: string;
}

/** A place in a bucket, in (due time, schedule ID) order. */
export interface TimerPosition {
  readonly dueAt: number;
  readonly scheduleId: string;
}

/** Before every timer. */
export const FIRST_POSITION: TimerPosition = { dueAt: Number.MIN_SAFE_INTEGER, scheduleId: '' };

export function bucketOf(dueAt: number): number {
  return Math.floor(dueAt / BUCKET_MS);
}

export function bucketStart(bucket: number): number {
  return bucket * BUCKET_MS;
}

/** The timer a schedule in this state needs: only an active one with a next run has one. */
export function timerOf(shardCount: number, s: Pick<StoredSchedule, 'id' | 'status' | 'nextRunAt'>): ScheduleTimer | null {
  if (s.status !== 'active' || s.nextRunAt === null) return null;
  return { shard: shardOf(s.id, shardCount), dueAt: s.nextRunAt, scheduleId: s.id };
}

/** Whether `s` is what `timer` stands for: the schedule would fire from it now. */
export function matchesTimer(s: StoredSchedule, timer: ScheduleTimer): boolean {
  return s.status === 'active' && s.nextRunAt === timer.dueAt;
}

/** Due time, then schedule ID: the order `due` answers in. */
export function compareTimers(a: TimerPosition, b: TimerPosition): number {
  return a.dueAt - b.dueAt || (a.scheduleId < b.scheduleId ? -1 : a.scheduleId > b.scheduleId ? 1 : 0);
}

/**
 * Write timestamps (microseconds) of every timer row and bucket entry, inserts and deletions alike, taken from the
 * store's clock and never repeating in this process. A deletion dated when its operation began then shadows only
 * rows written before that, never a timer written again by a later change, whichever lands first. Only this
 * adapter writes these tables, so the stamps compare among themselves whatever the clock shows.
 */
export class CellTimes {
  private last = 0;

  constructor(private readonly clock: Pick<Clock, 'now'>) {}

  next(): number {
    this.last = Math.max(this.clock.now() * 1000, this.last + 1);
    return this.last;
  }
}

/** Reads and writes of `schedule_timers` and `schedule_timer_buckets`. */
export class ScheduleTimerTable {
  private readonly insertTimer: string;
  private readonly insertBucket: string;
  private readonly deleteTimer: string;
  private readonly deleteBucket: string;
  private readonly selectBuckets: string;
  private readonly selectDue: string;

  constructor(
    private readonly session: CassandraSession,
    readonly times: CellTimes,
  ) {
    const timers = session.table('schedule_timers');
    const buckets = session.table('schedule_timer_buckets');
    this.insertTimer = `INSERT INTO ${timers} (shard, bucket, due_at, schedule_id) VALUES (?, ?, ?, ?) USING TIMESTAMP ?`;
    this.insertBucket = `INSERT INTO ${buckets} (shard, bucket) VALUES (?, ?) USING TIMESTAMP ?`;
    this.deleteTimer = `DELETE FROM ${timers} USING TIMESTAMP ? WHERE shard = ? AND bucket = ? AND due_at = ? AND schedule_id = ?`;
    this.deleteBucket = `DELETE FROM ${buckets} USING TIMESTAMP ? WHERE shard = ? AND bucket = ?`;
    this.selectBuckets = `SELECT bucket FROM ${buckets} WHERE shard = ? AND bucket > ? AND bucket <= ? LIMIT ?`;
    // Both bounds in tuple form: CQL does not mix single- and multi-column restrictions of clustering columns.
    this.selectDue = `SELECT due_at, schedule_id FROM ${timers}
      WHERE shard = ? AND bucket = ? AND (due_at, schedule_id) > (?, ?) AND (due_at) <= (?) LIMIT ?`;
  }

  /**
   * The timer and its bucket's entry. The entry is written every time, not remembered as written: a scan may have
   * dropped it meanwhile, and a timer in an unlisted bucket would never be found. Schedules fire seldom enough
   * that the extra row costs little.
   */
  writeStatements(t: ScheduleTimer): Statement[] {
    const at = this.times.next();
    return [
      { query: this.insertTimer, params: [t.shard, bucketOf(t.dueAt), t.dueAt, t.scheduleId, at] },
      { query: this.insertBucket, params: [t.shard, bucketOf(t.dueAt), at] },
    ];
  }

  /** Deletes the timer as of `asOf` (a `CellTimes` stamp): a later write of the same row survives it. */
  removeStatement(t: ScheduleTimer, asOf: number): Statement {
    return { query: this.deleteTimer, params: [asOf, t.shard, bucketOf(t.dueAt), t.dueAt, t.scheduleId] };
  }

  async remove(t: ScheduleTimer, asOf: number, during: string): Promise<void> {
    const s = this.removeStatement(t, asOf);
    await this.session.execute(s.query, s.params!, during, { idempotent: true });
  }

  /** Drops a bucket's entry as of `asOf`: a timer written into the bucket after that lists it again. */
  async forgetBucket(shard: number, bucket: number, asOf: number, during: string): Promise<void> {
    await this.session.execute(this.deleteBucket, [asOf, shard, bucket], during, { idempotent: true });
  }

  /** Listed buckets of a shard after `after` and up to `upTo`, oldest first. */
  async buckets(shard: number, after: number, upTo: number, limit: number, during: string): Promise<number[]> {
    const rs = await this.session.read(this.selectBuckets, [shard, after, upTo, limit], during);
    return rs.rows.map((row) => row['bucket'] as number);
  }

  /** Timers of one bucket due by `dueBy`, after `after`, in (due time, schedule ID) order. */
  async due(shard: number, bucket: number, after: TimerPosition, dueBy: number, limit: number, during: string): Promise<ScheduleTimer[]> {
    const rs = await this.session.read(this.selectDue, [shard, bucket, after.dueAt, after.scheduleId, dueBy, limit], during);
    return rs.rows.map((row) => ({ shard, dueAt: millis(row['due_at'])!, scheduleId: row['schedule_id'] as string }));
  }
}
