import { describe, expect, it } from 'vitest';
import type { StoredRequest } from '../../../src/domain/request.js';
import type { Claim, RequestListQuery, RequestStore } from '../../../src/ports/requests.js';
import { PROJECT_A, PROJECT_B, T0, aRequest, anAttempt, nextScheduleId, settled, useBackend, type BackendFactory } from './harness.js';

const MINUTE = 60_000;

/** Filters, order, keyset paging and the retention cutoff of RequestStore.list. */
export function describeRequestListContract(makeBackend: BackendFactory): void {
  describe('RequestStore: list', () => {
    const backend = useBackend(makeBackend);
    const store = () => backend().requests;

    const ids = async (query: Partial<RequestListQuery>) =>
      (await store().list({ projectId: PROJECT_A, terminalCutoff: 0, limit: 100, ...query })).map((r) => r.id);

    it('orders newest first with ties broken by descending ID, and pages without gaps or repeats', async () => {
      // Few distinct creation times, inserted out of order: ties decide most of the order.
      const requests = Array.from({ length: 31 }, (_, i) => aRequest({ createdAt: T0 + (i % 3) * MINUTE }));
      await store().insertMany([...requests].reverse().filter((_, i) => i % 2 === 0));
      await store().insertMany([...requests].reverse().filter((_, i) => i % 2 === 1));
      const expected = [...requests].sort(newestFirst).map((r) => r.id);

      expect(await ids({})).toEqual(expected);

      const paged: string[] = [];
      let after: StoredRequest | undefined;
      for (;;) {
        const page = await store().list({ projectId: PROJECT_A, terminalCutoff: 0, limit: 7, after });
        paged.push(...page.map((r) => r.id));
        if (page.length < 7) break;
        after = page[page.length - 1];
      }
      expect(paged).toEqual(expected);
    });

    it('filters by status, exact ID, method and source', async () => {
      const queued = aRequest({ status: 'queued', method: 'GET', source: 'api' });
      const failed = aRequest({ status: 'failed', method: 'POST', source: 'recurring', dueAt: null });
      const replay = aRequest({ status: 'succeeded', method: 'DELETE', source: 'replay', dueAt: null });
      await store().insertMany([queued, failed, replay, aRequest({ projectId: PROJECT_B, status: 'failed' })]);

      expect(await ids({ status: 'failed' })).toEqual([failed.id]);
      expect(await ids({ id: replay.id })).toEqual([replay.id]);
      expect(await ids({ id: 'req_absent' })).toEqual([]);
      expect(await ids({ method: 'GET' })).toEqual([queued.id]);
      expect(await ids({ source: 'replay' })).toEqual([replay.id]);
      expect(await ids({ source: 'recurring', status: 'failed', method: 'POST' })).toEqual([failed.id]);
      expect(await ids({ source: 'recurring', status: 'queued' })).toEqual([]);
    });

    it("lists only one schedule's requests, with other filters and paging, and none for an unknown schedule", async () => {
      const [mine, other] = [nextScheduleId(), nextScheduleId()];
      const occurrence = (scheduleId: string, m: number, status: 'queued' | 'failed') =>
        aRequest({ source: 'recurring', scheduleId, createdAt: T0 + m * MINUTE, status, dueAt: status === 'queued' ? T0 : null });
      const ours = Array.from({ length: 7 }, (_, m) => occurrence(mine, m % 3, m % 2 === 0 ? 'failed' : 'queued'));
      const theirs = Array.from({ length: 5 }, (_, m) => occurrence(other, m, 'failed'));
      const elsewhere = aRequest({ projectId: PROJECT_B, source: 'recurring', scheduleId: mine });
      await store().insertMany([...theirs, aRequest({ status: 'failed', dueAt: null }), ...ours, elsewhere]);

      const newest = [...ours].sort(newestFirst);
      expect(await ids({ scheduleId: mine })).toEqual(newest.map((r) => r.id));
      expect(await ids({ scheduleId: mine, status: 'failed' })).toEqual(newest.filter((r) => r.status === 'failed').map((r) => r.id));
      expect(await ids({ scheduleId: mine, source: 'api' })).toEqual([]);
      expect(await ids({ scheduleId: other, from: T0 + 3 * MINUTE })).toEqual([theirs[4]!.id, theirs[3]!.id]);
      expect(await ids({ scheduleId: nextScheduleId() })).toEqual([]);

      const paged: string[] = [];
      let after: StoredRequest | undefined;
      for (;;) {
        const page = await store().list({ projectId: PROJECT_A, scheduleId: mine, terminalCutoff: 0, limit: 3, after });
        paged.push(...page.map((r) => r.id));
        if (page.length < 3) break;
        after = page.at(-1);
      }
      expect(paged).toEqual(newest.map((r) => r.id));
    });

    it("lists one queue's or one flow key's requests, with other filters, the cutoff and paging", async () => {
      const at = (m: number, overrides: Partial<StoredRequest>) => aRequest({ createdAt: T0 + (m % 4) * MINUTE, ...overrides });
      const failedAt = (m: number, overrides: Partial<StoredRequest>) => at(m, { status: 'failed', dueAt: null, ...overrides });
      const billing = Array.from({ length: 9 }, (_, m) =>
        m % 3 === 0 ? failedAt(m, { queue: 'billing', flowKeys: ['vendor:acme'] }) : at(m, { queue: 'billing' }),
      );
      const acme = Array.from({ length: 8 }, (_, m) => at(m, { flowKeys: m % 2 === 0 ? ['vendor:acme', 'tenant:1'] : ['tenant:1', 'vendor:acme'] }));
      const noise = [at(1, { queue: 'billing-eu', flowKeys: ['vendor:acme-2'] }), at(2, { flowKeys: ['vendor:other'] }), at(3, {})];
      const elsewhere = aRequest({ projectId: PROJECT_B, queue: 'billing', flowKeys: ['vendor:acme'] });
      await store().insertMany([...noise, ...acme.slice(4), ...billing, elsewhere, ...acme.slice(0, 4)]);

      const inQueue = [...billing].sort(newestFirst);
      const withKey = [...acme, ...billing.filter((r) => r.flowKeys.length > 0)].sort(newestFirst);
      expect(await ids({ queue: 'billing' })).toEqual(idsOf(inQueue));
      expect(await ids({ flowKey: 'vendor:acme' })).toEqual(idsOf(withKey));
      expect(await ids({ flowKey: 'tenant:1' })).toEqual(idsOf([...acme].sort(newestFirst)));
      expect(await ids({ queue: 'billing', status: 'failed' })).toEqual(idsOf(inQueue.filter((r) => r.status === 'failed')));
      expect(await ids({ queue: 'billing', flowKey: 'vendor:acme' })).toEqual(idsOf(inQueue.filter((r) => r.flowKeys.length > 0)));
      expect(await ids({ flowKey: 'vendor:acme', status: 'failed', method: 'POST', source: 'api' })).toEqual(idsOf(inQueue.filter((r) => r.status === 'failed')));
      expect(await ids({ flowKey: 'vendor:acme', from: T0 + 3 * MINUTE })).toEqual(idsOf(withKey.filter((r) => r.createdAt >= T0 + 3 * MINUTE)));
      expect(await ids({ flowKey: 'vendor:acme', to: T0 + MINUTE })).toEqual(idsOf(withKey.filter((r) => r.createdAt < T0 + MINUTE)));
      expect(await ids({ flowKey: 'vendor:acme', id: acme[2]!.id })).toEqual([acme[2]!.id]);
      expect(await ids({ flowKey: 'vendor:acme', id: noise[0]!.id })).toEqual([]);
      expect(await ids({ queue: 'billing', terminalCutoff: T0 + 4 * MINUTE })).toEqual(idsOf(inQueue.filter((r) => r.status !== 'failed')));
      expect(await ids({ flowKey: 'vendor:acme', terminalCutoff: T0 + 4 * MINUTE })).toEqual(idsOf(withKey.filter((r) => r.status !== 'failed')));
      expect(await ids({ queue: 'bill' })).toEqual([]);
      expect(await ids({ flowKey: 'vendor' })).toEqual([]);

      for (const [filter, expected] of [[{ queue: 'billing' }, inQueue], [{ flowKey: 'vendor:acme' }, withKey]] as const) {
        const paged: string[] = [];
        let after: StoredRequest | undefined;
        for (;;) {
          const page = await store().list({ projectId: PROJECT_A, ...filter, terminalCutoff: 0, limit: 2, after });
          paged.push(...page.map((r) => r.id));
          if (page.length < 2) break;
          after = page.at(-1);
        }
        expect(paged, JSON.stringify(filter)).toEqual(idsOf(expected));
      }
    });

    it("lists by the last attempt's status code as attempts change it, with other filters and paging", async () => {
      const project = { id: PROJECT_A, name: 'p', monthlyAllowance: 100, scheduleAllowance: 1, retentionDays: 30, captureResponseBodies: true, createdAt: T0 };
      // With the project known, a request that ends gets its time to live, and its list entry is written again.
      await backend().projects.createProject(project);
      const at = (m: number, overrides: Partial<StoredRequest> = {}) => aRequest({ createdAt: T0 + m * MINUTE, dueAt: T0 + m * MINUTE, ...overrides });
      const [a, b, c, d, e] = [at(0), at(1), at(2), at(3), at(4)];
      const never = at(5, { dueAt: T0 + 1_000 * MINUTE });
      const elsewhere = at(6, { projectId: PROJECT_B });
      await store().insertMany([a!, b!, c!, d!, e!, never, elsewhere]);

      // Each attempt's code, or null for none, and whether it ends the request; two rounds of claims.
      type Outcome = readonly [code: number | null, ends: boolean];
      const rounds: ReadonlyArray<ReadonlyMap<StoredRequest, Outcome>> = [
        new Map<StoredRequest, Outcome>([[a!, [500, false]], [b!, [200, true]], [c!, [500, false]], [d!, [500, false]], [e!, [503, true]], [elsewhere, [500, true]]]),
        new Map<StoredRequest, Outcome>([[a!, [500, true]], [c!, [200, true]], [d!, [null, false]]]),
      ];
      for (const [i, round] of rounds.entries()) {
        const now = T0 + (10 + i * 10) * MINUTE;
        const claims = await claimAll(store(), [...round.keys()].map((r) => r.id), now);
        for (const [r, [code, ends]] of round) {
          const attempt = anAttempt(r.id, i + 1, code === null ? { status: 'timed_out', responseStatusCode: null } : { status: code < 300 ? 'succeeded' : 'failed', responseStatusCode: code });
          const status = !ends ? 'queued' : code !== null && code < 300 ? 'succeeded' : 'failed';
          const patch = { status, attemptCount: i + 1, updatedAt: now, lastStatusCode: code, dueAt: ends ? null : now + 5 * MINUTE, ...(ends ? { completedAt: now } : {}) } as const;
          await store().recordAttempt(claims.get(r.id)!, settled(attempt, patch));
        }
      }

      expect((await store().get(PROJECT_A, d!.id))?.lastStatusCode).toBeNull();
      expect((await store().get(PROJECT_A, a!.id))?.lastStatusCode).toBe(500);
      expect((await store().get(PROJECT_A, never.id))?.lastStatusCode).toBeNull();
      expect(await ids({ responseStatusCode: 500 })).toEqual([a!.id]);
      expect(await ids({ responseStatusCode: 200 })).toEqual(idsOf([c!, b!]));
      expect(await ids({ responseStatusCode: 503 })).toEqual([e!.id]);
      expect(await ids({ responseStatusCode: 404 })).toEqual([]);
      expect(await ids({ responseStatusCode: 500, status: 'failed' })).toEqual([a!.id]);
      expect(await ids({ responseStatusCode: 500, status: 'queued' })).toEqual([]);
      expect(await ids({ responseStatusCode: 200, status: 'succeeded', method: 'POST', source: 'api', queue: 'default' })).toEqual(idsOf([c!, b!]));
      expect(await ids({ responseStatusCode: 200, from: T0 + 2 * MINUTE })).toEqual([c!.id]);
      expect(await ids({ responseStatusCode: 200, id: b!.id })).toEqual([b!.id]);
      expect(await ids({ responseStatusCode: 500, id: c!.id })).toEqual([]);
      expect(await ids({ responseStatusCode: 500, terminalCutoff: T0 + 100 * MINUTE })).toEqual([]);

      const paged: string[] = [];
      let after: StoredRequest | undefined;
      for (;;) {
        const page = await store().list({ projectId: PROJECT_A, responseStatusCode: 200, terminalCutoff: 0, limit: 1, after });
        paged.push(...page.map((r) => r.id));
        if (page.length < 1) break;
        after = page.at(-1);
      }
      expect(paged).toEqual(idsOf([c!, b!]));
    });

    it('finds a rare status code among many over several days, moves a code an attempt changes, and pages by cursor', async () => {
      const project = { id: PROJECT_A, name: 'p', monthlyAllowance: 100, scheduleAllowance: 1, retentionDays: 30, captureResponseBodies: true, createdAt: T0 };
      await backend().projects.createProject(project);
      const HOUR = 60 * MINUTE;
      // Sixty ended requests over five days, inserted with their codes as an import would: six of them 410.
      const history = Array.from({ length: 60 }, (_, i) => {
        const code = i % 10 === 3 ? 410 : i % 4 === 0 ? 500 : 200;
        return aRequest({ createdAt: T0 + i * 2 * HOUR, status: code === 200 ? 'succeeded' : 'failed', dueAt: null, attemptCount: 1, lastStatusCode: code, completedAt: T0 + i * 2 * HOUR });
      });
      const live = Array.from({ length: 3 }, (_, i) => aRequest({ createdAt: T0 + (130 + i) * HOUR, dueAt: T0 + (130 + i) * HOUR }));
      const [recovers, keepsFailing, goneAtOnce] = live as [StoredRequest, StoredRequest, StoredRequest];
      const elsewhere = aRequest({ projectId: PROJECT_B, createdAt: T0 + 131 * HOUR, status: 'failed', dueAt: null, attemptCount: 1, lastStatusCode: 410 });
      await store().insertMany([...history, elsewhere]);
      await store().insertMany(live);

      // Attempts: `recovers` gets 503 then 200; `keepsFailing` 503 twice; `goneAtOnce` 410 on its only attempt.
      const rounds: ReadonlyArray<ReadonlyArray<readonly [StoredRequest, number, boolean]>> = [
        [[recovers, 503, false], [keepsFailing, 503, false], [goneAtOnce, 410, true]],
        [[recovers, 200, true], [keepsFailing, 503, true]],
      ];
      for (const [i, round] of rounds.entries()) {
        const now = T0 + (200 + i * 10) * HOUR;
        const claims = await claimAll(store(), round.map(([r]) => r.id), now);
        for (const [r, code, ends] of round) {
          const attempt = anAttempt(r.id, i + 1, { status: code < 300 ? 'succeeded' : 'failed', responseStatusCode: code });
          const status = !ends ? 'queued' : code < 300 ? 'succeeded' : 'failed';
          const patch = { status, attemptCount: i + 1, updatedAt: now, lastStatusCode: code, dueAt: ends ? null : now + 5 * MINUTE, ...(ends ? { completedAt: now } : {}) } as const;
          await store().recordAttempt(claims.get(r.id)!, settled(attempt, patch));
        }
        // Both listed under 503 while they wait for their next attempt.
        if (i === 0) expect(await ids({ responseStatusCode: 503 })).toEqual(idsOf([keepsFailing, recovers].sort(newestFirst)));
      }

      const rare = [...history.filter((r) => r.lastStatusCode === 410), goneAtOnce].sort(newestFirst);
      expect(rare).toHaveLength(7);
      expect(await ids({ responseStatusCode: 410 })).toEqual(idsOf(rare));
      expect(await ids({ responseStatusCode: 503 })).toEqual([keepsFailing.id]);
      expect(await ids({ responseStatusCode: 200 })).toEqual(idsOf([recovers, ...history.filter((r) => r.lastStatusCode === 200)].sort(newestFirst)));
      expect(await ids({ responseStatusCode: 418 })).toEqual([]);
      expect(await ids({ responseStatusCode: 410, status: 'succeeded' })).toEqual([]);
      expect(await ids({ responseStatusCode: 410, from: T0 + 24 * HOUR, to: T0 + 96 * HOUR })).toEqual(
        idsOf(rare.filter((r) => r.createdAt >= T0 + 24 * HOUR && r.createdAt < T0 + 96 * HOUR)),
      );

      const paged: string[] = [];
      let after: StoredRequest | undefined;
      for (;;) {
        const page = await store().list({ projectId: PROJECT_A, responseStatusCode: 410, terminalCutoff: 0, limit: 2, after });
        paged.push(...page.map((r) => r.id));
        if (page.length < 2) break;
        after = page.at(-1);
      }
      expect(paged).toEqual(idsOf(rare));
    });

    it('finds URL fragments case-insensitively and takes %, _ and \\ literally', async () => {
      const mixed = aRequest({ url: 'https://Hooks.Example.COM/Orders/Paid' });
      const percent = aRequest({ url: 'https://example.com/sale?off=50%25&tag=100%' });
      const underscore = aRequest({ url: 'https://example.com/a_b' });
      const backslash = aRequest({ url: 'https://example.com/x\\y' });
      const plain = aRequest({ url: 'https://example.com/aXb' });
      await store().insertMany([mixed, percent, underscore, backslash, plain]);

      expect(await ids({ urlContains: 'example.com/orders/PAID' })).toEqual([mixed.id]);
      expect(await ids({ urlContains: '100%' })).toEqual([percent.id]);
      expect(await ids({ urlContains: '%' })).toEqual([percent.id]);
      expect(await ids({ urlContains: 'a_b' })).toEqual([underscore.id]);
      expect(await ids({ urlContains: '_' })).toEqual([underscore.id]);
      expect(await ids({ urlContains: 'x\\y' })).toEqual([backslash.id]);
      expect(await ids({ urlContains: 'a%b' })).toEqual([]);
      expect((await ids({ urlContains: 'EXAMPLE' })).sort()).toEqual([mixed, percent, underscore, backslash, plain].map((r) => r.id).sort());
    });

    it('bounds creation time with an inclusive from and an exclusive to', async () => {
      const at = (m: number) => aRequest({ createdAt: T0 + m * MINUTE });
      const [r0, r1, r2, r3] = [at(0), at(1), at(2), at(3)];
      await store().insertMany([r0!, r1!, r2!, r3!]);

      expect(await ids({ from: T0 + MINUTE, to: T0 + 3 * MINUTE })).toEqual([r2!.id, r1!.id]);
      expect(await ids({ from: T0 + 3 * MINUTE })).toEqual([r3!.id]);
      expect(await ids({ to: T0 + MINUTE })).toEqual([r0!.id]);
    });

    it('pages within filters', async () => {
      const matching = Array.from({ length: 9 }, (_, i) => aRequest({ createdAt: T0 + (i % 2) * MINUTE, method: 'PUT' }));
      await store().insertMany([...matching, ...Array.from({ length: 9 }, () => aRequest({ method: 'GET' }))]);
      const first = await store().list({ projectId: PROJECT_A, method: 'PUT', terminalCutoff: 0, limit: 5 });
      const second = await store().list({ projectId: PROJECT_A, method: 'PUT', terminalCutoff: 0, limit: 5, after: first[4] });
      expect([...first, ...second].map((r) => r.id)).toEqual([...matching].sort(newestFirst).map((r) => r.id));
    });

    it('leaves out terminal requests created before the cutoff, never active ones', async () => {
      const cutoff = T0 + 10 * MINUTE;
      const oldDone = (status: 'succeeded' | 'failed' | 'cancelled') => aRequest({ status, dueAt: null, createdAt: T0 });
      const hidden = [oldDone('succeeded'), oldDone('failed'), oldDone('cancelled')];
      const oldActive = (['scheduled', 'queued', 'delivering'] as const).map((status) => aRequest({ status, createdAt: T0 }));
      const doneAtCutoff = aRequest({ status: 'succeeded', dueAt: null, createdAt: cutoff });
      await store().insertMany([...hidden, ...oldActive, doneAtCutoff]);

      const visible = await ids({ terminalCutoff: cutoff });
      expect(visible.sort()).toEqual([...oldActive, doneAtCutoff].map((r) => r.id).sort());
      expect(await ids({ terminalCutoff: cutoff, status: 'failed' })).toEqual([]);
      expect(await ids({ terminalCutoff: cutoff, id: hidden[0]!.id })).toEqual([]);
    });

    it('tells whether a project has terminal history before a cutoff', async () => {
      const cutoff = T0 + 10 * MINUTE;
      await store().insertMany([
        aRequest({ status: 'queued', createdAt: T0 }),
        aRequest({ status: 'succeeded', dueAt: null, createdAt: cutoff }),
        aRequest({ projectId: PROJECT_B, status: 'cancelled', dueAt: null, createdAt: T0 }),
      ]);
      expect(await store().hasTerminalBefore(PROJECT_A, cutoff)).toBe(false);
      expect(await store().hasTerminalBefore(PROJECT_B, cutoff)).toBe(true);

      await store().insertMany([aRequest({ status: 'failed', dueAt: null, createdAt: cutoff - 1 })]);
      expect(await store().hasTerminalBefore(PROJECT_A, cutoff)).toBe(true);
      expect(await store().hasTerminalBefore(PROJECT_A, cutoff - 1)).toBe(false);
    });
  });
}

function idsOf(rs: readonly StoredRequest[]): string[] {
  return rs.map((r) => r.id);
}

function newestFirst(a: StoredRequest, b: StoredRequest): number {
  return b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/** Claims of exactly these requests, due at `now`: a backend may hand its due requests out over several calls. */
async function claimAll(store: RequestStore, ids: readonly string[], now: number): Promise<Map<string, Claim>> {
  const claims = new Map<string, Claim>();
  await expect
    .poll(async () => {
      for (const c of await store.claimDue(now, 100, now + 60_000)) claims.set(c.request.id, c);
      return [...claims.keys()].sort();
    }, { timeout: 15_000 })
    .toEqual([...ids].sort());
  return claims;
}
