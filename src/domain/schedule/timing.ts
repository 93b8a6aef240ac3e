/**
 * When a schedule fires. Cron timing is read in its IANA zone by the rules in `next-run.ts`; interval timing is a
 * fixed duration in UTC from its first occurrence. Both may be bounded: no occurrence before `startsAt`, none at or
 * after `endsAt` (the end is exclusive, so `ends_at` of midnight means the last run is the one before midnight).
 */
export type Timing = CronTiming | IntervalTiming;

/**
 * What a fixed-hour cron job does across a daylight-saving change (a job whose hour field is a wildcard follows
 * real time whatever this says):
 * - `gap`: a local time a spring-forward skips runs once at the first instant after the gap (`shift`), or not at all
 *   that day (`skip`);
 * - `overlap`: a local time a fall-back repeats runs on its `first` pass, its `second` pass, or `both`.
 */
export interface DstPolicy {
  readonly gap: 'shift' | 'skip';
  readonly overlap: 'first' | 'second' | 'both';
}

export const DST_GAP_VALUES = ['shift', 'skip'] as const;
export const DST_OVERLAP_VALUES = ['first', 'second', 'both'] as const;

/** The rules every cron timing followed before it could choose: shift a gap's times, run an overlap's once. */
export const DEFAULT_DST: DstPolicy = Object.freeze({ gap: 'shift', overlap: 'first' });

export interface CronTiming {
  readonly type: 'cron';
  /** Exactly five fields, as the caller wrote them (validated). */
  readonly expression: string;
  /** A valid IANA zone name, as the caller wrote it. */
  readonly timezone: string;
  /** Always present; `DEFAULT_DST` for timings stored before it could be chosen. */
  readonly dst: DstPolicy;
  /** No occurrence before this instant (inclusive start), or null. */
  readonly startsAt: number | null;
  /** No occurrence at or after this instant (exclusive end), or null. */
  readonly endsAt: number | null;
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
  /** No occurrence at or after this instant (exclusive end), or null. */
  readonly endsAt: number | null;
}

/** A timing as a storage backend reads it back: members added later may be absent. */
export interface TimingRecord {
  type: string;
  expression?: string;
  timezone?: string;
  dst?: Partial<DstPolicy> | null;
  everySeconds?: number;
  startsAt?: number | null;
  firstRunAt?: number;
  endsAt?: number | null;
}

/**
 * A timing as stored before `dst`, `startsAt` (cron) and `endsAt` existed reads with their defaults; members of the
 * other kind and anything unknown are dropped. Both storage backends read their stored JSON through this.
 */
export function timingWithDefaults(t: TimingRecord): Timing {
  if (t.type === 'cron') {
    return {
      type: 'cron',
      expression: t.expression!,
      timezone: t.timezone!,
      dst: { gap: t.dst?.gap ?? DEFAULT_DST.gap, overlap: t.dst?.overlap ?? DEFAULT_DST.overlap },
      startsAt: t.startsAt ?? null,
      endsAt: t.endsAt ?? null,
    };
  }
  return { type: 'interval', everySeconds: t.everySeconds!, startsAt: t.startsAt ?? null, firstRunAt: t.firstRunAt!, endsAt: t.endsAt ?? null };
}

