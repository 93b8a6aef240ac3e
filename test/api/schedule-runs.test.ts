import { describe, expect, it } from 'vitest';
import type { Api } from '../support/api-client.js';
import { DEST, useFerry } from '../support/fixture.js';
import { at, cron, expectError, interval, iso, minimal, newKey, scheduleProject, secondsAhead, type Schedules } from '../support/schedule-client.js';

/**
 * A schedule's policy, its request's queue, timeout and metadata, and the requests it makes outside its timing
 * (trigger, backfill) with their counters and recent runs. The shared server runs no delivery: a request it
 * accepts stays queued, which is what "the previous occurrence is still active" needs here. Firing is covered by
 * `schedule-policy-firing.test.ts`.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

interface Acceptance {
  id: string;
  status: string;
  created_at: string;
}

function trigger(api: Api, id: string, key: string | null = newKey()) {
  return api.call<Acceptance>('POST', `/schedules/${id}/trigger`, { headers: key === null ? {} : { 'idempotency-key': key } });
}

function backfill(api: Api, id: string, json: unknown, key: string | null = newKey()) {
  return api.call<{ occurrences: number }>('POST', `/schedules/${id}/backfill`, { json, headers: key === null ? {} : { 'idempotency-key': key } });
}

async function scheduleRequests(api: Api, id: string): Promise<Array<{ id: string; queue: string; schedule_id: string }>> {
  const res = await api.call<{ items: Array<{ id: string; queue: string; schedule_id: string }> }>('GET', `/requests?schedule_id=${id}&limit=100`);
  expect(res.status).toBe(200);
  return res.body.data.items;
}

/** An hourly interval whose grid puts instants on the whole hours. */
function hourly(): Record<string, unknown> {
  const next = Math.ceil((Date.now() + MINUTE) / HOUR) * HOUR;
  return interval(3600, iso(next));
}

describe('schedule policy, trigger and backfill', () => {
  const f = useFerry();
  let n = 0;
  const created = async (schedules: Schedules, extra: Record<string, unknown> = {}, request: Record<string, unknown> = {}) =>
    schedules.created({ ...minimal(DEST, hourly()), name: `runs ${++n}`, ...extra, request: { url: DEST, ...request } });

  it('stores the request\'s queue, timeout and metadata and the policy, echoes them with every default, and applies them to what it creates', async () => {
    const { api, schedules } = await scheduleProject(f);
    const plain = await created(schedules);
    expect(plain.policy).toEqual({ overlap: 'allow_all', max_runs: null, jitter_seconds: 0, pause_after_failures: null });
    expect(plain.pause_reason).toBeNull();
    const plainDetail = await schedules.detail(plain.id);
    expect(plainDetail.request).toMatchObject({ queue: 'default', timeout: '50s', metadata: {} });
    expect(plainDetail.run_counts).toEqual({ enqueued: 0, skipped_usage_limit: 0, skipped_overlap: 0, missed: 0, triggered: 0, backfilled: 0 });
    expect(plainDetail.recent_runs).toEqual([]);

    const policy = { overlap: 'skip', max_runs: 5, pause_after_failures: 3 };
    const s = await created(schedules, { policy }, { queue: 'billing.eu', timeout: '2m', metadata: { tenant: 'acme', 'order.id': '42' } });
    expect(s.policy).toEqual({ ...policy, jitter_seconds: 0 });
    const detail = await schedules.detail(s.id);
    expect(detail.request).toMatchObject({ queue: 'billing.eu', timeout: '2m', metadata: { tenant: 'acme', 'order.id': '42' } });
    expect(detail.policy).toEqual(s.policy);

    const t = await trigger(api, s.id);
    expect(t.status, JSON.stringify(t.body)).toBe(202);
    const request = await api.call<{ queue: string; timeout_seconds: number; metadata: Record<string, string>; schedule_id: string; source: string }>('GET', `/requests/${t.body.data.id}`);
    expect(request.body.data).toMatchObject({ queue: 'billing.eu', timeout_seconds: 120, metadata: { tenant: 'acme', 'order.id': '42' }, schedule_id: s.id });

    // An update replaces the policy as a whole: what it leaves out takes its default.
    const changed = await schedules.patch(s.id, { policy: { overlap: 'buffer_one' } });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body.data.policy).toEqual({ overlap: 'buffer_one', max_runs: null, jitter_seconds: 0, pause_after_failures: null });
    expect((await schedules.detail(s.id)).policy).toEqual(changed.body.data.policy);
  });

  it('refuses a bad policy or request field with 422 naming it, storing nothing', async () => {
    const { schedules } = await scheduleProject(f);
    const cases: Array<[Record<string, unknown>, Record<string, unknown>, string, string]> = [
      [{ policy: { overlap: 'sometimes' } }, {}, 'INVALID_FIELD', 'policy.overlap'],
      [{ policy: { max_runs: 0 } }, {}, 'INVALID_FIELD', 'policy.max_runs'],
      [{ policy: { pause_after_failures: 101 } }, {}, 'INVALID_FIELD', 'policy.pause_after_failures'],
      [{ policy: { pause_after_failures: 0 } }, {}, 'INVALID_FIELD', 'policy.pause_after_failures'],
      [{}, { queue: 'no spaces' }, 'INVALID_QUEUE', 'request.queue'],
      [{}, { timeout: '10m' }, 'INVALID_TIMEOUT', 'request.timeout'],
      [{}, { metadata: { 'bad key': 'v' } }, 'INVALID_METADATA', 'request.metadata.bad key'],
    ];
    for (const [extra, request, code, field] of cases) {
      const res = await schedules.create({ ...minimal(DEST), ...extra, request: { url: DEST, ...request } });
      expect(res.body.error?.code, JSON.stringify({ extra, request })).toBe(code);
      expectError(res, 422, code, field);
    }
    const s = await created(schedules);
    expectError(await schedules.patch(s.id, { policy: { overlap: 'never' } }), 422, 'INVALID_FIELD', 'policy.overlap');
    expect((await schedules.detail(s.id)).policy.overlap).toBe('allow_all');
    expect(await schedules.ids()).toEqual([s.id]);
  });

  it('pause by call reads pause_reason user; resume clears it', async () => {
    const { schedules } = await scheduleProject(f);
    const s = await created(schedules);
    const paused = await schedules.pause(s.id);
    expect(paused.body.data).toMatchObject({ status: 'paused', pause_reason: 'user', next_run_at: null });
    expect((await schedules.detail(s.id)).pause_reason).toBe('user');
    const resumed = await schedules.resume(s.id);
    expect(resumed.body.data).toMatchObject({ status: 'active', pause_reason: null });
  });

  it('trigger: one request now, also while paused; the same key answers the same request; counted and listed as a recent run', async () => {
    const { api, schedules } = await scheduleProject(f);
    const s = await created(schedules);
    expectError(await trigger(api, s.id, null), 422, 'MISSING_FIELD', 'Idempotency-Key');

    const key = newKey();
    const first = await trigger(api, s.id, key);
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    expect(first.body.data).toMatchObject({ status: 'queued' });
    const again = await trigger(api, s.id, key);
    expect(again.status).toBe(202);
    expect(again.body.data.id).toBe(first.body.data.id);

    await schedules.pause(s.id);
    const whilePaused = await trigger(api, s.id);
    expect(whilePaused.status, JSON.stringify(whilePaused.body)).toBe(202);
    const detail = await schedules.detail(s.id);
    expect(detail).toMatchObject({ status: 'paused', pause_reason: 'user' });
    expect(detail.run_counts).toMatchObject({ triggered: 2, enqueued: 0 });
    expect(detail.recent_runs.map((r) => [r.outcome, r.request_id, r.request_status])).toEqual([
      ['triggered', whilePaused.body.data.id, 'queued'],
      ['triggered', first.body.data.id, 'queued'],
    ]);
    expect((await scheduleRequests(api, s.id)).map((r) => r.id).sort()).toEqual([first.body.data.id, whilePaused.body.data.id].sort());
    expectError(await trigger(api, 'sch_nope'), 404, 'NOT_FOUND');
  });

  it('trigger under skip or buffer_one while the previous request is active is a 409; under allow_all it is not', async () => {
    const { api, schedules } = await scheduleProject(f);
    for (const overlap of ['skip', 'buffer_one']) {
      const s = await created(schedules, { policy: { overlap } });
      expect((await trigger(api, s.id)).status).toBe(202);
      // Delivery is off here: the first request stays queued, active.
      expectError(await trigger(api, s.id), 409, 'SCHEDULE_OVERLAP');
      expect((await schedules.detail(s.id)).run_counts.triggered).toBe(1);
    }
    const all = await created(schedules);
    expect((await trigger(api, all.id)).status).toBe(202);
    expect((await trigger(api, all.id)).status).toBe(202);
  });

  it('triggers racing under skip or buffer_one start one run: one 202, the others 409, one request', async () => {
    const { api, schedules } = await scheduleProject(f);
    for (const overlap of ['skip', 'buffer_one']) {
      const s = await created(schedules, { policy: { overlap } });
      const keys = Array.from({ length: 8 }, () => newKey());
      const answers = await Promise.all(keys.map((key) => trigger(api, s.id, key)));
      const won = answers.filter((a) => a.status === 202);
      expect(won, JSON.stringify(answers.map((a) => a.body))).toHaveLength(1);
      for (const lost of answers.filter((a) => a.status !== 202)) expectError(lost, 409, 'SCHEDULE_OVERLAP');
      expect((await scheduleRequests(api, s.id)).map((r) => r.id)).toEqual([won[0]!.body.data.id]);
      expect((await schedules.detail(s.id)).run_counts.triggered).toBe(1);
      // The winner's key, repeated, answers its request again.
      const winner = keys[answers.indexOf(won[0]!)]!;
      const again = await trigger(api, s.id, winner);
      expect(again.status).toBe(202);
      expect(again.body.data.id).toBe(won[0]!.body.data.id);
    }
  });

  it('backfill: each instant of [from, to) once, however often asked; only what the call created is counted', async () => {
    const { api, schedules } = await scheduleProject(f);
    const s = await created(schedules);
    const firstRun = at(s.next_run_at);
    const to = firstRun - 3 * HOUR;
    const from = to - 6 * HOUR;
    expectError(await backfill(api, s.id, { from: iso(from), to: iso(to) }, null), 422, 'MISSING_FIELD', 'Idempotency-Key');

    const six = await backfill(api, s.id, { from: iso(from), to: iso(to) });
    expect(six.status, JSON.stringify(six.body)).toBe(202);
    expect(six.body.data).toEqual({ occurrences: 6 });
    // The same range again, with another key and with the same: nothing new.
    expect((await backfill(api, s.id, { from: iso(from), to: iso(to) })).body.data).toEqual({ occurrences: 0 });
    // A range overlapping it: only the instants outside it.
    const wider = await backfill(api, s.id, { from: iso(from - 2 * HOUR), to: iso(to + HOUR) });
    expect(wider.body.data).toEqual({ occurrences: 3 });
    // Two at once over the same new range: each instant once between them.
    const racing = await Promise.all([0, 1].map(() => backfill(api, s.id, { from: iso(from - 5 * HOUR), to: iso(from - 2 * HOUR) })));
    for (const r of racing) expect(r.status, JSON.stringify(r.body)).toBe(202);

    const requests = await scheduleRequests(api, s.id);
    expect(requests).toHaveLength(12);
    const detail = await schedules.detail(s.id);
    expect(detail.run_counts).toMatchObject({ backfilled: 12, enqueued: 0, triggered: 0 });
    expect(detail.recent_runs).toHaveLength(10);
    for (const r of detail.recent_runs) expect(r).toMatchObject({ outcome: 'backfilled', request_status: 'queued' });
    expect(new Set(detail.recent_runs.map((r) => r.request_id)).size).toBe(10);
    expect(detail.status).toBe('active');
    expect(at(detail.next_run_at)).toBe(firstRun);
  });

  it('backfill refuses a range in the future, backwards, malformed or over 1,000 instants, naming the field', async () => {
    const { api, schedules } = await scheduleProject(f);
    const minutely = await schedules.created({ name: 'minutely', timing: cron('* * * * *'), request: { url: DEST } });
    const now = Date.now();
    expectError(await backfill(api, minutely.id, { from: iso(now - HOUR), to: secondsAhead(60_000) }), 422, 'INVALID_FIELD', 'to');
    expectError(await backfill(api, minutely.id, { from: iso(now - HOUR), to: iso(now - 2 * HOUR) }), 422, 'INVALID_FIELD', 'from');
    expectError(await backfill(api, minutely.id, { from: 'yesterday', to: iso(now - HOUR) }), 422, 'INVALID_FIELD', 'from');
    expectError(await backfill(api, minutely.id, { to: iso(now - HOUR) }), 422, 'MISSING_FIELD', 'from');
    expectError(await backfill(api, minutely.id, { from: iso(now - 20 * HOUR), to: iso(now - HOUR) }), 422, 'INVALID_FIELD', 'to');
    expect(await scheduleRequests(api, minutely.id)).toEqual([]);
  });
});
