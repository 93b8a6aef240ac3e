import type { StatCounts } from '../domain/stats.js';

/** What one process counted for one project in one minute, all of it (not what it counted since it last wrote). */
export interface MinuteTotals {
  readonly projectId: string;
  /** The minute's first millisecond (UTC). */
  readonly minute: number;
  readonly counts: Readonly<StatCounts>;
}

/** One process's totals for one minute of a project, as stored. */
export interface StoredMinute {
  readonly minute: number;
  readonly processId: string;
  readonly counts: Readonly<StatCounts>;
}

/** The requests of one queue of a project that wait or are being attempted. */
export interface QueueWaiting {
  readonly queue: string;
  /** Waiting for their next attempt (first or retry), held back by a budget or not. */
  readonly queued: number;
  /** Waiting for the time they were scheduled for. */
  readonly scheduled: number;
  /** With an attempt under way. */
  readonly delivering: number;
  /** The earliest due time among the queued and scheduled ones; null when none waits. */
  readonly oldestDueAt: number | null;
}

/** A project's waiting requests, by queue. */
export interface Backlog {
  readonly queues: readonly QueueWaiting[];
  /** True when the project has more waiting requests than one reading counts: the counts are then lower bounds. */
  readonly truncated: boolean;
}

/**
 * The per-minute counts of the overview and the backlog it shows. Each process keeps its own totals per project and
 * minute and writes them whole, so writing the same totals again (a retry, a second flush) changes nothing; a read
 * sums the processes. Stored minutes last at least a day (`STATS_WINDOW_MINUTES`) and are then dropped.
 */
export interface StatsStore {
  /** Replaces this process's totals of each (project, minute) given, in one write where the backend allows. */
  putTotals(processId: string, rows: readonly MinuteTotals[], now: number): Promise<void>;
  /** Every process's stored totals of the project's minutes from `fromMinute` on, in minute order. */
  minutes(projectId: string, fromMinute: number): Promise<StoredMinute[]>;
  /**
   * The project's requests waiting or being attempted, by queue; null where the backend cannot count them without
   * reading every request of the project (distributed storage keeps no index of requests by state).
   */
  backlog(projectId: string): Promise<Backlog | null>;
}
