import { type SchedulePolicy } from '../domain/schedule/policy.js';
import { DEFAULT_SCHEDULE_POLICY } from '../domain/schedule/policy.js';
import { runStateOf, type RecentRun, type RunKind, type RunState } from '../domain/schedule/runs.js';

// Schedule fields both backends keep as JSON text, in columns of the same name, under names fixed here. A NULL
// column (a schedule stored before the field existed, or one at its default) reads as the default.

interface PolicyJson {
  overlap: SchedulePolicy['overlap'];
  max_runs: number | null;
  jitter_seconds: number;
  pause_after_failures: number | null;
}

/** `policy`: NULL for the default policy, as most schedules have. */
export function policyColumn(p: SchedulePolicy): string | null {
  const json: PolicyJson = { overlap: p.overlap, max_runs: p.maxRuns, jitter_seconds: p.jitterSeconds, pause_after_failures: p.pauseAfterFailures };
  const d = DEFAULT_SCHEDULE_POLICY;
  const isDefault = p.overlap === d.overlap && p.maxRuns === d.maxRuns && p.jitterSeconds === d.jitterSeconds && p.pauseAfterFailures === d.pauseAfterFailures;
  return isDefault ? null : JSON.stringify(json);
}

export function policyFromColumn(text: string | null | undefined): SchedulePolicy {
  if (text === null || text === undefined) return DEFAULT_SCHEDULE_POLICY;
  const j = JSON.parse(text) as Partial<PolicyJson>;
  return {
    overlap: j.overlap ?? 'allow_all',
    maxRuns: j.max_runs ?? null,
    jitterSeconds: j.jitter_seconds ?? 0,
    pauseAfterFailures: j.pause_after_failures ?? null,
  };
}

interface RunsJson {
  counts: Partial<Record<RunKind, number>>;
  recent: Array<{ at: number; request_id: string | null; outcome: RunKind }>;
  buffered: number | null;
  upcoming: number | null;
  failure_streak: number;
  watched: string[];
  backfilled: Array<[number, number]>;
}

export function runsColumn(r: RunState): string {
  const json: RunsJson = {
    counts: { ...r.counts },
    recent: r.recent.map((x) => ({ at: x.at, request_id: x.requestId, outcome: x.outcome })),
    buffered: r.buffered,
    upcoming: r.upcoming,
    failure_streak: r.failureStreak,
    watched: [...r.watched],
    backfilled: r.backfilled.map(([a, b]) => [a, b]),
  };
  return JSON.stringify(json);
}

export function runsFromColumn(text: string | null | undefined): RunState {
  if (text === null || text === undefined) return runStateOf(null);
  const j = JSON.parse(text) as Partial<RunsJson>;
  return runStateOf({
    counts: { ...runStateOf(null).counts, ...(j.counts ?? {}) },
    recent: (j.recent ?? []).map((x): RecentRun => ({ at: x.at, requestId: x.request_id, outcome: x.outcome })),
    buffered: j.buffered ?? null,
    upcoming: j.upcoming ?? null,
    failureStreak: j.failure_streak ?? 0,
    watched: j.watched ?? [],
    backfilled: j.backfilled ?? [],
  });
}

/** `metadata`: NULL for none. */
export function metadataColumn(m: Readonly<Record<string, string>>): string | null {
  return Object.keys(m).length === 0 ? null : JSON.stringify(m);
}

export function metadataFromColumn(text: string | null | undefined): Record<string, string> {
  return text === null || text === undefined ? {} : (JSON.parse(text) as Record<string, string>);
}
