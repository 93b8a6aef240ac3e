import type { RequestStatus, StoredRequest } from '../../../domain/request.js';
import { WOKEN_FROM, woken } from '../../../domain/request-lifecycle/index.js';
import { shardOf } from '../../../domain/shards.js';
import { mapBounded } from '../shared/concurrency.js';
import type { OwnerChanges } from './claims.js';
import type { RequestRows } from './rows.js';
import { timerOf, type RequestTimer } from './timers.js';

/** Requests read together, in one read of that many partitions. */
const READ_TOGETHER = 16;
/** Groups read and changed at once: up to 64 changes under way, which the owner's writes share 16 to a batch. */
const GROUPS_AT_ONCE = 4;

const WAKEABLE: ReadonlySet<RequestStatus> = new Set(WOKEN_FROM);

/**
 * Whether `r`, as its owner reads it, is held back by a budget and still waiting: the requests `woken` applies to.
 * A request with a cancel asked reads `cancelled` to everyone else; the owner makes that final at its next claim
 * of it, as it would have without the wake, so it is left alone.
 */
export function isHeldBack(r: StoredRequest, now: number): boolean {
  return WAKEABLE.has(r.status) && r.waitingFor !== null && r.dueAt !== null && r.dueAt > now && r.cancelRequestedAt === null;
}

/**
 * Wakes requests a budget held back (`RequestStore.wakeHeld`): the owner's change `woken`, made without a claim but
 * through the same fenced write as every change of the owner (`RequestChanges.apply`). That write moves the
 * request's timer to now and puts the request in the working set, so the next claim takes it without a read. Only
 * requests of shards this process holds are woken, each read first (a few in one read), since the caller's
 * knowledge of them may be stale: claimed, ended or cancelled since.
 */
export class HeldWakes {
  constructor(
    private readonly rows: RequestRows,
    private readonly changes: Pick<OwnerChanges, 'basis' | 'apply'>,
    /** The timer stamp of deletions decided now (`TimerEngine.stamp`). */
    private readonly stamp: () => number,
    private readonly shardCount: number,
    /** Runs a change as a claim of the timer would run, or not at all (see `RequestClaims.asClaimOf`). */
    private readonly asClaimOf: <T>(timer: RequestTimer, work: () => Promise<T>) => Promise<T | null>,
  ) {}

  /** How many of `ids` it woke; the first failure once the groups under way are done. */
  async wake(ids: readonly string[], now: number): Promise<number> {
    const mine = [...new Set(ids)].filter((id) => this.basis(id) !== null);
    const groups: string[][] = [];
    for (let i = 0; i < mine.length; i += READ_TOGETHER) groups.push(mine.slice(i, i + READ_TOGETHER));
    const failures: unknown[] = [];
    const woke = await mapBounded(groups, GROUPS_AT_ONCE, async (group) => {
      if (failures.length > 0) return 0;
      try {
        return await this.wakeGroup(group, now);
      } catch (err) {
        failures.push(err);
        return 0;
      }
    });
    if (failures.length > 0) throw failures[0];
    return woke.reduce((a, b) => a + b, 0);
  }

  private async wakeGroup(ids: readonly string[], now: number): Promise<number> {
    const during = 'waking held requests';
    const asOf = this.stamp();
    // Taken before the read: a change is written only if the shard was held without a break since then.
    const bases = new Map(ids.map((id) => [id, this.basis(id)]));
    const read = await this.rows.requests(ids, during);
    const results = await Promise.allSettled(
      read.map(async (r) => {
        const basis = bases.get(r.id);
        if (basis === null || basis === undefined || !isHeldBack(r, now)) return false;
        const next = await this.asClaimOf(timerOf(this.shardCount, r)!, () => this.changes.apply(r, woken(now), asOf, basis, during));
        return next !== null;
      }),
    );
    const failed = results.find((res) => res.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    return results.filter((res) => res.status === 'fulfilled' && res.value).length;
  }

  private basis(id: string): number | null {
    return this.changes.basis(shardOf(id, this.shardCount));
  }
}
