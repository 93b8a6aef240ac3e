import type { StoredSchedule } from '../../../domain/schedule/schedule.js';
import { shardOf } from '../../../domain/shards.js';
import { Buckets, INT_BUCKETS, type Timer, type TimerKind } from '../timers/timer.js';

/**
 * Schedule timers: hour buckets in `schedule_timers`, listed in `schedule_timer_buckets` (migration 4), a timer
 * standing for schedule `id`'s next occurrence. Most schedules fire at most once a minute, so a due scan near now
 * reads one or two partitions per shard, and the bucket list gains 24 entries a day per shard; dropping them once
 * past leaves only a few hundred deletions in it at any time. Narrower buckets would make that list, read by every
 * scan, grow by the minute. The cost, the deletions of fired timers piling up in the current hour, is what floors
 * keep out of most reads.
 */
export const SCHEDULE_TIMERS: TimerKind<Timer> = {
  timers: 'schedule_timers',
  entries: 'schedule_timer_buckets',
  idColumn: 'schedule_id',
  buckets: new Buckets(3_600_000, INT_BUCKETS.first, INT_BUCKETS.last),
  columns: [],
  values: () => [],
  fromRow: (timer) => timer,
  noun: 'schedule timers',
};

/** The timer a schedule in this state needs: only an active one with a next run has one. */
export function timerOf(shardCount: number, s: Pick<StoredSchedule, 'id' | 'status' | 'nextRunAt'>): Timer | null {
  if (s.status !== 'active' || s.nextRunAt === null) return null;
  return { shard: shardOf(s.id, shardCount), dueAt: s.nextRunAt, id: s.id };
}

/** Whether `s` is what `timer` stands for: the schedule would fire from it now. */
export function matchesTimer(s: StoredSchedule, timer: Timer): boolean {
  return s.status === 'active' && s.nextRunAt === timer.dueAt;
}
