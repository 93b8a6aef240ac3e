import { describe, expect, it } from 'vitest';
import { DEST, useFerry } from '../support/fixture.js';
import {
  at,
  cron,
  echoed,
  expectError,
  interval,
  iso,
  minimal,
  newKey,
  scheduleProject,
  SUMMARY_KEYS,
  UTC_TIMESTAMP,
  type ScheduleSummary,
} from '../support/schedule-client.js';

const DAY = 86_400_000;
/** A whole-second instant `days` from now, in the form the API writes timestamps. */
const daysAhead = (days: number) => iso(Math.ceil((Date.now() + days * DAY) / 1000) * 1000);

/** The wall clock of an instant in a time zone: weekday (Mon…Sun), hour and minute. */
function wallClock(ms: number, timeZone: string): { weekday: string; hour: number; minute: number } {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(ms);
  const part = (type: string) => parts.find((p) => p.type === type)!.value;
  return { weekday: part('weekday'), hour: Number(part('hour')), minute: Number(part('minute')) };
}

describe('schedules: create, read and list', () => {
  const f = useFerry();

  it('creates a cron schedule: 201 with the summary, name trimmed, timing as given, next_run_at the first previewed run', async () => {
    const { schedules } = await scheduleProject(f);
    const timing = cron('30 2 * * 1-5', 'Europe/Berlin');
    const before = Date.now();
    const res = await schedules.create({
      name: '  Nightly report \t',
      timing,
      request: { url: DEST, body: { report: 'daily' }, headers: { 'X-Tenant': 'acme' }, retry: 3 },
    });
    const after = Date.now();
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ success: true, error: null, meta: null });
    const s = res.body.data;
    expect(Object.keys(s).sort()).toEqual(SUMMARY_KEYS);
    expect(s).toEqual({
      id: expect.stringMatching(/^sch_./),
      name: 'Nightly report',
      timing: echoed(timing),
      status: 'active',
      url: DEST,
      retry: 3,
      next_run_at: expect.stringMatching(UTC_TIMESTAMP),
      last_run_at: null,
      last_run_outcome: null,
      created_at: expect.stringMatching(UTC_TIMESTAMP),
      updated_at: expect.stringMatching(UTC_TIMESTAMP),
      policy: { overlap: 'allow_all', max_runs: null, jitter_seconds: 0, pause_after_failures: null },
      pause_reason: null,
    });
    expect(at(s.created_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(at(s.created_at)).toBeLessThanOrEqual(after + 1000);
    const next = at(s.next_run_at);
    expect(next).toBeGreaterThan(at(s.created_at));
    expect(wallClock(next, 'Europe/Berlin')).toMatchObject({ hour: 2, minute: 30 });
    expect(['Mon', 'Tue', 'Wed', 'Thu', 'Fri']).toContain(wallClock(next, 'Europe/Berlin').weekday);
    expect(await schedules.runTimes(timing, s.created_at, 1)).toEqual([next]);
  });

  it('creates interval schedules: first run one interval after creation, or at starts_at; both the first previewed run', async () => {
    const { schedules } = await scheduleProject(f);
    const hourly = interval(3600);
    const a = await schedules.created(minimal(DEST, hourly));
    expect(a.timing).toEqual(echoed(hourly));
    expect(a.timing.starts_at).toBeNull();
    expect(at(a.next_run_at)).toBe(at(a.created_at) + 3_600_000);
    expect(await schedules.runTimes(hourly, a.created_at, 1)).toEqual([at(a.next_run_at)]);

    const startsAt = daysAhead(2);
    const everyTwoMinutes = interval(120, startsAt);
    const b = await schedules.created(minimal(DEST, everyTwoMinutes));
    expect(b.timing).toEqual(echoed(everyTwoMinutes));
    expect(at(b.next_run_at)).toBe(Date.parse(startsAt));
    expect(await schedules.runTimes(everyTwoMinutes, undefined, 2)).toEqual([Date.parse(startsAt), Date.parse(startsAt) + 120_000]);
  });

  it('shows the detail: the summary plus the request with its JSON body and redacted header values', async () => {
    const { schedules } = await scheduleProject(f);
    const body = { order: 42, items: ['a', { deep: null }], ok: true };
    const s = await schedules.created({
      name: 'with everything',
      timing: cron('*/10 * * * *'),
      request: { url: `${DEST}?q=1`, body, headers: { 'X-Tenant': 'acme', Authorization: 'Bearer secret' }, retry: 19 },
    });
    const res = await schedules.get(s.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, error: null, meta: null });
    expect(res.body.data).toEqual({
      ...s,
      request: { url: `${DEST}?q=1`, body, headers: { 'X-Tenant': '[REDACTED]', Authorization: '[REDACTED]' }, retry: 19, flow_keys: [], callbacks: null, queue: 'default', timeout: '50s', metadata: {} },
      run_counts: { enqueued: 0, skipped_usage_limit: 0, skipped_overlap: 0, missed: 0, triggered: 0, backfilled: 0 },
      recent_runs: [],
    });
    expect(JSON.stringify(res.body)).not.toContain('Bearer secret');

    const text = await schedules.created({ name: 'text', timing: cron('0 0 * * *'), request: { url: DEST, body: 'just text' } });
    expect((await schedules.detail(text.id)).request).toEqual({ url: DEST, body: 'just text', headers: {}, retry: 0, flow_keys: [], callbacks: null, queue: 'default', timeout: '50s', metadata: {} });

    const bare = await schedules.created(minimal(DEST));
    expect(bare.retry).toBe(0);
    expect((await schedules.detail(bare.id)).request).toEqual({ url: DEST, body: null, headers: {}, retry: 0, flow_keys: [], callbacks: null, queue: 'default', timeout: '50s', metadata: {} });
  });

  it('lists the project\'s schedules newest first as a plain array with meta null', async () => {
    const { schedules } = await scheduleProject(f);
    expect((await schedules.list()).body).toMatchObject({ success: true, data: [], meta: null });
    const made: ScheduleSummary[] = [];
    for (let i = 0; i < 3; i++) made.push(await schedules.created(minimal(`${DEST}/${i}`)));
    const res = await schedules.list();
    expect(res.status).toBe(200);
    expect(res.body.meta).toBeNull();
    expect(res.body.data).toEqual([...made].reverse());
    for (const s of res.body.data) expect(Object.keys(s).sort()).toEqual(SUMMARY_KEYS);
  });

  it('pages with limit and cursor: every schedule once, newest first, meta.next_cursor null on the last page', async () => {
    const { schedules } = await scheduleProject(f);
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await schedules.created(minimal(`${DEST}/${i}`))).id);
    const newestFirst = [...made].reverse();
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await schedules.list(cursor === null ? 'limit=2' : `limit=2&cursor=${encodeURIComponent(cursor)}`);
      expect(res.status).toBe(200);
      expect(Array.isArray(res.body.data)).toBe(true);
      const meta = res.body.meta as unknown as { next_cursor: string | null };
      expect(Object.keys(meta)).toEqual(['next_cursor']);
      seen.push(...res.body.data.map((s) => s.id));
      cursor = meta.next_cursor;
      pages++;
    } while (cursor !== null && pages < 10);
    expect(seen).toEqual(newestFirst);
    expect(pages).toBe(3);

    const first = await schedules.list('limit=4');
    const firstMeta = first.body.meta as unknown as { next_cursor: string };
    expect(first.body.data.map((s) => s.id)).toEqual(newestFirst.slice(0, 4));
    const rest = await schedules.list(`cursor=${encodeURIComponent(firstMeta.next_cursor)}`);
    expect(rest.status).toBe(200);
    expect(rest.body.data.map((s) => s.id)).toEqual(newestFirst.slice(4));
    expect(rest.body.meta).toEqual({ next_cursor: null });

    const whole = await schedules.list('limit=100');
    expect(whole.body.data.map((s) => s.id)).toEqual(newestFirst);
    expect(whole.body.meta).toEqual({ next_cursor: null });
  });

  it('answers the same key and definition with the same schedule, and a changed definition with 409', async () => {
    const { schedules } = await scheduleProject(f);
    const key = newKey();
    const definition = minimal(DEST, cron('0 6 * * *', 'Asia/Tokyo'));
    const first = await schedules.create(definition, key);
    expect(first.status).toBe(201);
    const again = await schedules.create(definition, key);
    expect(again.status).toBe(201);
    expect(again.body.data).toEqual(first.body.data);
    const changed = await schedules.create({ ...definition, name: 'another name' }, key);
    expectError(changed, 409, 'IDEMPOTENCY_KEY_REUSED');
    expect(await schedules.ids()).toEqual([first.body.data.id]);
  });
});

describe('schedules: update, pause, resume, delete', () => {
  const f = useFerry();

  it('PATCH renames without touching the timing or the next run, and answers 200 with the summary', async () => {
    const { schedules } = await scheduleProject(f);
    const s = await schedules.created(minimal(DEST, cron('0 12 * * *')));
    const res = await schedules.patch(s.id, { name: '  renamed  ' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(SUMMARY_KEYS);
    expect(res.body.data).toEqual({ ...s, name: 'renamed', updated_at: expect.stringMatching(UTC_TIMESTAMP) });
    expect(at(res.body.data.updated_at)).toBeGreaterThanOrEqual(at(s.updated_at));
    expect(await schedules.detail(s.id)).toMatchObject({ name: 'renamed', next_run_at: s.next_run_at });
  });

  it('PATCH timing replaces next_run_at with the first run of the new timing from now', async () => {
    const { schedules } = await scheduleProject(f);
    const s = await schedules.created(minimal(DEST, cron('0 12 * * *')));
    for (const timing of [interval(7200), cron('15 4 * * *', 'Asia/Tokyo'), interval(600, daysAhead(3))]) {
      const res = await schedules.patch(s.id, { timing });
      const [expected] = await schedules.runTimes(timing, undefined, 1);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data).toMatchObject({ id: s.id, status: 'active', timing: echoed(timing) });
      expect(Math.abs(at(res.body.data.next_run_at) - expected!)).toBeLessThanOrEqual(1000);
      expect(await schedules.detail(s.id)).toMatchObject({ timing: echoed(timing), next_run_at: res.body.data.next_run_at });
    }
  });

  it('PATCH request replaces URL, body and retry; omitted or empty headers keep the stored ones, given headers replace them', async () => {
    const { schedules } = await scheduleProject(f);
    const s = await schedules.created({
      name: 'r',
      timing: cron('0 1 * * *'),
      request: { url: DEST, body: { v: 1 }, headers: { 'X-Keep': 'k' }, retry: 5 },
    });
    const v2 = await schedules.patch(s.id, { request: { url: `${DEST}/v2`, body: { v: 2 } } });
    expect(v2.status).toBe(200);
    expect(v2.body.data).toMatchObject({ url: `${DEST}/v2`, retry: 0, next_run_at: s.next_run_at, timing: s.timing });
    expect((await schedules.detail(s.id)).request).toEqual({ url: `${DEST}/v2`, body: { v: 2 }, headers: { 'X-Keep': '[REDACTED]' }, retry: 0, flow_keys: [], callbacks: null, queue: 'default', timeout: '50s', metadata: {} });

    expect((await schedules.patch(s.id, { request: { url: `${DEST}/v3`, headers: {}, retry: 2 } })).status).toBe(200);
    expect((await schedules.detail(s.id)).request).toEqual({ url: `${DEST}/v3`, body: null, headers: { 'X-Keep': '[REDACTED]' }, retry: 2, flow_keys: [], callbacks: null, queue: 'default', timeout: '50s', metadata: {} });

    expect((await schedules.patch(s.id, { request: { url: `${DEST}/v3`, headers: { 'X-New': 'n' } } })).status).toBe(200);
    expect((await schedules.detail(s.id)).request).toEqual({ url: `${DEST}/v3`, body: null, headers: { 'X-New': '[REDACTED]' }, retry: 0, flow_keys: [], callbacks: null, queue: 'default', timeout: '50s', metadata: {} });
  });

  it('pause answers 200 paused with next_run_at null, and again unchanged; resume makes it active at the next run from now', async () => {
    const { schedules } = await scheduleProject(f);
    const timing = cron('0 0 * * *');
    const s = await schedules.created(minimal(DEST, timing));
    const paused = await schedules.pause(s.id);
    expect(paused.status).toBe(200);
    expect(Object.keys(paused.body.data).sort()).toEqual(SUMMARY_KEYS);
    expect(paused.body.data).toEqual({ ...s, status: 'paused', pause_reason: 'user', next_run_at: null, updated_at: expect.stringMatching(UTC_TIMESTAMP) });
    const again = await schedules.pause(s.id);
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(paused.body.data);
    expect(await schedules.detail(s.id)).toMatchObject({ status: 'paused', next_run_at: null });
    expect((await schedules.list()).body.data).toEqual([paused.body.data]);

    const resumed = await schedules.resume(s.id);
    const [expected] = await schedules.runTimes(timing, undefined, 1);
    expect(resumed.status).toBe(200);
    expect(Object.keys(resumed.body.data).sort()).toEqual(SUMMARY_KEYS);
    expect(resumed.body.data).toMatchObject({ id: s.id, status: 'active', timing: s.timing, last_run_at: null, last_run_outcome: null });
    expect(Math.abs(at(resumed.body.data.next_run_at) - expected!)).toBeLessThanOrEqual(1000);
    expect(await schedules.detail(s.id)).toMatchObject({ status: 'active', next_run_at: resumed.body.data.next_run_at });
  });

  it('a paused schedule stays paused through a timing change and resumes on the new timing', async () => {
    const { schedules } = await scheduleProject(f);
    const s = await schedules.created(minimal(DEST, cron('0 0 * * *')));
    expect((await schedules.pause(s.id)).status).toBe(200);
    const startsAt = daysAhead(1);
    const timing = interval(900, startsAt);
    const patched = await schedules.patch(s.id, { timing });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ status: 'paused', next_run_at: null, timing: echoed(timing) });
    const resumed = await schedules.resume(s.id);
    expect(resumed.status).toBe(200);
    expect(resumed.body.data.status).toBe('active');
    expect(at(resumed.body.data.next_run_at)).toBe(Date.parse(startsAt));
  });

  it('delete answers 204 with no body; the schedule is then 404 everywhere and gone from the list', async () => {
    const { schedules } = await scheduleProject(f);
    const keep = await schedules.created(minimal(`${DEST}/keep`));
    const s = await schedules.created(minimal(DEST));
    const res = await schedules.remove(s.id);
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expectError(await schedules.get(s.id), 404, 'NOT_FOUND');
    expectError(await schedules.patch(s.id, { name: 'x' }), 404, 'NOT_FOUND');
    expectError(await schedules.pause(s.id), 404, 'NOT_FOUND');
    expectError(await schedules.resume(s.id), 404, 'NOT_FOUND');
    expectError(await schedules.remove(s.id), 404, 'NOT_FOUND');
    expect(await schedules.ids()).toEqual([keep.id]);
  });

  it('refuses a schedule over the allowance with 429 storing nothing; a replayed key still answers; a delete frees a place', async () => {
    const { schedules } = await scheduleProject(f, { scheduleAllowance: 2 });
    const a = await schedules.created(minimal(`${DEST}/a`));
    const keyB = newKey();
    const b = await schedules.create(minimal(`${DEST}/b`), keyB);
    expect(b.status).toBe(201);
    expectError(await schedules.create(minimal(`${DEST}/c`)), 429, 'SCHEDULE_ALLOWANCE_EXCEEDED');
    expect(await schedules.ids()).toEqual([b.body.data.id, a.id]);
    const replay = await schedules.create(minimal(`${DEST}/b`), keyB);
    expect(replay.status).toBe(201);
    expect(replay.body.data.id).toBe(b.body.data.id);

    expect((await schedules.remove(a.id)).status).toBe(204);
    const c = await schedules.created(minimal(`${DEST}/c`));
    expect(await schedules.ids()).toEqual([c.id, b.body.data.id]);
    expectError(await schedules.create(minimal(`${DEST}/d`)), 429, 'SCHEDULE_ALLOWANCE_EXCEEDED');
  });

  it('another project\'s key gets 404 on every call and an empty list, and the schedule is left unchanged', async () => {
    const owner = await scheduleProject(f);
    const s = await owner.schedules.created(minimal(DEST));
    const before = await owner.schedules.detail(s.id);
    const other = await scheduleProject(f);
    expectError(await other.schedules.get(s.id), 404, 'NOT_FOUND');
    expectError(await other.schedules.patch(s.id, { name: 'stolen' }), 404, 'NOT_FOUND');
    expectError(await other.schedules.pause(s.id), 404, 'NOT_FOUND');
    expectError(await other.schedules.resume(s.id), 404, 'NOT_FOUND');
    expectError(await other.schedules.remove(s.id), 404, 'NOT_FOUND');
    expect(await other.schedules.ids()).toEqual([]);
    expect(await owner.schedules.detail(s.id)).toEqual(before);
  });

  it('answers unknown and malformed schedule IDs with 404 NOT_FOUND on every route', async () => {
    const { schedules } = await scheduleProject(f);
    for (const id of ['sch_doesnotexist0000000000', 'nope', 'req_0000000000000000', `sch_${'x'.repeat(300)}`, 'sch_!!']) {
      expectError(await schedules.get(id), 404, 'NOT_FOUND');
      expectError(await schedules.patch(id, { name: 'x' }), 404, 'NOT_FOUND');
      expectError(await schedules.pause(id), 404, 'NOT_FOUND');
      expectError(await schedules.resume(id), 404, 'NOT_FOUND');
      expectError(await schedules.remove(id), 404, 'NOT_FOUND');
    }
  });
});
