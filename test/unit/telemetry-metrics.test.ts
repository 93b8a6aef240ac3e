import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { apiCallObserver } from '../../src/adapters/telemetry/api-calls.js';
import { createServiceLogger, type LoggerLevel } from '../../src/adapters/telemetry/logger.js';
import { PrometheusMetrics } from '../../src/adapters/telemetry/prometheus-metrics.js';
import { FerryError } from '../../src/domain/errors.js';
import type { Acceptance } from '../../src/domain/request.js';
import type { ApiCall } from '../../src/ports/telemetry.js';
import { deliveryOutcomeOf, recordDeliveryEvent } from '../../src/workers/delivery/events.js';
import { recordSchedulerEvent } from '../../src/workers/scheduler/events.js';
import { sampleOf } from '../support/metrics.js';

function logged(level: LoggerLevel) {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createServiceLogger({ level, destination }) };
}

const acceptance = (status: Acceptance['status']): Acceptance => ({
  id: 'req_1',
  projectId: 'prj_1',
  replayedFromRequestId: null,
  status,
  scheduledAt: null,
  createdAt: 0,
});

function call(overrides: Partial<ApiCall>): ApiCall {
  return {
    protocol: 'json',
    route: 'POST /send',
    rpc: 'ferry.v1.RequestService/Send',
    status: 202,
    code: undefined,
    field: undefined,
    durationMs: 3,
    requestId: 'rid-1',
    projectId: 'prj_1',
    accepted: undefined,
    error: undefined,
    ...overrides,
  };
}

describe('metrics of worker events', () => {
  it('classes the end of an attempt by what it left the request as', () => {
    expect(deliveryOutcomeOf('succeeded')).toBe('succeeded');
    expect(deliveryOutcomeOf('queued')).toBe('retry_scheduled');
    expect(deliveryOutcomeOf('failed')).toBe('failed');
    expect(deliveryOutcomeOf('cancelled')).toBe('cancelled');
  });

  it('counts outcomes, observes durations, retry delays and lateness', async () => {
    const m = new PrometheusMetrics({ defaultMetrics: false });
    recordDeliveryEvent(m, { type: 'attempt_started', requestId: 'r', attemptNumber: 1, at: 10_250, dueAt: 10_000, queue: 'default' });
    recordDeliveryEvent(m, { type: 'attempt_started', requestId: 'r', attemptNumber: 2, at: 20_000, dueAt: null, queue: 'default' });
    recordDeliveryEvent(m, {
      type: 'attempt_finished', requestId: 'r', projectId: 'p', attemptNumber: 1, requestStatus: 'queued', attemptStatus: 'failed', responseStatusCode: 503, durationMs: 40, retryDelayMs: 30_000,
    });
    recordDeliveryEvent(m, {
      type: 'attempt_finished', requestId: 'r', projectId: 'p', attemptNumber: 2, requestStatus: 'cancelled', attemptStatus: 'failed', responseStatusCode: 500, durationMs: 40, retryDelayMs: 60_000,
    });
    recordDeliveryEvent(m, {
      type: 'attempt_finished', requestId: 's', projectId: 'p', attemptNumber: 1, requestStatus: 'succeeded', attemptStatus: 'succeeded', responseStatusCode: 200, durationMs: 12, retryDelayMs: null,
    });
    recordDeliveryEvent(m, { type: 'claim_lost', requestId: 't' });
    const text = await m.scrape();
    expect(sampleOf(text, 'ferry_deliveries_total', { outcome: 'retry_scheduled' })).toBe(1);
    expect(sampleOf(text, 'ferry_deliveries_total', { outcome: 'cancelled' })).toBe(1);
    expect(sampleOf(text, 'ferry_deliveries_total', { outcome: 'succeeded' })).toBe(1);
    expect(sampleOf(text, 'ferry_deliveries_total', { outcome: 'claim_lost' })).toBe(1);
    expect(sampleOf(text, 'ferry_deliveries_total', { outcome: 'failed' })).toBe(0);
    expect(sampleOf(text, 'ferry_attempt_duration_seconds_count', { result: 'failed' })).toBe(2);
    // Only the retry that was kept counts as a delay chosen; the cancel won over the other.
    expect(sampleOf(text, 'ferry_retry_delay_seconds_count')).toBe(1);
    expect(sampleOf(text, 'ferry_retry_delay_seconds_sum')).toBe(30);
    expect(sampleOf(text, 'ferry_timer_lateness_seconds_count')).toBe(1);
    expect(sampleOf(text, 'ferry_timer_lateness_seconds_sum')).toBe(0.25);
  });

  it('counts occurrences by outcome; an enqueued one is an accepted request, a skipped one an allowance refusal', async () => {
    const m = new PrometheusMetrics({ defaultMetrics: false });
    recordSchedulerEvent(m, { type: 'occurrence_fired', scheduleId: 's', at: 60_000, outcome: 'enqueued', firedAt: 50_000 });
    recordSchedulerEvent(m, { type: 'occurrence_fired', scheduleId: 's', at: 60_000, outcome: 'skipped_usage_limit', firedAt: 50_000 });
    recordSchedulerEvent(m, { type: 'occurrence_missed', scheduleId: 's', at: 60_000 });
    recordSchedulerEvent(m, { type: 'scheduler_error', error: 'x', scheduleId: 's' });
    recordSchedulerEvent(m, { type: 'scheduler_error', error: 'a look failed' });
    const text = await m.scrape();
    for (const outcome of ['enqueued', 'skipped_usage_limit', 'missed', 'failed']) {
      expect(sampleOf(text, 'ferry_schedule_occurrences_total', { outcome })).toBe(1);
    }
    // Enqueued ahead of its instant, it is created as of that instant: queued, as any request due at once.
    expect(sampleOf(text, 'ferry_requests_accepted_total', { endpoint: 'schedule', outcome: 'queued' })).toBe(1);
    expect(sampleOf(text, 'ferry_allowance_rejections_total', { allowance: 'monthly' })).toBe(1);
  });
});

describe('metric cells', () => {
  it('count a value on a bound into that bucket, cumulatively, as Prometheus reads `le`', async () => {
    const m = new PrometheusMetrics({ defaultMetrics: false });
    m.attemptStarted(1); // 0.001 s: on the first bound
    m.attemptStarted(2);
    m.attemptStarted(3_600_000); // above every bound
    const text = await m.scrape();
    expect(sampleOf(text, 'ferry_timer_lateness_seconds_bucket', { le: '0.001' })).toBe(1);
    expect(sampleOf(text, 'ferry_timer_lateness_seconds_bucket', { le: '0.005' })).toBe(2);
    expect(sampleOf(text, 'ferry_timer_lateness_seconds_bucket', { le: '900' })).toBe(2);
    expect(sampleOf(text, 'ferry_timer_lateness_seconds_bucket', { le: '+Inf' })).toBe(3);
    expect(sampleOf(text, 'ferry_timer_lateness_seconds_count')).toBe(3);
    expect(sampleOf(text, 'ferry_timer_lateness_seconds_sum')).toBeCloseTo(3600.003);
    expect(text).toContain('# TYPE ferry_timer_lateness_seconds histogram');
  });

  it('keep counting across scrapes', async () => {
    const m = new PrometheusMetrics({ defaultMetrics: false });
    m.kafkaError();
    expect(sampleOf(await m.scrape(), 'ferry_kafka_errors_total')).toBe(1);
    m.kafkaError();
    m.storageError('requests');
    const text = await m.scrape();
    expect(sampleOf(text, 'ferry_kafka_errors_total')).toBe(2);
    expect(sampleOf(text, 'ferry_storage_errors_total', { store: 'requests' })).toBe(1);
    expect(sampleOf(text, 'ferry_storage_errors_total', { store: 'schedules' })).toBe(0);
    expect(text).toContain('ferry_storage_errors_total{store="schedules"} 0');
  });
});

describe('API call observer', () => {
  it('observes latency by route, protocol and status class, and counts what accept calls answered', async () => {
    const m = new PrometheusMetrics({ defaultMetrics: false });
    const { logger } = logged('info');
    const observer = apiCallObserver(m, logger);
    observer.observeCall(call({ accepted: acceptance('queued') }));
    observer.observeCall(call({ protocol: 'grpc', route: 'ferry.v1.RequestService/BatchCreateRequests', rpc: 'ferry.v1.RequestService/BatchCreateRequests', status: 200, accepted: [acceptance('queued'), acceptance('scheduled'), acceptance('scheduled')] }));
    observer.observeCall(call({ status: 429, code: 'MONTHLY_ALLOWANCE_EXCEEDED' }));
    observer.observeCall(call({ route: 'POST /schedules', rpc: 'ferry.v1.ScheduleService/CreateSchedule', status: 429, code: 'SCHEDULE_ALLOWANCE_EXCEEDED' }));
    const text = await m.scrape();
    expect(sampleOf(text, 'ferry_api_request_duration_seconds_count', { route: 'POST /send', protocol: 'json', code: '2xx' })).toBe(1);
    expect(sampleOf(text, 'ferry_api_request_duration_seconds_count', { route: 'POST /send', protocol: 'json', code: '4xx' })).toBe(1);
    expect(sampleOf(text, 'ferry_requests_accepted_total', { endpoint: 'send', outcome: 'queued' })).toBe(1);
    expect(sampleOf(text, 'ferry_requests_accepted_total', { endpoint: 'batch', outcome: 'queued' })).toBe(1);
    expect(sampleOf(text, 'ferry_requests_accepted_total', { endpoint: 'batch', outcome: 'scheduled' })).toBe(2);
    expect(sampleOf(text, 'ferry_allowance_rejections_total', { allowance: 'monthly' })).toBe(1);
    expect(sampleOf(text, 'ferry_allowance_rejections_total', { allowance: 'schedules' })).toBe(1);
  });

  it('logs a 5xx at error with what went wrong, its stack only at debug', () => {
    const failure = new Error('disk on fire');
    const atInfo = logged('info');
    apiCallObserver(null, atInfo.logger).observeCall(call({ status: 503, code: 'STORAGE_UNAVAILABLE', error: failure }));
    expect(atInfo.lines).toHaveLength(1);
    expect(atInfo.lines[0]).toMatchObject({
      level: 'error',
      msg: 'api call failed',
      request_id: 'rid-1',
      route: 'POST /send',
      protocol: 'json',
      project_id: 'prj_1',
      status: 503,
      code: 'STORAGE_UNAVAILABLE',
      error: 'Error: disk on fire',
    });
    expect(atInfo.lines[0]).not.toHaveProperty('stack');
    const atDebug = logged('debug');
    apiCallObserver(null, atDebug.logger).observeCall(call({ status: 500, code: 'INTERNAL', error: failure }));
    expect(atDebug.lines[0]!.stack).toContain('disk on fire');
  });

  it('logs a 4xx only at debug, naming the field at fault but not the error message', () => {
    const atInfo = logged('info');
    apiCallObserver(null, atInfo.logger).observeCall(call({ status: 422, code: 'INVALID_HEADERS', field: 'X-Forward-Token' }));
    expect(atInfo.lines).toHaveLength(0);
    const atDebug = logged('debug');
    apiCallObserver(null, atDebug.logger).observeCall(call({ status: 422, code: 'INVALID_HEADERS', field: 'X-Forward-Token', projectId: undefined }));
    expect(atDebug.lines).toHaveLength(1);
    expect(atDebug.lines[0]).toMatchObject({ level: 'debug', code: 'INVALID_HEADERS', field: 'X-Forward-Token', status: 422 });
    expect(atDebug.lines[0]).not.toHaveProperty('project_id');
    expect(atDebug.lines[0]).not.toHaveProperty('error');
  });

  it('logs a 5xx Ferry chose to answer (a refusal while shutting down) at error, like every 5xx', () => {
    const atInfo = logged('info');
    const refusal = new FerryError('SHUTTING_DOWN', 'This Ferry process is shutting down; retry the call.', undefined, 1);
    apiCallObserver(null, atInfo.logger).observeCall(call({ status: 503, code: 'SHUTTING_DOWN', error: refusal }));
    expect(atInfo.lines).toHaveLength(1);
    expect(atInfo.lines[0]).toMatchObject({ level: 'error', status: 503, code: 'SHUTTING_DOWN', error: 'FerryError: This Ferry process is shutting down; retry the call.' });
  });

  it('writes at most 20 error lines a second, then how many it held back', () => {
    let now = 5_000;
    const { lines, logger } = logged('info');
    const observer = apiCallObserver(null, logger, () => now);
    for (let i = 0; i < 25; i++) observer.observeCall(call({ status: 500, code: 'INTERNAL', error: new Error('boom') }));
    expect(lines).toHaveLength(20);
    now += 1_000;
    observer.observeCall(call({ status: 500, code: 'INTERNAL', error: new Error('boom') }));
    expect(lines.slice(20).map((l) => [l.level, l.msg, l.skipped])).toEqual([
      ['warn', 'api call failures not logged', 5],
      ['error', 'api call failed', undefined],
    ]);
  });

  it('writes nothing for a successful call', () => {
    const { lines, logger } = logged('trace');
    apiCallObserver(null, logger).observeCall(call({}));
    expect(lines).toHaveLength(0);
  });
});
