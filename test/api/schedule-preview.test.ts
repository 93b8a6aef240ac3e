import { beforeAll, describe, expect, it } from 'vitest';
import { DEST, useFerry } from '../support/fixture.js';
import { at, cron, expectError, interval, iso, minimal, scheduleProject, UTC_TIMESTAMP, type Schedules } from '../support/schedule-client.js';

const MINUTE = 60_000;
const instants = (timestamps: string[]) => timestamps.map((t) => Date.parse(t));

describe('POST /schedules/preview', () => {
  const f = useFerry();
  let schedules: Schedules;
  beforeAll(async () => {
    schedules = (await scheduleProject(f)).schedules;
  });

  it('previews cron runs strictly after `after`, in UTC, following daylight saving time in the zone', async () => {
    const res = await schedules.preview({ timing: cron('0 9 * * 1', 'America/New_York'), after: '2026-03-02T00:00:00Z', count: 3 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, error: null, meta: null });
    expect(Object.keys(res.body.data)).toEqual(['run_times', 'runs']);
    for (const t of res.body.data.run_times) expect(t).toMatch(UTC_TIMESTAMP);
    // New York leaves EST (UTC-5) for EDT (UTC-4) on Sunday 8 March 2026.
    expect(res.body.data.run_times.map(at)).toEqual(instants(['2026-03-02T14:00:00Z', '2026-03-09T13:00:00Z', '2026-03-16T13:00:00Z']));

    const midnight = await schedules.runTimes(cron('0 0 * * *'), '2026-01-01T00:00:00Z', 2);
    expect(midnight).toEqual(instants(['2026-01-02T00:00:00Z', '2026-01-03T00:00:00Z']));
  });

  it('defaults to the next ten runs after now', async () => {
    const before = Date.now();
    const runs = await schedules.runTimes(cron('* * * * *'));
    const after = Date.now();
    expect(runs).toHaveLength(10);
    expect(runs[0]! % MINUTE).toBe(0);
    expect(runs[0]!).toBeGreaterThan(before - 1000);
    expect(runs[0]!).toBeLessThanOrEqual(after + MINUTE);
    runs.forEach((t, i) => expect(t).toBe(runs[0]! + i * MINUTE));
  });

  it('previews intervals from starts_at even when it is past, or as if created at `after`', async () => {
    const hourly = interval(3600, '2026-01-01T00:00:00.000Z');
    expect(await schedules.runTimes(hourly, '2026-01-01T05:30:00Z', 3)).toEqual(instants(['2026-01-01T06:00:00Z', '2026-01-01T07:00:00Z', '2026-01-01T08:00:00Z']));
    expect(await schedules.runTimes(hourly, '2026-01-01T06:00:00Z', 1)).toEqual(instants(['2026-01-01T07:00:00Z']));
    expect(await schedules.runTimes(hourly, '2025-12-31T12:00:00Z', 2)).toEqual(instants(['2026-01-01T00:00:00Z', '2026-01-01T01:00:00Z']));

    expect(await schedules.runTimes(interval(86_400), '2026-05-05T10:00:00Z', 2)).toEqual(instants(['2026-05-06T10:00:00Z', '2026-05-07T10:00:00Z']));
    const now = Date.now();
    const fromNow = await schedules.runTimes(interval(600), iso(now), 2);
    expect(fromNow).toEqual([now + 10 * MINUTE, now + 20 * MINUTE]);
  });

  it('previews up to 100 runs and stores nothing', async () => {
    const runs = await schedules.runTimes(interval(60), '2026-01-01T00:00:00Z', 100);
    expect(runs).toHaveLength(100);
    expect(runs.at(-1)).toBe(Date.parse('2026-01-01T00:00:00Z') + 100 * MINUTE);
    expect(await schedules.ids()).toEqual([]);
    expect((await schedules.api.call<{ items: unknown[] }>('GET', '/requests')).body.data.items).toEqual([]);
  });

  it('reads five-field cron with names, ranges, steps, lists and Sunday as 0 or 7; create accepts the same', async () => {
    const cases: Array<[string, string, string, string[]]> = [
      ['0 12 * * SUN', 'UTC', '2026-01-01T00:00:00Z', ['2026-01-04T12:00:00Z', '2026-01-11T12:00:00Z']],
      ['0 12 * * 0', 'UTC', '2026-01-01T00:00:00Z', ['2026-01-04T12:00:00Z', '2026-01-11T12:00:00Z']],
      ['0 12 * * 7', 'UTC', '2026-01-01T00:00:00Z', ['2026-01-04T12:00:00Z', '2026-01-11T12:00:00Z']],
      ['*/15 9-10 * * MON-FRI', 'UTC', '2026-01-02T10:40:00Z', ['2026-01-02T10:45:00Z', '2026-01-05T09:00:00Z', '2026-01-05T09:15:00Z']],
      ['0 0 1,15 JAN,JUL *', 'UTC', '2026-01-01T00:00:00Z', ['2026-01-15T00:00:00Z', '2026-07-01T00:00:00Z', '2026-07-15T00:00:00Z', '2027-01-01T00:00:00Z']],
      ['0 0 29 2 *', 'UTC', '2026-01-01T00:00:00Z', ['2028-02-29T00:00:00Z']],
      ['30 9 * * *', 'Asia/Kolkata', '2026-06-01T00:00:00Z', ['2026-06-01T04:00:00Z', '2026-06-02T04:00:00Z']],
    ];
    const { schedules: creator } = await scheduleProject(f);
    for (const [expression, zone, after, expected] of cases) {
      const timing = cron(expression, zone);
      expect(await schedules.runTimes(timing, after, expected.length), expression).toEqual(instants(expected));
      const created = await creator.create(minimal(DEST, timing));
      expect(created.status, `${expression}: ${JSON.stringify(created.body.error)}`).toBe(201);
      const [first] = await creator.runTimes(timing, created.body.data.created_at, 1);
      expect(at(created.body.data.next_run_at), expression).toBe(first);
    }
  });

  it('refuses a bad timing with the same 422 as create', async () => {
    const bad = [
      cron('@daily'),
      cron('0 0 L * *'),
      cron('0 0 30 2 *'),
      cron('0 3 * * *', 'Mars/Olympus_Mons'),
      interval(90),
      interval(59),
      { type: 'hourly' },
    ];
    const { schedules: creator } = await scheduleProject(f);
    for (const timing of bad) {
      const viaCreate = await creator.create(minimal(DEST, timing));
      const viaPreview = await schedules.preview({ timing, after: '2026-01-01T00:00:00Z' });
      expect(viaCreate.status, JSON.stringify(timing)).toBe(422);
      expect(viaCreate.body.error?.code).toBe('INVALID_TIMING');
      expect(viaPreview.status, JSON.stringify(timing)).toBe(422);
      expect(viaPreview.body.error).toEqual(viaCreate.body.error);
    }
    expect(await creator.ids()).toEqual([]);
  });

  it('refuses a count outside 1 to 100, a bad `after`, a missing timing and unknown fields with 422', async () => {
    const timing = cron('0 3 * * *');
    for (const count of [0, 101, -1, 2.5]) expect((await schedules.preview({ timing, count })).status, `count ${count}`).toBe(422);
    expect((await schedules.preview({ timing, after: 'yesterday' })).status).toBe(422);
    expectError(await schedules.preview({ after: '2026-01-01T00:00:00Z' }), 422, 'MISSING_FIELD', 'timing');
    expectError(await schedules.preview({ timing, colour: 'blue' }), 422, 'UNKNOWN_FIELD', 'colour');
    expect(await schedules.ids()).toEqual([]);
  });
});
