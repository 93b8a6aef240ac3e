import { beforeAll, describe, expect, it } from 'vitest';
import { DEST, useFerry } from '../support/fixture.js';
import { at, cron, echoed, expectError, interval, iso, minimal, scheduleProject, secondsAhead, type Schedules } from '../support/schedule-client.js';

const HOUR = 3_600_000;
const NEW_YORK = 'America/New_York';

/** The runs of a successful preview as `instant at dst` triples, `at` and `instant` in ms. */
async function previewRuns(schedules: Schedules, json: Record<string, unknown>): Promise<Array<{ at: number; instant: number; dst: string }>> {
  const res = await schedules.preview(json);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const runs = res.body.data.runs.map((r) => ({ at: at(r.at), instant: at(r.instant), dst: r.dst }));
  // `run_times` is when each run fires.
  expect(res.body.data.run_times.map(at)).toEqual(runs.map((r) => r.at));
  return runs;
}

describe('daylight-saving policy, starts_at and ends_at through the API', () => {
  const f = useFerry();
  let schedules: Schedules;
  beforeAll(async () => {
    schedules = (await scheduleProject(f)).schedules;
  });

  it('previews each run with what DST did to it, under each policy', async () => {
    // New York 2027: 02:00 EST jumps to 03:00 EDT on 14 March; 02:00 EDT falls back to 01:00 EST on 7 November.
    const gap = (dst: Record<string, string>) => previewRuns(schedules, { timing: { ...cron('30 2 * * *', NEW_YORK), dst }, after: '2027-03-13T12:00:00Z', count: 2 });
    expect(await gap({ gap: 'shift' })).toEqual([
      { at: Date.parse('2027-03-14T07:00:00Z'), instant: Date.parse('2027-03-14T07:00:00Z'), dst: 'gap_shifted' },
      { at: Date.parse('2027-03-15T06:30:00Z'), instant: Date.parse('2027-03-15T06:30:00Z'), dst: 'none' },
    ]);
    expect((await gap({ gap: 'skip' })).map((r) => [iso(r.instant), r.dst])).toEqual([
      ['2027-03-15T06:30:00.000Z', 'none'],
      ['2027-03-16T06:30:00.000Z', 'none'],
    ]);
    const overlap = async (dst: Record<string, string>) =>
      (await previewRuns(schedules, { timing: { ...cron('30 1 * * *', NEW_YORK), dst }, after: '2027-11-06T12:00:00Z', count: 2 })).map((r) => [iso(r.instant), r.dst]);
    expect(await overlap({ overlap: 'first' })).toEqual([['2027-11-07T05:30:00.000Z', 'overlap_first'], ['2027-11-08T06:30:00.000Z', 'none']]);
    expect(await overlap({ overlap: 'second' })).toEqual([['2027-11-07T06:30:00.000Z', 'overlap_second'], ['2027-11-08T06:30:00.000Z', 'none']]);
    expect(await overlap({ overlap: 'both' })).toEqual([['2027-11-07T05:30:00.000Z', 'overlap_first'], ['2027-11-07T06:30:00.000Z', 'overlap_second']]);
    // A wildcard-hour job follows real time whatever the policy says.
    const wildcard = await previewRuns(schedules, { timing: { ...cron('0 * * * *', NEW_YORK), dst: { gap: 'skip', overlap: 'second' } }, after: '2027-11-07T04:30:00Z', count: 3 });
    expect(wildcard.map((r) => [iso(r.instant), r.dst])).toEqual([
      ['2027-11-07T05:00:00.000Z', 'overlap_first'],
      ['2027-11-07T06:00:00.000Z', 'overlap_second'],
      ['2027-11-07T07:00:00.000Z', 'none'],
    ]);
  });

  it('stores a cron timing with dst, starts_at and ends_at, echoes it, and previews the saved schedule by its ID', async () => {
    const timing = { ...cron('30 1 * * *', NEW_YORK), dst: { gap: 'skip', overlap: 'second' }, starts_at: '2027-11-06T00:00:00.000Z', ends_at: '2027-11-09T00:00:00.000Z' };
    const created = await schedules.created(minimal(DEST, timing));
    expect(created.timing).toEqual(echoed(timing));
    // No occurrence before starts_at: the first is the day it starts, not tomorrow.
    expect(at(created.next_run_at)).toBe(Date.parse('2027-11-06T05:30:00Z'));
    expect((await schedules.detail(created.id)).timing).toEqual(echoed(timing));

    // Saved: its own timing, second pass of the repeated hour, nothing at or after ends_at (count asks for more).
    const runs = await previewRuns(schedules, { schedule_id: created.id, after: '2027-11-06T12:00:00Z', count: 5 });
    expect(runs.map((r) => [iso(r.instant), r.dst])).toEqual([['2027-11-07T06:30:00.000Z', 'overlap_second'], ['2027-11-08T06:30:00.000Z', 'none']]);
    // Without jitter a run fires at its instant.
    for (const r of runs) expect(r.at).toBe(r.instant);

    // A change to the policy is echoed too.
    const changed = { ...timing, dst: { gap: 'shift', overlap: 'both' } };
    const patched = await schedules.patch(created.id, { timing: changed });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.data.timing).toEqual(echoed(changed));
    const both = await previewRuns(schedules, { schedule_id: created.id, after: '2027-11-06T12:00:00Z' });
    expect(both.map((r) => r.dst)).toEqual(['overlap_first', 'overlap_second', 'none']);
  });

  it('takes the default policy when none is given, and answers it', async () => {
    const created = await schedules.created(minimal(DEST, cron('0 3 * * *', 'Europe/Berlin')));
    expect(created.timing.dst).toEqual({ gap: 'shift', overlap: 'first' });
    expect(created.timing.ends_at).toBeNull();
    const read = await schedules.detail(created.id);
    const again = await schedules.patch(created.id, { timing: read.timing });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.data.timing).toEqual(read.timing);
  });

  it('bounds an interval by ends_at, exclusive', async () => {
    const startsAt = secondsAhead(HOUR);
    const endsAt = iso(Date.parse(startsAt) + 2 * HOUR);
    const timing = { ...interval(3600, startsAt), ends_at: endsAt };
    const created = await schedules.created(minimal(DEST, timing));
    expect(created.timing).toEqual(echoed(timing));
    const runs = await previewRuns(schedules, { schedule_id: created.id, count: 10 });
    expect(runs.map((r) => r.instant)).toEqual([Date.parse(startsAt), Date.parse(startsAt) + HOUR]);
    expect(runs.every((r) => r.dst === 'none')).toBe(true);
  });

  it('refuses bad dst values and bounds with 422 naming the field, storing nothing', async () => {
    const { schedules: fresh } = await scheduleProject(f);
    const soon = secondsAhead(HOUR);
    const later = secondsAhead(2 * HOUR);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...cron('0 3 * * *'), dst: { gap: 'jump' } }, 'timing.dst.gap'],
      [{ ...cron('0 3 * * *'), dst: { overlap: 'twice' } }, 'timing.dst.overlap'],
      [{ ...cron('0 3 * * *'), dst: { gap: 'skip', overlap: 'FIRST' } }, 'timing.dst.overlap'],
      [{ ...interval(3600), dst: { gap: 'skip' } }, 'timing.dst'],
      [{ ...cron('0 * * * *'), starts_at: later, ends_at: soon }, 'timing.ends_at'],
      [{ ...cron('0 * * * *'), starts_at: soon, ends_at: soon }, 'timing.ends_at'],
      [{ ...cron('0 * * * *'), ends_at: iso(Date.now() - HOUR) }, 'timing.ends_at'],
      [{ ...cron('0 3 * * *'), starts_at: iso(Date.now() - HOUR) }, 'timing.starts_at'],
      [{ ...cron('0 3 1 1 *'), ends_at: later }, 'timing.ends_at'],
      [{ ...interval(3600, later), ends_at: 'never' }, 'timing.ends_at'],
    ];
    for (const [timing, field] of cases) expectError(await fresh.create(minimal(DEST, timing)), 422, 'INVALID_TIMING', field);
    // The preview refuses the same values, bounds in the past apart.
    expectError(await fresh.preview({ timing: { ...cron('0 3 * * *'), dst: { gap: 'jump' } } }), 422, 'INVALID_TIMING', 'timing.dst.gap');
    expect((await fresh.preview({ timing: { ...cron('0 3 * * *'), starts_at: '2020-01-01T00:00:00Z', ends_at: '2020-02-01T00:00:00Z' } })).body.data.runs).toEqual([]);
    expect(await fresh.ids()).toEqual([]);
  });

  it('previews a saved schedule only in its own project, and not together with a timing', async () => {
    const mine = await schedules.created(minimal(DEST));
    const { schedules: other } = await scheduleProject(f);
    expectError(await other.preview({ schedule_id: mine.id }), 404, 'NOT_FOUND');
    expectError(await schedules.preview({ schedule_id: 'sch_nope' }), 404, 'NOT_FOUND');
    expectError(await schedules.preview({ schedule_id: mine.id, timing: cron('0 3 * * *') }), 422, 'INVALID_FIELD', 'schedule_id');
    expectError(await schedules.preview({}), 422, 'MISSING_FIELD', 'timing');
  });
});
