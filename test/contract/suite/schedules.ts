import { describe, expect, it } from 'vitest';
import type { StoredSchedule } from '../../../src/domain/schedule/schedule.js';
import { allShards } from '../../../src/domain/shards.js';
import { VersionConflict } from '../../../src/ports/requests.js';
import {
  PROJECT_A,
  PROJECT_B,
  T0,
  aSchedule,
  awkwardBytes,
  countFulfilled,
  rejectionsOf,
  sameBytes,
  useBackend,
  type BackendFactory,
} from './harness.js';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
/** The shard count the sharded backend's contract run is configured with; other backends ignore scopes. */
const SHARD_COUNT = 8;

const ids = (schedules: readonly StoredSchedule[]) => schedules.map((s) => s.id);

/** Round trips, project scoping, listing and conditional writes of ScheduleStore. */
export function describeScheduleStoreContract(makeBackend: BackendFactory): void {
  describe('ScheduleStore: storage and conditional writes', () => {
    const backend = useBackend(makeBackend);
    const store = () => backend().schedules;

    it('returns every field exactly as stored, for cron and interval timing alike', async () => {
      const cron = aSchedule({
        name: 'Nightly  report ✓ ünïcödé',
        timing: { type: 'cron', expression: '*/5 9-17 * * MON-FRI', timezone: 'America/Argentina/Buenos_Aires', dst: { gap: 'skip', overlap: 'both' }, startsAt: T0 + MINUTE, endsAt: T0 + 9 * MINUTE },
        request: {
          url: 'https://Example.com/Path?q=A%20b&x=1',
          headers: [
            ['X-Trace', 'first'],
            ['x-trace', 'second'],
            ['Authorization', 'Bearer  spaced value '],
            ['content-type', 'text/plain; charset=utf-8'],
          ],
          body: awkwardBytes(),
          retry: 19,
          flowKeys: [],
          callbacks: { onSuccess: 'https://example.com/ok', onFailure: null },
          queue: 'default',
          timeoutSeconds: 50,
          metadata: {},
        },
        nextRunAt: T0 + 5 * MINUTE,
        lastRunAt: T0 - 5 * MINUTE,
        lastRunOutcome: 'skipped_usage_limit',
        createdAt: T0 - 60 * MINUTE,
        updatedAt: T0 - 4 * MINUTE,
      });
      const interval = aSchedule({
        timing: { type: 'interval', everySeconds: 30 * 24 * 3600, startsAt: T0 + 7 * MINUTE, firstRunAt: T0 + 7 * MINUTE, endsAt: T0 + 60 * MINUTE },
        status: 'paused',
        request: { url: 'https://example.com/hook', headers: [], body: null, retry: 0, flowKeys: [], callbacks: null, queue: 'default', timeoutSeconds: 50, metadata: {} },
        nextRunAt: null,
        lastRunAt: T0 - MINUTE,
        lastRunOutcome: 'enqueued',
      });
      const fresh = aSchedule();
      for (const s of [cron, interval, fresh]) await store().insert(s);

      for (const s of [cron, interval, fresh]) expect(await store().get(PROJECT_A, s.id)).toStrictEqual(s);
      expect((await store().get(PROJECT_A, cron.id))?.request.body).toBeInstanceOf(Uint8Array);
      expect(await store().list({ projectId: PROJECT_A, limit: 10 })).toStrictEqual([fresh, interval, cron]);
    });

    it('keeps a null body, an empty body and a body viewing part of a larger buffer apart and exact', async () => {
      const backing = awkwardBytes();
      const view = backing.subarray(10, 50);
      const nulls = aSchedule();
      const empty = aSchedule({ request: { ...nulls.request, body: new Uint8Array(0) } });
      const viewed = aSchedule({ request: { ...nulls.request, body: view } });
      for (const s of [nulls, empty, viewed]) await store().insert(s);

      expect((await store().get(PROJECT_A, nulls.id))?.request.body).toBeNull();
      const emptyBody = (await store().get(PROJECT_A, empty.id))?.request.body;
      expect(emptyBody).toBeInstanceOf(Uint8Array);
      expect(emptyBody?.byteLength).toBe(0);
      const viewedBody = (await store().get(PROJECT_A, viewed.id))?.request.body;
      expect(viewedBody?.byteLength).toBe(40);
      expect(sameBytes(viewedBody, view)).toBe(true);

      const updated = await store().update(PROJECT_A, nulls.id, 1, { request: { ...nulls.request, body: backing.subarray(200) } });
      expect(sameBytes(updated.request.body, backing.subarray(200))).toBe(true);
      expect(sameBytes((await store().get(PROJECT_A, nulls.id))?.request.body, backing.subarray(200))).toBe(true);
    });

    it('hides a schedule from every other project', async () => {
      const s = aSchedule();
      await store().insert(s);

      expect(await store().get(PROJECT_B, s.id)).toBeNull();
      expect(await store().list({ projectId: PROJECT_B, limit: 10 })).toEqual([]);
      await expect(store().update(PROJECT_B, s.id, 1, { name: 'taken over' })).rejects.toBeInstanceOf(VersionConflict);
      expect(await store().delete(PROJECT_B, s.id)).toBe(false);
      expect(await store().get(PROJECT_A, s.id)).toStrictEqual(s);
      expect(await store().get(PROJECT_A, 'sch_unknown')).toBeNull();
    });

    it("lists a project's schedules newest first, a page at a time, and no other project's", async () => {
      const a: StoredSchedule[] = [];
      for (let i = 0; i < 5; i++) {
        a.push(aSchedule({ createdAt: T0 + i * SECOND }));
        await store().insert(a[i]!);
        await store().insert(aSchedule({ projectId: PROJECT_B, createdAt: T0 + i * SECOND }));
      }
      const [a1, a2, a3, a4, a5] = a.map((s) => s.id);

      expect(await store().list({ projectId: PROJECT_A, limit: 10 })).toStrictEqual([...a].reverse());
      expect(ids(await store().list({ projectId: PROJECT_A, limit: 2 }))).toEqual([a5, a4]);
      expect(ids(await store().list({ projectId: PROJECT_A, afterId: a4, limit: 2 }))).toEqual([a3, a2]);
      expect(ids(await store().list({ projectId: PROJECT_A, afterId: a2, limit: 2 }))).toEqual([a1]);
      expect(await store().list({ projectId: PROJECT_A, afterId: a1, limit: 2 })).toEqual([]);

      // A page may start after a schedule deleted since the previous page was read.
      await store().delete(PROJECT_A, a3!);
      expect(ids(await store().list({ projectId: PROJECT_A, afterId: a3, limit: 10 }))).toEqual([a2, a1]);
      expect(ids(await store().list({ projectId: PROJECT_B, limit: 10 }))).toHaveLength(5);
    });

    it('applies only the keys a patch gives, bumps the version and returns the schedule as stored', async () => {
      const s = aSchedule({ request: { url: 'https://example.com/a', headers: [['X-A', '1']], body: new Uint8Array([1, 2]), retry: 2, flowKeys: [], callbacks: null, queue: 'default', timeoutSeconds: 50, metadata: {} } });
      await store().insert(s);

      const renamed = await store().update(PROJECT_A, s.id, 1, { name: 'renamed', status: undefined, nextRunAt: undefined });
      expect(renamed).toStrictEqual({ ...s, name: 'renamed', version: 2 });
      expect(await store().get(PROJECT_A, s.id)).toStrictEqual(renamed);

      const request = { url: 'https://example.com/b', headers: [['x-b', 'two'], ['X-A', 'one']] as const, body: null, retry: 7, flowKeys: [], callbacks: { onSuccess: null, onFailure: 'https://example.com/failed' }, queue: 'q.2', timeoutSeconds: 120, metadata: { k: 'v' } };
      const timing = { type: 'cron', expression: '0 3 * * *', timezone: 'Europe/Berlin', dst: { gap: 'shift', overlap: 'second' }, startsAt: null, endsAt: null } as const;
      const ran = await store().update(PROJECT_A, s.id, 2, {
        request,
        timing,
        nextRunAt: T0 + 20 * MINUTE,
        lastRunAt: T0 + 10 * MINUTE,
        lastRunOutcome: 'enqueued',
        previousRunAt: T0 + 5 * MINUTE,
        previousRunOutcome: 'skipped_usage_limit',
        updatedAt: T0 + 10 * MINUTE + 3,
      });
      const expected: StoredSchedule = {
        ...renamed,
        request,
        timing,
        nextRunAt: T0 + 20 * MINUTE,
        lastRunAt: T0 + 10 * MINUTE,
        lastRunOutcome: 'enqueued',
        previousRunAt: T0 + 5 * MINUTE,
        previousRunOutcome: 'skipped_usage_limit',
        updatedAt: T0 + 10 * MINUTE + 3,
        version: 3,
      };
      expect(ran).toStrictEqual(expected);
      expect(await store().get(PROJECT_A, s.id)).toStrictEqual(expected);

      const paused = await store().update(PROJECT_A, s.id, 3, { status: 'paused', nextRunAt: null, previousRunAt: null, previousRunOutcome: null });
      expect(paused).toStrictEqual({ ...expected, status: 'paused', nextRunAt: null, previousRunAt: null, previousRunOutcome: null, version: 4 });
      expect(await store().get(PROJECT_A, s.id)).toStrictEqual(paused);
      expect((await store().update(PROJECT_A, s.id, 4, {})).version).toBe(5);
    });

    it('keeps the policy, the pause reason, the run state and the request\'s queue, timeout and metadata, on insert and on update', async () => {
      const runs = {
        counts: { enqueued: 7, skipped_usage_limit: 1, skipped_overlap: 2, missed: 0, triggered: 3, backfilled: 40 },
        recent: [
          { at: T0 + MINUTE, requestId: null, outcome: 'skipped_overlap' as const },
          { at: T0, requestId: 'req_x', outcome: 'enqueued' as const },
        ],
        buffered: T0 + 2 * MINUTE,
        upcoming: T0 + 3 * MINUTE,
        failureStreak: 2,
        watched: ['req_x'],
        backfilled: [[T0 - 60 * MINUTE, T0 - 30 * MINUTE] as const],
      };
      const s = aSchedule({
        status: 'paused',
        pauseReason: 'failures',
        nextRunAt: null,
        policy: { overlap: 'buffer_one', maxRuns: 12, jitterSeconds: 30, pauseAfterFailures: 3 },
        runs,
        request: { url: 'https://example.com/q', headers: [], body: null, retry: 1, flowKeys: [], callbacks: null, queue: 'billing.eu', timeoutSeconds: 300, metadata: { tenant: 'ä 7', 'a.b': '' } },
      });
      await store().insert(s);
      expect(await store().get(PROJECT_A, s.id)).toStrictEqual(s);

      const changed = await store().update(PROJECT_A, s.id, 1, {
        status: 'active',
        pauseReason: null,
        policy: { overlap: 'allow_all', maxRuns: null, jitterSeconds: 0, pauseAfterFailures: null },
        runs: { ...runs, buffered: null, upcoming: null, failureStreak: 0, watched: [] },
        nextRunAt: T0 + 5 * MINUTE,
      });
      expect(await store().get(PROJECT_A, s.id)).toStrictEqual(changed);
      expect(changed).toMatchObject({ status: 'active', pauseReason: null, policy: { overlap: 'allow_all', maxRuns: null }, runs: { buffered: null, failureStreak: 0 } });
      expect(changed.request).toStrictEqual(s.request);
    });

    it('refuses a stale version, a missing schedule or another project\'s with VersionConflict, changing nothing', async () => {
      const s = aSchedule();
      await store().insert(s);
      const moved = await store().update(PROJECT_A, s.id, 1, { nextRunAt: T0 + 2 * MINUTE });

      await expect(store().update(PROJECT_A, s.id, 1, { name: 'stale' })).rejects.toBeInstanceOf(VersionConflict);
      await expect(store().update(PROJECT_A, s.id, 3, { name: 'ahead' })).rejects.toBeInstanceOf(VersionConflict);
      await expect(store().update(PROJECT_B, s.id, 2, { name: 'elsewhere' })).rejects.toBeInstanceOf(VersionConflict);
      await expect(store().update(PROJECT_A, 'sch_unknown', 1, { name: 'missing' })).rejects.toBeInstanceOf(VersionConflict);
      expect(await store().get(PROJECT_A, s.id)).toStrictEqual(moved);
    });

    it('deletes a schedule once, and only in its own project', async () => {
      const gone = aSchedule();
      const kept = aSchedule();
      await store().insert(gone);
      await store().insert(kept);

      expect(await store().delete(PROJECT_B, gone.id)).toBe(false);
      expect(await store().delete(PROJECT_A, gone.id)).toBe(true);
      expect(await store().get(PROJECT_A, gone.id)).toBeNull();
      expect(await store().delete(PROJECT_A, gone.id)).toBe(false);
      expect(await store().delete(PROJECT_A, 'sch_unknown')).toBe(false);
      await expect(store().update(PROJECT_A, gone.id, 1, { name: 'back' })).rejects.toBeInstanceOf(VersionConflict);
      expect(await store().list({ projectId: PROJECT_A, limit: 10 })).toStrictEqual([kept]);
    });

    it('lets exactly one of many concurrent updates at the same version win', async () => {
      const s = aSchedule();
      await store().insert(s);
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) => store().update(PROJECT_A, s.id, 1, { name: `writer ${i}`, nextRunAt: T0 + (i + 2) * MINUTE })),
      );

      expect(countFulfilled(results)).toBe(1);
      for (const err of rejectionsOf(results)) expect(err).toBeInstanceOf(VersionConflict);
      const winner = results.find((r): r is PromiseFulfilledResult<StoredSchedule> => r.status === 'fulfilled')!.value;
      expect(await store().get(PROJECT_A, s.id)).toStrictEqual(winner);
      expect(winner.version).toBe(2);
      expect(await store().nextDueAt()).toBe(winner.nextRunAt);
    });
  });

  describe('ScheduleStore: timers', () => {
    const backend = useBackend(makeBackend);
    const store = () => backend().schedules;
    const now = T0 + 60 * SECOND;
    const insertAll = async (schedules: readonly StoredSchedule[]) => {
      for (const s of schedules) await store().insert(s);
    };

    it('answers active schedules of every project due by now, oldest first, up to the limit, claiming nothing', async () => {
      const due3 = aSchedule({ nextRunAt: now - 3 * SECOND });
      const due1 = aSchedule({ nextRunAt: now - SECOND, projectId: PROJECT_B });
      const dueNow = aSchedule({ nextRunAt: now });
      const due2 = aSchedule({ nextRunAt: now - 2 * SECOND, projectId: PROJECT_B });
      const later = aSchedule({ nextRunAt: now + 1 });
      const paused = aSchedule({ status: 'paused', nextRunAt: null });
      await insertAll([due3, due1, dueNow, due2, later, paused]);

      expect(await store().due(now, 10)).toStrictEqual([due3, due2, due1, dueNow]);
      expect(ids(await store().due(now, 2))).toEqual([due3.id, due2.id]);
      expect(await store().due(now, 0)).toEqual([]);
      expect(ids(await store().due(now - 3 * SECOND - 1, 10))).toEqual([]);
      // Nothing was claimed: asking again answers the same, every schedule still at its version.
      expect(ids(await store().due(now, 10))).toEqual([due3.id, due2.id, due1.id, dueNow.id]);
      expect(ids(await store().due(now + 1, 10))).toEqual([due3.id, due2.id, due1.id, dueNow.id, later.id]);
      expect(await store().get(PROJECT_A, paused.id)).toStrictEqual(paused);
    });

    it('fires a schedule at the time an update moved it to, and no longer at the old one', async () => {
      const pushed = aSchedule({ nextRunAt: now });
      const pulled = aSchedule({ nextRunAt: now + 10 * MINUTE });
      await insertAll([pushed, pulled]);

      // What the firing loop does after an occurrence: record it and move on to the next.
      const next = await store().update(PROJECT_A, pushed.id, 1, {
        nextRunAt: now + 5 * MINUTE,
        lastRunAt: now,
        lastRunOutcome: 'enqueued',
        updatedAt: now + 20,
      });
      expect(await store().due(now, 10)).toEqual([]);
      expect(await store().due(now + 5 * MINUTE - 1, 10)).toEqual([]);
      expect(await store().due(now + 5 * MINUTE, 10)).toStrictEqual([next]);

      const sooner = await store().update(PROJECT_A, pulled.id, 1, { nextRunAt: now - MINUTE });
      expect(await store().due(now, 10)).toStrictEqual([sooner]);
      expect(await store().due(now + 10 * MINUTE, 10)).toStrictEqual([sooner, next]);
    });

    it('never fires a paused schedule, and fires it again once resumed', async () => {
      const s = aSchedule({ nextRunAt: now });
      await store().insert(s);

      await store().update(PROJECT_A, s.id, 1, { status: 'paused', nextRunAt: null, updatedAt: now - 1 });
      expect(await store().due(now + 60 * MINUTE, 10)).toEqual([]);
      expect(await store().nextDueAt()).toBeNull();

      // Only active schedules fire, whatever time a paused one still carries.
      const other = aSchedule({ nextRunAt: now });
      await store().insert(other);
      await store().update(PROJECT_A, other.id, 1, { status: 'paused' });
      expect(await store().due(now + 60 * MINUTE, 10)).toEqual([]);

      const resumed = await store().update(PROJECT_A, s.id, 2, { status: 'active', nextRunAt: now + 2 * MINUTE, updatedAt: now });
      expect(await store().due(now + 2 * MINUTE - 1, 10)).toEqual([]);
      expect(await store().due(now + 2 * MINUTE, 10)).toStrictEqual([resumed]);
      expect(await store().nextDueAt()).toBe(now + 2 * MINUTE);
    });

    it('never fires a deleted schedule', async () => {
      const gone = aSchedule({ nextRunAt: now - MINUTE });
      const kept = aSchedule({ nextRunAt: now + MINUTE });
      await insertAll([gone, kept]);

      expect(await store().delete(PROJECT_A, gone.id)).toBe(true);
      expect(await store().due(now, 10)).toEqual([]);
      expect(await store().nextDueAt()).toBe(now + MINUTE);
      expect(await store().delete(PROJECT_A, kept.id)).toBe(true);
      expect(await store().due(now + 60 * MINUTE, 10)).toEqual([]);
      expect(await store().nextDueAt()).toBeNull();
    });

    it('reports the earliest next run of an active schedule, following every change', async () => {
      expect(await store().nextDueAt()).toBeNull();
      await store().insert(aSchedule({ status: 'paused', nextRunAt: null }));
      expect(await store().nextDueAt()).toBeNull();

      const later = aSchedule({ nextRunAt: now + 3 * MINUTE });
      await store().insert(later);
      expect(await store().nextDueAt()).toBe(now + 3 * MINUTE);

      const overdue = aSchedule({ projectId: PROJECT_B, nextRunAt: now - 2 * MINUTE });
      await store().insert(overdue);
      expect(await store().nextDueAt()).toBe(now - 2 * MINUTE);

      await store().update(PROJECT_B, overdue.id, 1, { nextRunAt: now + 4 * MINUTE });
      expect(await store().nextDueAt()).toBe(now + 3 * MINUTE);
      await store().update(PROJECT_A, later.id, 1, { nextRunAt: now + MINUTE });
      expect(await store().nextDueAt()).toBe(now + MINUTE);
      await store().update(PROJECT_A, later.id, 2, { status: 'paused', nextRunAt: null });
      expect(await store().nextDueAt()).toBe(now + 4 * MINUTE);
    });

    it('answers the same for a scope of every shard as for none, and single-shard scopes together cover it all', async () => {
      const schedules = Array.from({ length: 24 }, (_, i) =>
        aSchedule({ projectId: i % 2 === 0 ? PROJECT_A : PROJECT_B, nextRunAt: now + (i - 16) * SECOND }),
      );
      await insertAll(schedules);
      const dueIds = ids(schedules.slice(0, 17));

      const unscoped = await store().due(now, 100);
      expect(ids(unscoped)).toEqual(dueIds);
      expect(await store().due(now, 100, allShards(SHARD_COUNT))).toStrictEqual(unscoped);
      expect(await store().nextDueAt(allShards(SHARD_COUNT))).toBe(now - 16 * SECOND);
      expect(await store().nextDueAt()).toBe(now - 16 * SECOND);

      // A backend that keeps no shards answers every scope with all of its work; one that does, with the scope's.
      const perShard = await Promise.all(allShards(SHARD_COUNT).map((shard) => store().due(now, 100, [shard])));
      expect(new Set(perShard.flat().map((s) => s.id))).toEqual(new Set(dueIds));
      const nextPerShard = await Promise.all(allShards(SHARD_COUNT).map((shard) => store().nextDueAt([shard])));
      expect(Math.min(...nextPerShard.filter((t): t is number => t !== null))).toBe(now - 16 * SECOND);
    });
  });
}
