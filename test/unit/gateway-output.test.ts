import { timestampFromMs } from '@bufbuild/protobuf/wkt';
import { describe, expect, it } from 'vitest';
import { AttemptStatus, RequestStatus } from '../../src/gen/ferry/v1/requests_pb.js';
import { RunOutcome, ScheduleStatus } from '../../src/gen/ferry/v1/schedules_pb.js';
import { call, CREATED_MS, useGateway } from './gateway-harness.js';

describe('gateway response bodies', () => {
  const h = useGateway();

  it('writes every declared field, null for unset messages and optional scalars', async () => {
    const res = await call(h, 'POST', '/send?url=u', { body: 'x' });
    expect(res.text).toContain('"data":{"id":"req_1","project_id":"prj_1","replayed_from_request_id":null,"status":"queued","scheduled_at":null,"created_at":"2030-01-02T03:04:05.678Z"}');
  });

  it('writes a whole request detail with maps, int64 numbers, nested messages and lists', async () => {
    const at = (s: number) => timestampFromMs(CREATED_MS + s * 1000);
    h.reply('getRequest', () => ({
      request: {
        id: 'req_1', url: 'https://example.com/', method: 'POST', queue: 'default', status: RequestStatus.FAILED,
        createdAt: at(0), startedAt: at(1), completedAt: at(2), updatedAt: at(2), maxAttempts: 2, timeoutSeconds: 50,
        metadata: { k: 'v' }, headers: { Authorization: '[REDACTED]' }, contentType: 'text/plain',
        attempts: [
          {
            attemptNumber: 1, status: AttemptStatus.FAILED, responseStatusCode: 429, durationMs: 12n, startedAt: at(1), completedAt: at(1),
            retry: {
              reason: 'http_429', retryAfterRaw: '5', retryAfterStatus: 'valid', retryAfterDelayMs: 5000n, backoffDelayMs: 1234n,
              selectedDelayMs: 5000n, delaySource: 'retry_after', nextAttemptAt: at(6),
            },
          },
          { attemptNumber: 2, status: AttemptStatus.TIMED_OUT, errorMessage: 'timeout', durationMs: 50_000n, startedAt: at(6), completedAt: at(56) },
        ],
      },
    }));
    const res = await call(h, 'GET', '/requests/req_1');
    expect(res.body.data).toEqual({
      id: 'req_1', replayed_from_request_id: null, schedule_id: null, url: 'https://example.com/', method: 'POST', queue: 'default',
      flow_keys: [], status: 'failed', waiting_for: null, last_response_status_code: null, scheduled_at: null, created_at: '2030-01-02T03:04:05.678Z', started_at: '2030-01-02T03:04:06.678Z',
      completed_at: '2030-01-02T03:04:07.678Z', max_attempts: 2, timeout_seconds: 50, metadata: { k: 'v' }, content_type: 'text/plain',
      headers: { Authorization: '[REDACTED]' }, updated_at: '2030-01-02T03:04:07.678Z', cancelled_at: null,
      callbacks: null, callback_for_request_id: null, callback_request_ids: [],
      attempts: [
        {
          attempt_number: 1, status: 'failed', response_status_code: 429, error_message: null, duration_ms: 12,
          started_at: '2030-01-02T03:04:06.678Z', completed_at: '2030-01-02T03:04:06.678Z',
          retry: {
            reason: 'http_429', retry_after_raw: '5', retry_after_truncated: false, retry_after_escaped: false, retry_after_status: 'valid',
            retry_after_delay_ms: 5000, backoff_delay_ms: 1234, selected_delay_ms: 5000, delay_source: 'retry_after',
            next_attempt_at: '2030-01-02T03:04:11.678Z',
          },
          final_reason: null,
          response: null,
        },
        {
          attempt_number: 2, status: 'timed_out', response_status_code: null, error_message: 'timeout', duration_ms: 50000,
          started_at: '2030-01-02T03:04:11.678Z', completed_at: '2030-01-02T03:05:01.678Z', retry: null,
          final_reason: null, response: null,
        },
      ],
    });
  });

  it('writes unspecified enums as null and Values as plain JSON', async () => {
    h.reply('getSchedule', () => ({
      schedule: {
        id: 'sch_1', name: 'n', status: ScheduleStatus.PAUSED, url: 'u', retry: 1, lastRunOutcome: RunOutcome.UNSPECIFIED,
        timing: { type: 'cron', expression: '* * * * *', timezone: 'UTC' },
        request: {
          url: 'u', headers: {}, retry: 1,
          body: { kind: { case: 'structValue', value: { fields: { a: { kind: { case: 'listValue', value: { values: [{ kind: { case: 'numberValue', value: 1.5 } }, { kind: { case: 'nullValue', value: 0 } }] } } } } } } },
        },
      },
    }));
    const detail = await call(h, 'GET', '/schedules/sch_1');
    expect(detail.body.data).toMatchObject({
      status: 'paused', last_run_outcome: null, next_run_at: null,
      timing: { type: 'cron', expression: '* * * * *', timezone: 'UTC', every_seconds: null, starts_at: null },
      request: { url: 'u', body: { a: [1.5, null] }, headers: {}, retry: 1 },
    });
    h.reply('listSchedules', () => ({ schedules: [{ id: 'sch_2', status: ScheduleStatus.ACTIVE, lastRunOutcome: RunOutcome.SKIPPED_USAGE_LIMIT }] }));
    const list = await call(h, 'GET', '/schedules');
    // Summaries carry no request definition at all; an unset message field is null.
    expect(list.body.data[0]).toMatchObject({ status: 'active', last_run_outcome: 'skipped_usage_limit', timing: null });
    expect(list.body.data[0]).not.toHaveProperty('request');
    expect(list.body.meta).toBeNull();
  });

  it('writes the response_meta field as the envelope meta when it is set', async () => {
    h.reply('listSchedules', () => ({ schedules: [], page: { nextCursor: 'c1' } }));
    expect((await call(h, 'GET', '/schedules?limit=1')).body).toMatchObject({ data: [], meta: { next_cursor: 'c1' } });
    h.reply('listSchedules', () => ({ schedules: [], page: {} }));
    expect((await call(h, 'GET', '/schedules?limit=1')).body).toMatchObject({ data: [], meta: { next_cursor: null } });
  });

  it('writes the batch response as the whole message, with lists of acceptances', async () => {
    const res = await call(h, 'POST', '/requests/batch', { json: { requests: [] } });
    expect(res.body.data).toEqual({ requests: [expect.objectContaining({ id: 'req_1', status: 'queued' })] });
  });
});
