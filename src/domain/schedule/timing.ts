/**
 * When a schedule fires. Cron timing is read in its IANA zone by the rules in `next-run.ts`; interval timing is a
 * fixed duration in UTC from its first occurrence.
 */
export type Timing = CronTiming | IntervalTiming;

export interface CronTiming {
  readonly type: 'cron';
  /** Exactly five fields, as the caller wrote them (validated). */
  readonly expression: string;
  /** A valid IANA zone name, as the caller wrote it. */
  readonly timezone: string;
}

export interface IntervalTiming {
  readonly type: 'interval';
  /** A whole number of minutes, 60 seconds to 30 days. */
  readonly everySeconds: number;
  /** The caller's `starts_at`, or null when none was given. */
  readonly startsAt: number | null;
  /**
   * The first occurrence: `startsAt` when given, else one full interval after the timing was set (created or
   * changed). Every occurrence is `firstRunAt + k * everySeconds`, k >= 0.
   */
  readonly firstRunAt: number;
}
