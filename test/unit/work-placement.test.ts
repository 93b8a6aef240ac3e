import { describe, expect, it } from 'vitest';
import { shardOf } from '../../src/domain/shards.js';
import type { RequestStore, ShardScope } from '../../src/ports/requests.js';
import type { ShardListener, ShardOwnership, WorkNotice } from '../../src/ports/work-shards.js';
import { distributedPlacement } from '../../src/workers/placement/distributed-placement.js';
import { DueWakeups } from '../../src/workers/placement/due-wakeups.js';
import { embeddedPlacement } from '../../src/workers/placement/embedded-placement.js';
import { aRequest, T0 } from '../contract/suite/harness.js';
import { FakeClock } from '../support/fake-clock.js';

const POLL_MS = 1_000;
const SHARDS = 8;

function worker() {
  const w = { wakes: 0, wake: () => void (w.wakes += 1) };
  return w;
}

function leases() {
  const released: Array<ShardScope | undefined> = [];
  const store = {
    releaseLeases: async (_now: number, shards?: ShardScope) => {
      released.push(shards);
      return 1;
    },
  } as unknown as RequestStore;
  return { store, released };
}

/** Ownership the test hands shards to, as a group rebalance would. */
function ownership() {
  const o = {
    owned: [] as number[],
    listener: null as ShardListener | null,
    stopped: false,
    async gain(shards: number[]) {
      await o.listener!.onGained(shards);
      o.owned = [...o.owned, ...shards];
      o.listener!.onWork([]);
    },
  };
  const port: ShardOwnership = {
    start: async (listener) => {
      o.listener = listener;
    },
    owned: () => o.owned,
    stop: async () => {
      o.stopped = true;
    },
  };
  return { o, port };
}

describe('DueWakeups', () => {
  it('wakes at once for work due now, arms one timer for the soonest before the next poll, and leaves later work alone', () => {
    const clock = new FakeClock(T0);
    const w = worker();
    const wakeups = new DueWakeups(w, clock, POLL_MS);
    wakeups.stored([T0 - 5]);
    expect(w.wakes).toBe(1);
    wakeups.stored([T0 + POLL_MS + 1]);
    expect(clock.timers).toBe(0);
    wakeups.stored([T0 + 600, T0 + 300]);
    wakeups.stored([T0 + 500]);
    expect(clock.timers).toBe(1);
    clock.advance(299);
    expect(w.wakes).toBe(1);
    clock.advance(1);
    expect(w.wakes).toBe(2);
    wakeups.stored([T0 + 900]);
    wakeups.stop();
    clock.advance(POLL_MS);
    expect(w.wakes).toBe(2);
  });
});

describe('embedded placement', () => {
  it('releases every lease when delivery starts, wakes the engine for every accepted request, and stops joined wake-ups', async () => {
    const clock = new FakeClock(T0);
    const { store, released } = leases();
    const placement = embeddedPlacement(store, clock);
    expect(placement.shards).toBeUndefined();
    const engine = worker();
    await placement.startDelivery(engine);
    expect(released).toEqual([undefined]);
    placement.accepted([aRequest({ createdAt: T0, dueAt: T0 + 60_000 })]);
    expect(engine.wakes).toBe(1);

    const firer = worker();
    placement.join(firer, POLL_MS).stored([T0 + 100]);
    await placement.stop();
    clock.advance(POLL_MS);
    expect(firer.wakes).toBe(0);
  });
});

describe('distributed placement', () => {
  function open(withNotifier = true) {
    const clock = new FakeClock(T0);
    const { store, released } = leases();
    const { o, port } = ownership();
    const notices: WorkNotice[] = [];
    const notifier = {
      notify: (n: readonly WorkNotice[]) => void notices.push(...n),
      announceCancel: async () => undefined,
      closed: false,
      close: async () => void (notifier.closed = true),
    };
    const lines: string[] = [];
    const placement = distributedPlacement({
      requests: store,
      shardCount: SHARDS,
      ownership: port,
      notifier: withNotifier ? notifier : null,
      clock,
      pollMs: POLL_MS,
      log: (_level, msg) => void lines.push(msg),
    });
    return { clock, placement, released, o, notices, notifier, lines };
  }

  it('claims in owned shards only, releases leases of shards gained, and wakes every joined worker on a new assignment', async () => {
    const { placement, released, o, lines } = open();
    const engine = worker();
    const firer = worker();
    placement.join(firer, POLL_MS);
    await placement.startDelivery(engine);
    expect(placement.shards?.()).toEqual([]);

    await o.gain([1, 5]);
    expect(released).toEqual([[1, 5]]);
    expect(lines).toEqual(['leases of a previous owner released']);
    expect(placement.shards?.()).toEqual([1, 5]);
    expect([engine.wakes, firer.wakes]).toEqual([1, 1]);

    // Work notices are the engine's alone.
    o.listener!.onWork([{ requestId: 'req_1', shard: 1, dueAt: T0 }]);
    expect([engine.wakes, firer.wakes]).toEqual([2, 1]);
  });

  it('notices work due within a minute in shards it does not own, carrying the request, and wakes its own engine for the rest', async () => {
    const { clock, placement, o, notices } = open();
    const engine = worker();
    await placement.startDelivery(engine);
    const owned = aRequest({ createdAt: T0 });
    await o.gain([shardOf(owned.id, SHARDS)]);
    const notOwned = (dueAt: number | null) => {
      let r = aRequest({ createdAt: T0, dueAt });
      while (shardOf(r.id, SHARDS) === shardOf(owned.id, SHARDS)) r = aRequest({ createdAt: T0, dueAt });
      return r;
    };
    const dueNow = notOwned(T0);
    const dueSoon = notOwned(T0 + 60_000);
    const dueLater = notOwned(T0 + 60_001);
    const wakesBefore = engine.wakes;

    placement.accepted([dueNow, dueSoon, dueLater, owned]);
    expect(notices.map((n) => [n.requestId, n.request])).toEqual([
      [dueNow.id, dueNow],
      [dueSoon.id, dueSoon],
    ]);
    expect(engine.wakes).toBe(wakesBefore + 1);
    expect(clock.timers).toBe(0);

    // Work in shards owned elsewhere is their owners' news: this engine is neither woken nor armed for it.
    placement.accepted([notOwned(T0), notOwned(T0 + 500)]);
    expect(engine.wakes).toBe(wakesBefore + 1);
    expect(clock.timers).toBe(0);
    placement.accepted([notOwned(T0), owned]);
    expect(engine.wakes).toBe(wakesBefore + 2);
  });

  it('stops ownership, the notifier and every wake-up timer', async () => {
    const { clock, placement, o, notifier } = open();
    await placement.startDelivery(worker());
    placement.join(worker(), POLL_MS).stored([T0 + 10]);
    const r = aRequest({ createdAt: T0, dueAt: T0 + 20 });
    await o.gain([shardOf(r.id, SHARDS)]);
    placement.accepted([r]);
    expect(clock.timers).toBe(2);
    await placement.stop();
    expect(clock.timers).toBe(0);
    expect(o.stopped).toBe(true);
    expect(notifier.closed).toBe(true);
  });

  it('refuses to deliver without shard ownership', async () => {
    const clock = new FakeClock(T0);
    const placement = distributedPlacement({
      requests: leases().store,
      shardCount: SHARDS,
      ownership: null,
      notifier: null,
      clock,
      pollMs: POLL_MS,
      log: () => undefined,
    });
    await expect(placement.startDelivery(worker())).rejects.toThrow(/no part in delivery/);
    expect(placement.shards?.()).toEqual([]);
  });
});
