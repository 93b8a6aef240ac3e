import { create, fromJson } from '@bufbuild/protobuf';
import { ValueSchema, type Value } from '@bufbuild/protobuf/wkt';
import type { ScheduleStatus as DomainStatus, RunOutcome as DomainOutcome, StoredSchedule } from '../../domain/schedule/schedule.js';
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
  type Timing,
} from '../../gen/ferry/v1/schedules_pb.js';
import { hasRespelledNumber } from '../http/json-source.js';
import { keepValueText } from '../http/value-text.js';
import { bodyOf, callbacksInputOf } from './from-proto.js';
import { callbacksToProto, ts } from './to-proto.js';

const STATUS: Record<DomainStatus, ScheduleStatus> = { active: ScheduleStatus.ACTIVE, paused: ScheduleStatus.PAUSED };
const OUTCOME: Record<DomainOutcome, RunOutcome> = {
  enqueued: RunOutcome.ENQUEUED,
  skipped_usage_limit: RunOutcome.SKIPPED_USAGE_LIMIT,
};

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
  };
}

export function scheduleInputOf(m: { name?: string; timing?: Timing; request?: ScheduleRequestInput }): CreateScheduleInput {
  return { name: m.name, timing: timingInputOf(m.timing), request: requestInputOf(m.request) };
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
    nextRunAt: ts(s.nextRunAt),
    lastRunAt: ts(s.lastRunAt),
    lastRunOutcome: s.lastRunOutcome === null ? RunOutcome.UNSPECIFIED : OUTCOME[s.lastRunOutcome],
    createdAt: ts(s.createdAt),
    updatedAt: ts(s.updatedAt),
  };
}

export function scheduleSummaryToProto(s: StoredSchedule): ScheduleSummary {
  return create(ScheduleSummarySchema, summaryFields(s));
}

/** The detail: the summary and the request definition, header values shown as `[REDACTED]`. */
export function scheduleToProto(s: StoredSchedule): Schedule {
  return create(ScheduleSchema, {
    ...summaryFields(s),
    request: {
      url: s.request.url,
      body: s.request.body === null ? undefined : storedBody(s.request.body),
      headers: Object.fromEntries(s.request.headers.map(([name]) => [name, '[REDACTED]'])),
      retry: s.request.retry,
      flowKeys: [...(s.request.flowKeys ?? [])],
      callbacks: callbacksToProto(s.request.callbacks ?? null),
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
