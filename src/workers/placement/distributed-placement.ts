import type { Clock } from '../../domain/clock.js';
import { shardOf } from '../../domain/shards.js';
import type { RequestStore } from '../../ports/requests.js';
import type { OwnerWorkingSet, ShardOwnership, WorkNotifier } from '../../ports/work-shards.js';
import { DueWakeups, type Wakeable } from './due-wakeups.js';
import type { PlacementLog, WorkPlacement } from './work-placement.js';

export interface DistributedPlacementParts {
  readonly requests: RequestStore;
  readonly shardCount: number;
  /** Which shards this process owns; null in a process that takes no part in delivery. */
  readonly ownership: ShardOwnership | null;
  /** Tells other processes of work in their shards; null in a process that accepts no requests. */
  readonly notifier: WorkNotifier | null;
  readonly clock: Clock;
  /** The delivery engine looks at storage at least this often by itself. */
  readonly pollMs: number;
  readonly log: PlacementLog;
  /** Told what the notices of owned shards carry, when storage keeps their work in memory. */
  readonly workingSet?: OwnerWorkingSet;
}

/**
 * How far ahead of its due time a request accepted here is sent to the owner of its shard, with the request: the
 * owner keeps work due within about this long in memory and delivers it without reading it.
 */
const CARRY_AHEAD_MS = 60_000;

/** Many processes over shared storage: shard ownership decides which process does which shard's work. */
export function distributedPlacement(p: DistributedPlacementParts): WorkPlacement {
  const { requests, clock, notifier } = p;
  let ownership: ShardOwnership | null = null;
  let delivery: DueWakeups | null = null;
  const joined: DueWakeups[] = [];
  const join = (worker: Wakeable, pollMs: number): DueWakeups => {
    const wakeups = new DueWakeups(worker, clock, pollMs);
    joined.push(wakeups);
    return wakeups;
  };
  return {
    shards: () => ownership?.owned() ?? [],
    async startDelivery(engine) {
      if (p.ownership === null) throw new Error('This process takes no part in delivery: it was given no shard ownership.');
      ownership = p.ownership;
      const w = join(engine, p.pollMs);
      delivery = w;
      await ownership.start({
        onGained: async (shards) => {
          // The previous owner may have died holding leases: whatever it was delivering is due again now.
          if (shards.length === 0) return;
          const released = await requests.releaseLeases(clock.now(), shards);
          if (released > 0) p.log('info', 'leases of a previous owner released', { shards, requests: released });
        },
        onCancelsAsked: (ids) => p.workingSet?.cancelsAsked(ids),
        onWork: (notices) => {
          // No notices: claims may start in a new assignment, which is news for every worker over these shards.
          if (notices.length === 0) for (const j of joined) j.stored([]);
          else {
            const carried = notices.flatMap((n) => (n.request === undefined ? [] : [n.request]));
            if (carried.length > 0) p.workingSet?.acceptedElsewhere(carried);
            w.stored(notices.map((n) => n.dueAt));
          }
        },
      });
    },
    join,
    accepted(stored) {
      // Notices are hints: they wake the owner for work due before its next look at storage (see `DueWakeups`) and
      // carry the request for it to keep in memory; work due later than that is found by the owner's scans, and
      // work in a shard this process owns needs no round trip through the notifier. The timers hold it either way.
      const owned = new Set(ownership?.owned() ?? []);
      if (notifier !== null) {
        const noticeBy = clock.now() + Math.max(p.pollMs, CARRY_AHEAD_MS);
        const notices = stored.flatMap((r) => {
          const shard = shardOf(r.id, p.shardCount);
          return r.dueAt === null || r.dueAt > noticeBy || owned.has(shard) ? [] : [{ requestId: r.id, shard, dueAt: r.dueAt, request: r }];
        });
        if (notices.length > 0) notifier.notify(notices);
      }
      // The engine looks only at the shards this process owns: work stored in others is news for their owners, and
      // waking it for that would make it read its own shards' timers for nothing, once per process added.
      const mine = stored.filter((r) => owned.has(shardOf(r.id, p.shardCount)));
      if (mine.length > 0) delivery?.stored(mine.flatMap((r) => (r.dueAt === null ? [] : [r.dueAt])));
    },
    async stop() {
      for (const j of joined) j.stop();
      await ownership?.stop();
      await notifier?.close();
    },
  };
}
