import type { SchedulePatch, StoredSchedule } from '../domain/schedule/schedule.js';
import type { ShardScope } from './requests.js';

export type { SchedulePatch } from '../domain/schedule/schedule.js';

export interface ScheduleListQuery {
  readonly projectId: string;
  /** Return only schedules strictly after this ID in list order (newest first, i.e. smaller IDs). */
  readonly afterId?: string;
  readonly limit: number;
}

/**
 * Durable storage of schedules and the timers of their next occurrences. Every write resolves only once it is
 * durable. Conditional updates compare the stored version and fail with a typed `VersionConflict` (from
 * `./requests.js`) instead of overwriting.
 *
 * A schedule's timer follows its `nextRunAt`: an active schedule with a `nextRunAt` is due at that time; a paused
 * one (`nextRunAt` null) or a deleted one never is. A backend that shards work (see `shardOf`) places a schedule
 * by its ID.
 */
export interface ScheduleStore {
  /** Stores a new schedule (version 1) and its timer. */
  insert(schedule: StoredSchedule): Promise<void>;
  /** The schedule, or null when it does not exist in this project. */
  get(projectId: string, id: string): Promise<StoredSchedule | null>;
  /** The project's schedules, newest first (descending ID), at most `limit`. */
  list(query: ScheduleListQuery): Promise<StoredSchedule[]>;
  /**
   * Applies `patch` when the stored version equals `expectedVersion`, increments the version, moves the timer
   * with `nextRunAt`/`status`, and returns the updated schedule. Throws `VersionConflict` when the version differs
   * and also when the schedule does not exist in this project. Patch keys whose value is `undefined` leave their
   * field unchanged.
   */
  update(projectId: string, id: string, expectedVersion: number, patch: SchedulePatch): Promise<StoredSchedule>;
  /** Removes the schedule and its timer; false when it did not exist in this project. */
  delete(projectId: string, id: string): Promise<boolean>;
  /**
   * Active schedules of any project whose `nextRunAt <= now`, oldest `nextRunAt` first, at most `limit`. Nothing is
   * claimed: the caller fires each and moves it on with `update`, whose version check settles any race.
   */
  due(now: number, limit: number, shards?: ShardScope): Promise<StoredSchedule[]>;
  /**
   * The earliest `nextRunAt` of an active schedule, or null. A backend may look only so far ahead and answer null
   * beyond that: callers poll again within that horizon.
   */
  nextDueAt(shards?: ShardScope): Promise<number | null>;
}
