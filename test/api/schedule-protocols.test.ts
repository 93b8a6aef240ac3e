import { fromJson, toJson, type JsonValue } from '@bufbuild/protobuf';
import { timestampMs, ValueSchema, type Timestamp } from '@bufbuild/protobuf/wkt';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CreateScheduleRequestSchema,
  CreateScheduleResponseSchema,
  GetScheduleRequestSchema,
  GetScheduleResponseSchema,
  ListSchedulesRequestSchema,
  ListSchedulesResponseSchema,
  PreviewScheduleRequestSchema,
  PreviewScheduleResponseSchema,
  ScheduleService,
  TriggerScheduleRequestSchema,
  TriggerScheduleResponseSchema,
  BackfillScheduleRequestSchema,
  BackfillScheduleResponseSchema,
} from '../../src/gen/ferry/v1/schedule_service_pb.js';
import { RunOutcome, ScheduleStatus, type Schedule, type ScheduleSummary as GrpcSummary } from '../../src/gen/ferry/v1/schedules_pb.js';
import { DEST, useFerry } from '../support/fixture.js';
import { GrpcTestClient, grpcErrorDetail } from '../support/grpc-client.js';
import { iso, minimal, newKey, scheduleProject, Schedules, type ScheduleDetail, type ScheduleSummary } from '../support/schedule-client.js';

const STATUS: Record<number, string> = { [ScheduleStatus.ACTIVE]: 'active', [ScheduleStatus.PAUSED]: 'paused', [ScheduleStatus.ENDED]: 'ended' };
const OUTCOME: Record<number, string | null> = {
  [RunOutcome.UNSPECIFIED]: null,
  [RunOutcome.ENQUEUED]: 'enqueued',
  [RunOutcome.SKIPPED_USAGE_LIMIT]: 'skipped_usage_limit',
  [RunOutcome.SKIPPED_OVERLAP]: 'skipped_overlap',
  [RunOutcome.MISSED]: 'missed',
  [RunOutcome.TRIGGERED]: 'triggered',
  [RunOutcome.BACKFILLED]: 'backfilled',
};
const time = (t: Timestamp | undefined) => (t === undefined ? null : iso(Number(timestampMs(t))));

/** A gRPC schedule in the JSON API's shape, to compare the two protocols' answers field by field. */
function asJson(s: Schedule | GrpcSummary): ScheduleSummary & Partial<Pick<ScheduleDetail, 'request' | 'run_counts' | 'recent_runs'>> {
  const t = s.timing!;
  const summary: ScheduleSummary = {
    id: s.id,
    name: s.name,
    timing: {
      type: t.type,
      expression: t.expression ?? null,
      timezone: t.timezone ?? null,
      every_seconds: t.everySeconds ?? null,
      starts_at: t.startsAt ?? null,
      dst: t.dst === undefined ? null : { gap: t.dst.gap ?? '', overlap: t.dst.overlap ?? '' },
      ends_at: t.endsAt ?? null,
    },
    status: STATUS[s.status] as ScheduleSummary['status'],
    url: s.url,
    retry: s.retry,
    next_run_at: time(s.nextRunAt),
    last_run_at: time(s.lastRunAt),
    last_run_outcome: OUTCOME[s.lastRunOutcome] as ScheduleSummary['last_run_outcome'],
    created_at: time(s.createdAt)!,
    updated_at: time(s.updatedAt)!,
    policy: {
      overlap: s.policy!.overlap!,
      max_runs: s.policy!.maxRuns ?? null,
      jitter_seconds: s.policy!.jitterSeconds ?? 0,
      pause_after_failures: s.policy!.pauseAfterFailures ?? null,
    },
    pause_reason: (s.pauseReason ?? null) as ScheduleSummary['pause_reason'],
  };
  if (!('request' in s) || s.request === undefined) return summary;
  const r = s.request;
  const c = s.runCounts!;
  return {
    ...summary,
    request: {
      url: r.url ?? '',
      body: r.body === undefined ? null : toJson(ValueSchema, r.body),
      headers: { ...r.headers },
      retry: r.retry ?? 0,
      flow_keys: [...r.flowKeys],
      callbacks: r.callbacks === undefined ? null : { on_success: r.callbacks.onSuccess ?? null, on_failure: r.callbacks.onFailure ?? null },
      queue: r.queue ?? 'default',
      timeout: r.timeout ?? '50s',
      metadata: { ...r.metadata },
    },
    run_counts: { enqueued: c.enqueued, skipped_usage_limit: c.skippedUsageLimit, skipped_overlap: c.skippedOverlap, missed: c.missed, triggered: c.triggered, backfilled: c.backfilled },
    recent_runs: s.recentRuns.map((x) => ({ run_at: time(x.runAt)!, request_id: x.requestId ?? null, outcome: OUTCOME[x.outcome]!, request_status: x.requestStatus ?? null })),
  };
}

describe('schedules over gRPC (ferry.v1.ScheduleService)', () => {
  const f = useFerry();
  let grpc: GrpcTestClient;
  let schedules: Schedules;
  beforeAll(() => {
    grpc = new GrpcTestClient(ScheduleService, f.ferry.grpcAddress, f.apiKey);
    schedules = new Schedules(f.api);
  });
  afterAll(() => grpc.close());

  it('creates and gets a schedule with the same answer as the JSON API, and shares its idempotency keys', async () => {
    const key = newKey();
    const body: JsonValue = { report: ['daily', 1, null], ok: true };
    const created = await grpc.call('CreateSchedule', CreateScheduleRequestSchema, CreateScheduleResponseSchema, {
      idempotencyKey: key,
      name: ' over gRPC ',
      timing: { type: 'cron', expression: '0 7 * * 1', timezone: 'Europe/Paris' },
      request: { url: DEST, body: fromJson(ValueSchema, body), headers: { 'X-Tenant': 'acme' }, retry: 4 },
    });
    if (!created.ok) throw created.error;
    const summary = asJson(created.value.schedule!);
    expect(summary.id).toMatch(/^sch_./);
    expect(summary).toMatchObject({ name: 'over gRPC', status: 'active', url: DEST, retry: 4, last_run_at: null, last_run_outcome: null });

    const http = await schedules.detail(summary.id);
    const { request, run_counts: _counts, recent_runs: _recent, ...httpSummary } = http;
    expect(summary).toEqual(httpSummary);
    expect(request).toEqual({ url: DEST, body, headers: { 'X-Tenant': '[REDACTED]' }, retry: 4, flow_keys: [], callbacks: null, queue: 'default', timeout: '50s', metadata: {} });

    const got = await grpc.call('GetSchedule', GetScheduleRequestSchema, GetScheduleResponseSchema, { scheduleId: summary.id });
    if (!got.ok) throw got.error;
    expect(asJson(got.value.schedule!)).toEqual(http);

    // The same definition under the same key over the JSON API is the same schedule; a different one conflicts.
    const definition = { name: ' over gRPC ', timing: { type: 'cron', expression: '0 7 * * 1', timezone: 'Europe/Paris' }, request: { url: DEST, body, headers: { 'X-Tenant': 'acme' }, retry: 4 } };
    const viaHttp = await schedules.create(definition, key);
    expect(viaHttp.status).toBe(201);
    expect(viaHttp.body.data.id).toBe(summary.id);
    const conflict = await grpc.call('CreateSchedule', CreateScheduleRequestSchema, CreateScheduleResponseSchema, {
      idempotencyKey: key,
      name: 'something else',
      timing: { type: 'cron', expression: '0 7 * * 1', timezone: 'Europe/Paris' },
      request: { url: DEST },
    });
    expect(conflict.ok).toBe(false);
    if (!conflict.ok) expect(grpcErrorDetail(conflict.error)?.code).toBe('IDEMPOTENCY_KEY_REUSED');

    const listed = await grpc.call('ListSchedules', ListSchedulesRequestSchema, ListSchedulesResponseSchema, {});
    if (!listed.ok) throw listed.error;
    expect(listed.value.schedules.map(asJson)).toEqual((await schedules.list()).body.data);
  });

  it('reports a bad timing with the same code, field and message on both protocols, storing nothing', async () => {
    const project = await scheduleProject(f);
    const client = new GrpcTestClient(ScheduleService, f.ferry.grpcAddress, project.api.apiKey);
    try {
      const past = iso(Math.floor((Date.now() - 3_600_000) / 1000) * 1000);
      const cases: Array<{ timing: Record<string, unknown>; grpcTiming: Record<string, unknown>; field: string }> = [
        { timing: { type: 'cron', expression: '@daily', timezone: 'UTC' }, grpcTiming: { type: 'cron', expression: '@daily', timezone: 'UTC' }, field: 'timing.expression' },
        { timing: { type: 'cron', expression: '0 0 30 2 *', timezone: 'UTC' }, grpcTiming: { type: 'cron', expression: '0 0 30 2 *', timezone: 'UTC' }, field: 'timing.expression' },
        { timing: { type: 'cron', expression: '0 3 * * *', timezone: 'Mars/Base' }, grpcTiming: { type: 'cron', expression: '0 3 * * *', timezone: 'Mars/Base' }, field: 'timing.timezone' },
        { timing: { type: 'interval', every_seconds: 90 }, grpcTiming: { type: 'interval', everySeconds: 90 }, field: 'timing.every_seconds' },
        { timing: { type: 'interval', every_seconds: 3600, starts_at: past }, grpcTiming: { type: 'interval', everySeconds: 3600, startsAt: past }, field: 'timing.starts_at' },
        { timing: { type: 'weekly' }, grpcTiming: { type: 'weekly' }, field: 'timing.type' },
        {
          timing: { type: 'cron', expression: '0 3 * * *', timezone: 'UTC', dst: { gap: 'jump' } },
          grpcTiming: { type: 'cron', expression: '0 3 * * *', timezone: 'UTC', dst: { gap: 'jump' } },
          field: 'timing.dst.gap',
        },
        {
          timing: { type: 'interval', every_seconds: 3600, ends_at: past },
          grpcTiming: { type: 'interval', everySeconds: 3600, endsAt: past },
          field: 'timing.ends_at',
        },
      ];
      for (const c of cases) {
        const viaGrpc = await client.call('CreateSchedule', CreateScheduleRequestSchema, CreateScheduleResponseSchema, {
          idempotencyKey: newKey(),
          name: 'bad',
          timing: c.grpcTiming,
          request: { url: DEST },
        });
        expect(viaGrpc.ok, c.field).toBe(false);
        if (viaGrpc.ok) continue;
        expect(viaGrpc.error.code, c.field).toBe(GrpcStatus.INVALID_ARGUMENT);
        expect(grpcErrorDetail(viaGrpc.error)).toEqual({ code: 'INVALID_TIMING', field: c.field });
        const viaHttp = await project.schedules.create(minimal(DEST, c.timing));
        expect(viaHttp.status, c.field).toBe(422);
        expect(viaHttp.body.error).toMatchObject({ code: 'INVALID_TIMING', field: c.field });
        // Connect writes grpc-message with encodeURIComponent, grpc-js reads it with decodeURI, which leaves
        // reserved characters (@ ; , / ...) escaped; compare the message itself.
        expect(viaHttp.body.error?.message).toBe(decodeURIComponent(viaGrpc.error.details));
      }
      expect(await project.schedules.ids()).toEqual([]);
    } finally {
      client.close();
    }
  });

  it('takes a DST policy and bounds, and previews a saved schedule with its runs, as the JSON API does', async () => {
    const timing = { type: 'cron', expression: '30 1 * * *', timezone: 'America/New_York', dst: { gap: 'skip', overlap: 'both' }, endsAt: '2027-11-09T00:00:00Z' };
    const created = await grpc.call('CreateSchedule', CreateScheduleRequestSchema, CreateScheduleResponseSchema, {
      idempotencyKey: newKey(),
      name: 'both passes',
      timing,
      request: { url: DEST },
    });
    if (!created.ok) throw created.error;
    const summary = asJson(created.value.schedule!);
    expect(summary.timing).toEqual({ type: 'cron', expression: '30 1 * * *', timezone: 'America/New_York', every_seconds: null, starts_at: null, dst: { gap: 'skip', overlap: 'both' }, ends_at: '2027-11-09T00:00:00.000Z' });
    expect(summary).toEqual(await schedules.detail(summary.id).then(({ request: _r, recent_runs: _recent, run_counts: _counts, ...rest }) => rest));

    const after = '2027-11-06T12:00:00Z';
    const viaGrpc = await grpc.call('PreviewSchedule', PreviewScheduleRequestSchema, PreviewScheduleResponseSchema, { scheduleId: summary.id, after, count: 5 });
    if (!viaGrpc.ok) throw viaGrpc.error;
    const runs = viaGrpc.value.runs.map((r) => ({ at: time(r.at), instant: time(r.instant), dst: r.dst }));
    expect(runs.map((r) => [r.instant, r.dst])).toEqual([
      ['2027-11-07T05:30:00.000Z', 'overlap_first'],
      ['2027-11-07T06:30:00.000Z', 'overlap_second'],
      ['2027-11-08T06:30:00.000Z', 'none'],
    ]);
    expect(viaGrpc.value.runTimes.map(time)).toEqual(runs.map((r) => r.at));
    const viaHttp = await schedules.preview({ schedule_id: summary.id, after, count: 5 });
    expect(viaHttp.body.data).toEqual({ run_times: runs.map((r) => r.at), runs });
  });

  it('triggers and backfills over gRPC as over the JSON API: the policy sent, the key required, the counts read back alike', async () => {
    const hour = 3_600_000;
    const firstRun = Math.ceil((Date.now() + 60_000) / hour) * hour;
    const created = await grpc.call('CreateSchedule', CreateScheduleRequestSchema, CreateScheduleResponseSchema, {
      idempotencyKey: newKey(),
      name: 'runs over gRPC',
      timing: { type: 'interval', everySeconds: 3600, startsAt: iso(firstRun) },
      request: { url: DEST, queue: 'grpc.q', timeout: '30s', metadata: { via: 'grpc' } },
      policy: { overlap: 'skip', maxRuns: 3 },
    });
    if (!created.ok) throw created.error;
    const id = created.value.schedule!.id;
    expect(asJson(created.value.schedule!).policy).toEqual({ overlap: 'skip', max_runs: 3, jitter_seconds: 0, pause_after_failures: null });

    const noKey = await grpc.call('TriggerSchedule', TriggerScheduleRequestSchema, TriggerScheduleResponseSchema, { scheduleId: id });
    expect(!noKey.ok && noKey.error.code).toBe(GrpcStatus.INVALID_ARGUMENT);
    if (!noKey.ok) expect(grpcErrorDetail(noKey.error)).toEqual({ code: 'MISSING_FIELD', field: 'Idempotency-Key' });
    const triggered = await grpc.call('TriggerSchedule', TriggerScheduleRequestSchema, TriggerScheduleResponseSchema, { scheduleId: id, idempotencyKey: newKey() });
    if (!triggered.ok) throw triggered.error;
    expect(triggered.value.acceptance!.id).toMatch(/^req_/);
    const overlapping = await grpc.call('TriggerSchedule', TriggerScheduleRequestSchema, TriggerScheduleResponseSchema, { scheduleId: id, idempotencyKey: newKey() });
    expect(!overlapping.ok && overlapping.error.code).toBe(GrpcStatus.FAILED_PRECONDITION);

    const range = { scheduleId: id, idempotencyKey: newKey(), from: iso(firstRun - 5 * hour), to: iso(firstRun - 3 * hour) };
    const backfilled = await grpc.call('BackfillSchedule', BackfillScheduleRequestSchema, BackfillScheduleResponseSchema, range);
    if (!backfilled.ok) throw backfilled.error;
    expect(backfilled.value.occurrences).toBe(2);
    const again = await grpc.call('BackfillSchedule', BackfillScheduleRequestSchema, BackfillScheduleResponseSchema, { ...range, idempotencyKey: newKey() });
    if (!again.ok) throw again.error;
    expect(again.value.occurrences).toBe(0);

    const got = await grpc.call('GetSchedule', GetScheduleRequestSchema, GetScheduleResponseSchema, { scheduleId: id });
    if (!got.ok) throw got.error;
    const http = await schedules.detail(id);
    expect(asJson(got.value.schedule!)).toEqual(http);
    expect(http.run_counts).toMatchObject({ triggered: 1, backfilled: 2 });
    expect(http.request).toMatchObject({ queue: 'grpc.q', timeout: '30s', metadata: { via: 'grpc' } });
  });

  it('maps a missing schedule and a missing key to NOT_FOUND and UNAUTHENTICATED', async () => {
    const missing = await grpc.call('GetSchedule', GetScheduleRequestSchema, GetScheduleResponseSchema, { scheduleId: 'sch_missing' });
    expect(!missing.ok && missing.error.code).toBe(GrpcStatus.NOT_FOUND);
    const noKey = await grpc.call('GetSchedule', GetScheduleRequestSchema, GetScheduleResponseSchema, { scheduleId: 'sch_missing' }, { apiKey: null });
    expect(!noKey.ok && noKey.error.code).toBe(GrpcStatus.UNAUTHENTICATED);
  });
});
