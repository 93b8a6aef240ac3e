import { setTimeout as sleep } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AttemptRecord, StoredRequest } from '../../src/domain/request.js';
import { eventually } from '../support/api-client.js';
import { TEST_BACKEND, TEST_SHARDS, openTestBackend } from '../support/deployment.js';
import { startDestination, type Destination } from '../support/destination.js';
import {
  acceptInShards,
  healthy,
  outcomesSettledBy,
  senderAwareRoute,
  startOwnerPair,
  type Arrival,
  type OwnerPair,
} from '../support/stale-owner-pair.js';

const SESSION_TIMEOUT_MS = 6_000;
/** Requests accepted in A's shards. */
const TARGETS = 30;
/** A's exchanges open at once with the destination in the second case: the rest of its claims wait for a slot. */
const A_PER_HOST = 10;
/** How long A is watched, once it has dealt with every attempt it sent, for anything it might still do. */
const AFTERMATH_MS = 3_000;

interface Detail {
  readonly status: string;
  readonly completed_at: string | null;
  readonly attempts: ReadonlyArray<{ readonly attempt_number: number; readonly status: string; readonly response_status_code: number | null }>;
}

/** What became of the targets, through the API and in storage (the version aside: it is how a design fences). */
interface Snapshot {
  readonly api: ReadonlyMap<string, Detail>;
  readonly stored: ReadonlyMap<string, { readonly request: Omit<StoredRequest, 'version'> | null; readonly attempts: AttemptRecord[] }>;
  /** Attempts that had reached the destination when it was taken. */
  readonly arrivals: number;
}

type Route = ReturnType<typeof senderAwareRoute>;

describe.skipIf(TEST_BACKEND !== 'cassandra')('a paused shard owner cannot record over the process that took its shards', () => {
  let dest: Destination;
  beforeAll(async () => {
    dest = await startDestination();
  });
  afterAll(async () => {
    await dest?.close();
  });

  const env = () => ({
    FERRY_ROLES: 'api,delivery',
    FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true',
    FERRY_DELIVERY_CA_FILE: dest.certFile,
    // A wrongly recorded retry comes back within the aftermath, where it shows as a third delivery.
    FERRY_RETRY_BASE_MS: '100',
    FERRY_RETRY_CAP_MS: '500',
    FERRY_DELIVERY_IDLE_POLL_MS: '200',
    FERRY_KAFKA_SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS),
  });

  async function details(pair: OwnerPair, ids: readonly string[]): Promise<Map<string, Detail>> {
    const out = new Map<string, Detail>();
    for (const id of ids) {
      const res = await pair.apiB.call<Detail>('GET', `/requests/${id}`);
      expect(res.status, `GET /requests/${id}`).toBe(200);
      out.set(id, res.body.data);
    }
    return out;
  }

  async function snapshot(pair: OwnerPair, ids: readonly string[], route: Route): Promise<Snapshot> {
    const arrivals = route.arrivals.length;
    const api = await details(pair, ids);
    const backend = await openTestBackend(pair.dataDir);
    try {
      const stored = new Map<string, { request: Omit<StoredRequest, 'version'> | null; attempts: AttemptRecord[] }>();
      for (const id of ids) {
        const r = await backend.requests.get(pair.projectId, id);
        const { version: _version, ...request } = r ?? { version: 0 };
        stored.set(id, { request: r === null ? null : (request as Omit<StoredRequest, 'version'>), attempts: await backend.requests.listAttempts(pair.projectId, id) });
      }
      return { api, stored, arrivals };
    } finally {
      await backend.close();
    }
  }

  async function statusesOf(pair: OwnerPair, ids: readonly string[]): Promise<string[]> {
    return [...(await details(pair, ids)).values()].map((d) => d.status);
  }

  /** SIGSTOPs A, first making sure it still owns what it owned at the start: the claims it holds are its own. */
  function pauseA(pair: OwnerPair): void {
    expect(pair.watchA.drops(), 'A gave shards up before it was paused').toBe(pair.aDropsAtStart);
    expect(pair.watchA.owned()).toEqual(pair.aShards);
    process.kill(pair.a.child.pid!, 'SIGSTOP');
  }

  /** Waits until B owns every shard and every target has succeeded; then what B recorded, with checks that it was B. */
  async function takeover(pair: OwnerPair, targets: readonly string[], route: Route): Promise<Snapshot> {
    await eventually(async () => (pair.watchB.owned().length === TEST_SHARDS ? true : undefined), 60_000);
    const done = new Set<string>();
    await eventually(async () => {
      for (const id of targets.filter((t) => !done.has(t))) {
        const res = await pair.apiB.call<Detail>('GET', `/requests/${id}`);
        if (res.body.data.status !== 'succeeded') return undefined;
        done.add(id);
      }
      return true;
    }, 90_000);
    const snap = await snapshot(pair, targets, route);
    for (const id of targets) {
      // A has had no answer yet, so the one attempt recorded, a 200, is B's.
      const attempts = snap.api.get(id)!.attempts.map((a) => [a.attempt_number, a.status, a.response_status_code]);
      expect(attempts, `attempts of ${id} once B delivered it`).toEqual([[1, 'succeeded', 200]]);
      expect(route.arrivals.some((a) => a.id === id && a.from === 'B'), `${id} reached the destination from B`).toBe(true);
    }
    return snap;
  }

  /**
   * Lets A run again, believing it owns its shards, and waits until it gave them up, answers again, has dealt with
   * every attempt it sent (recorded, or dropped as taken over), and then stays quiet for the aftermath.
   */
  async function resumeA(pair: OwnerPair, route: Route, release: () => void): Promise<number> {
    expect(pair.watchA.owned(), 'A resumes believing it owns its shards').toEqual(pair.aShards);
    const logFrom = pair.logA.length;
    release();
    process.kill(pair.a.child.pid!, 'SIGCONT');
    const settled = async () => {
      if (pair.watchA.drops() === pair.aDropsAtStart || !(await healthy(pair.a))) return undefined;
      const sentByA = route.arrivals.filter((a) => a.from === 'A').length;
      return (await outcomesSettledBy(pair.a)) >= sentByA ? true : undefined;
    };
    for (let round = 0; ; round++) {
      await eventually(settled, 60_000);
      const seen = route.arrivals.length;
      await sleep(AFTERMATH_MS);
      if (route.arrivals.length === seen) return logFrom;
      if (round === 10) throw new Error('A kept sending attempts after it had given its shards up');
    }
  }

  /** Every target as B left it, in the API and in storage; anything else is listed with what explains it. */
  async function expectAsBLeftThem(pair: OwnerPair, targets: readonly string[], before: Snapshot, route: Route, logFrom: number): Promise<void> {
    const after = await snapshot(pair, targets, route);
    const overwritten = targets.flatMap((id) => {
      const same = isDeepStrictEqual(after.api.get(id), before.api.get(id)) && isDeepStrictEqual(after.stored.get(id), before.stored.get(id));
      if (same) return [];
      return [
        {
          id,
          recordedByB: before.api.get(id),
          now: after.api.get(id),
          storedByB: before.stored.get(id),
          storedNow: after.stored.get(id),
          arrivals: route.arrivals.filter((a) => a.id === id),
          linesOfA: pair.logA.filter((l) => l.includes(id)),
        },
      ];
    });
    const logOfA = pair.logA.slice(logFrom).filter((l) => !l.includes('"kafkajs"')).slice(0, 40);
    const explained = `first of them: ${JSON.stringify(overwritten.slice(0, 2), null, 1)}\nA's log since it resumed:\n${logOfA.join('\n')}`;
    expect(overwritten.map((o) => o.id), `requests no longer as B left them; ${explained}`).toEqual([]);
  }

  function expectAllAttributed(pair: OwnerPair, route: Route): void {
    expect(pair.gate.unattributed, 'connections the gate could not attribute to A or B').toBe(0);
    expect(route.arrivals.filter((a) => a.from === 'unknown')).toEqual([]);
  }

  /**
   * B owned every shard while A was paused, so each shard A is handed back when it rejoins was someone else's in
   * between and may hold B's leases: A must treat it as gained (and release those leases), not as still its own.
   */
  async function expectRejoinedShardsGained(pair: OwnerPair, logFrom: number): Promise<void> {
    const assignment = await eventually(async () => {
      for (const line of pair.logA.slice(logFrom)) {
        if (!line.includes('"shards owned"')) continue;
        const owned = JSON.parse(line) as { owned: number[]; gained: number[] };
        if (owned.owned.length > 0) return owned;
      }
      return undefined;
    }, 60_000);
    expect(assignment.gained).toEqual(assignment.owned);
  }

  async function expectNothingLost(pair: OwnerPair, ids: readonly string[]): Promise<void> {
    const statuses = await statusesOf(pair, ids);
    expect(ids.filter((_, i) => statuses[i] !== 'succeeded')).toEqual([]);
  }

  it('A paused with attempts in flight: its failed attempt, answered after B succeeded, is not recorded', async () => {
    let holdA = true;
    const pair = await startOwnerPair(dest, env());
    try {
      const route = senderAwareRoute(dest, '/in-flight', pair, () => holdA);
      const { targets, others } = await acceptInShards(pair.apiA, `${pair.url}/in-flight`, pair.aShards, TARGETS);

      // Every target in flight from A, its claim stored (so with a lease B must take over).
      await eventually(async () => {
        const held = new Set(route.held.map((h) => h.id));
        return targets.every((id) => held.has(id)) ? true : undefined;
      }, 60_000);
      await eventually(async () => ((await statusesOf(pair, targets)).every((s) => s === 'delivering') ? true : undefined), 30_000);
      pauseA(pair);
      holdA = false;

      const recordedByB = await takeover(pair, targets, route);
      // A's answers come only now: 500, so A would record a failed attempt and a retry wait.
      const logFrom = await resumeA(pair, route, () => route.answerHeld(500));

      await expectAsBLeftThem(pair, targets, recordedByB, route, logFrom);
      // Nothing reached the destination after B's success: A's attempts had been sent before it.
      expect(route.arrivals.slice(recordedByB.arrivals)).toEqual([]);
      expectAllAttributed(pair, route);
      await expectNothingLost(pair, [...targets, ...others]);
      await expectRejoinedShardsGained(pair, logFrom);
    } finally {
      await pair.close();
    }
  }, 300_000);

  it('A paused between claiming and sending: its attempts may still reach the destination after B succeeded, their outcomes are not recorded', async () => {
    // Few exchanges at once from A: the rest of its claims wait for a slot when it is paused.
    const pair = await startOwnerPair(dest, env(), { FERRY_DELIVERY_MAX_PER_HOST: String(A_PER_HOST) });
    try {
      const route = senderAwareRoute(dest, '/claimed', pair, () => false);
      // A's connections complete their handshake, but the destination reads nothing from them until let through.
      pair.gate.holdFrom(pair.a.child.pid!);
      const { targets, others } = await acceptInShards(pair.apiA, `${pair.url}/claimed`, pair.aShards, TARGETS);

      await eventually(async () => (pair.gate.held >= A_PER_HOST ? true : undefined), 60_000);
      pauseA(pair);
      expect(route.arrivals.filter((a) => a.from === 'A'), 'A reached the destination before it was paused').toEqual([]);

      const recordedByB = await takeover(pair, targets, route);
      // A's requests are read only now; the destination answers them 200, so A would record a success of its own.
      const logFrom = await resumeA(pair, route, () => pair.gate.letThrough());

      await expectAsBLeftThem(pair, targets, recordedByB, route, logFrom);
      const late: Arrival[] = route.arrivals.slice(recordedByB.arrivals);
      // B never delivered again; A's late sends are at most one per request, each one of the targets A had claimed.
      expect(late.filter((a) => a.from !== 'A')).toEqual([]);
      const lateIds = late.map((a) => a.id);
      expect(lateIds.filter((id, i) => lateIds.indexOf(id) !== i || !targets.includes(id))).toEqual([]);
      expectAllAttributed(pair, route);
      await expectNothingLost(pair, [...targets, ...others]);
    } finally {
      await pair.close();
    }
  }, 300_000);
});
