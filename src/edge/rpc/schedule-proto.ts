import { create, fromJson } from '@bufbuild/protobuf';
import { ValueSchema, type Value } from '@bufbuild/protobuf/wkt';
import type { ScheduleStatus as DomainStatus, RunOutcome as DomainOutcome, StoredSchedule } from '../../domain/schedule/schedule.js';
import type { SchedulePolicy as DomainPolicy } from '../../domain/schedule/policy.js';
import type { RunKind } from '../../domain/schedule/runs.js';
import { firesAt } from '../../domain/schedule/jitter.js';
import type { RequestStatus } from '../../domain/request.js';
import type { SchedulePolicyInput } from '../../domain/validation/schedule-policy.js';
import { formatDuration } from '../../domain/validation/durations.js';
import type { Timing as DomainTiming } from '../../domain/schedule/timing.js';
import type { TimingInput } from '../../domain/validation/timing.js';
import type { CreateScheduleInput, ScheduleRequestInput as DomainRequestInput } from '../../domain/validation/schedule-input.js';
import {
  RunOutcome,
  ScheduleSchema,
  ScheduleStatus,
  ScheduleSummarySchema,
  type Schedule,
  type ScheduleRequestInput,
  type ScheduleSummary,
  type SchedulePolicy,
  type Timing,
} from '../../gen/ferry/v1/schedules_pb.js';
import { hasRespelledNumber } from '../http/json-source.js';
import { keepValueText } from '../http/value-text.js';
import { bodyOf, callbacksInputOf } from './from-proto.js';
import { callbacksToProto, ts } from './to-proto.js';

const STATUS: Record<DomainStatus, ScheduleStatus> = { active: ScheduleStatus.ACTIVE, paused: ScheduleStatus.PAUSED, ended: ScheduleStatus.ENDED };
const OUTCOME: Record<RunKind, RunOutcome> = {
  enqueued: RunOutcome.ENQUEUED,
  skipped_usage_limit: RunOutcome.SKIPPED_USAGE_LIMIT,
  skipped_overlap: RunOutcome.SKIPPED_OVERLAP,
  missed: RunOutcome.MISSED,
  triggered: RunOutcome.TRIGGERED,
  backfilled: RunOutcome.BACKFILLED,
};

/** The status of each recent run's request, by ID; absent when it is no longer kept. */
export type RunRequestStatuses = ReadonlyMap<string, RequestStatus>;

export function timingInputOf(t: Timing | undefined): TimingInput | undefined {
  if (t === undefined) return undefined;
  return {
    type: t.type,
    expression: t.expression,
    timezone: t.timezone,
    everySeconds: t.everySeconds,
    startsAt: t.startsAt,
    endsAt: t.endsAt,
    dst: t.dst === undefined ? undefined : { gap: t.dst.gap, overlap: t.dst.overlap },
  };
}

export function requestInputOf(r: ScheduleRequestInput | undefined): DomainRequestInput | undefined {
  if (r === undefined) return undefined;
  return {
    url: r.url,
    body: r.body === undefined ? undefined : bodyOf(r.body),
    headers: { ...r.headers },
    retry: r.retry,
    // Left out when none are named, so a definition without keys fingerprints as it did before keys existed.
    ...(r.flowKeys.length === 0 ? {} : { flowKeys: [...r.flowKeys] }),
    ...callbacksInputOf(r.callbacks),
    // Left out when absent, so a definition without them fingerprints as it did before they existed.
    ...(r.queue === undefined ? {} : { queue: r.queue }),
    ...(r.timeout === undefined ? {} : { timeout: r.timeout }),
    ...(Object.keys(r.metadata).length === 0 ? {} : { metadata: { ...r.metadata } }),
  };
}

export function policyInputOf(p: SchedulePolicy | undefined): SchedulePolicyInput | undefined {
  if (p === undefined) return undefined;
  return {
    ...(p.overlap === undefined ? {} : { overlap: p.overlap }),
    ...(p.maxRuns === undefined ? {} : { max_runs: p.maxRuns }),
    ...(p.jitterSeconds === undefined ? {} : { jitter_seconds: p.jitterSeconds }),
    ...(p.pauseAfterFailures === undefined ? {} : { pause_after_failures: p.pauseAfterFailures }),
  };
}

export function scheduleInputOf(m: { name?: string; timing?: Timing; request?: ScheduleRequestInput; policy?: SchedulePolicy }): CreateScheduleInput {
  const policy = policyInputOf(m.policy);
  return { name: m.name, timing: timingInputOf(m.timing), request: requestInputOf(m.request), ...(policy === undefined ? {} : { policy }) };
}

function policyToProto(p: DomainPolicy) {
  return {
    overlap: p.overlap,
    maxRuns: p.maxRuns ?? undefined,
    jitterSeconds: p.jitterSeconds,
    pauseAfterFailures: p.pauseAfterFailures ?? undefined,
  };
}

function timingToProto(t: DomainTiming) {
  const bounds = { startsAt: isoOrUndefined(t.startsAt), endsAt: isoOrUndefined(t.endsAt) };
  if (t.type === 'cron') {
    return { type: 'cron', expression: t.expression, timezone: t.timezone, dst: { gap: t.dst.gap, overlap: t.dst.overlap }, ...bounds };
  }
  return { type: 'interval', everySeconds: t.everySeconds, ...bounds };
}

function isoOrUndefined(ms: number | null): string | undefined {
  return ms === null ? undefined : new Date(ms).toISOString();
}

function summaryFields(s: StoredSchedule) {
  return {
    id: s.id,
    name: s.name,
    timing: timingToProto(s.timing),
    status: STATUS[s.status],
    url: s.request.url,
    retry: s.request.retry,
    // The time it fires: with a jitter, after the occurrence's instant.
    nextRunAt: ts(s.nextRunAt === null ? null : firesAt(s, s.nextRunAt)),
    lastRunAt: ts(s.lastRunAt),
    lastRunOutcome: s.lastRunOutcome === null ? RunOutcome.UNSPECIFIED : OUTCOME[s.lastRunOutcome satisfies DomainOutcome],
    createdAt: ts(s.createdAt),
    updatedAt: ts(s.updatedAt),
    policy: policyToProto(s.policy),
    pauseReason: s.status === 'paused' ? (s.pauseReason ?? 'user') : undefined,
  };
}

export function scheduleSummaryToProto(s: StoredSchedule): ScheduleSummary {
  return create(ScheduleSummarySchema, summaryFields(s));
}

/**
 * The detail: the summary, the request definition (header values shown as `[REDACTED]`), the run counts and the
 * recent runs with their requests' statuses as `statuses` has them.
 */
export function scheduleToProto(s: StoredSchedule, statuses: RunRequestStatuses = new Map()): Schedule {
  const c = s.runs.counts;
  return create(ScheduleSchema, {
    ...summaryFields(s),
    runCounts: {
      enqueued: c.enqueued,
      skippedUsageLimit: c.skipped_usage_limit,
      skippedOverlap: c.skipped_overlap,
      missed: c.missed,
      triggered: c.triggered,
      backfilled: c.backfilled,
    },
    recentRuns: s.runs.recent.map((r) => ({
      runAt: ts(r.at),
      requestId: r.requestId ?? undefined,
      outcome: OUTCOME[r.outcome],
      requestStatus: r.requestId === null ? undefined : statuses.get(r.requestId),
    })),
    request: {
      url: s.request.url,
      body: s.request.body === null ? undefined : storedBody(s.request.body),
      headers: Object.fromEntries(s.request.headers.map(([name]) => [name, '[REDACTED]'])),
      retry: s.request.retry,
      flowKeys: [...(s.request.flowKeys ?? [])],
      callbacks: callbacksToProto(s.request.callbacks ?? null),
      queue: s.request.queue,
      timeout: formatDuration(s.request.timeoutSeconds * 1000),
      metadata: { ...s.request.metadata },
    },
  });
}

/** A stored body as a Value; the JSON API shows it as stored when parsing would respell a number of it. */
function storedBody(bytes: Uint8Array): Value {
  const text = new TextDecoder().decode(bytes);
  const value = fromJson(ValueSchema, JSON.parse(text));
  if (hasRespelledNumber(text)) keepValueText(value, text);
  return value;
}
