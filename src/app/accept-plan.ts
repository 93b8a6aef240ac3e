import { newRequestId, newRequestIdOnShard } from '../domain/ids.js';
import { flowKeyShard } from '../domain/shards.js';

/** The identity a new request will have: its ID and its creation time. */
export interface PlannedRequest {
  readonly id: string;
  readonly at: number;
}

/**
 * The requests an accept call sets out to create, decided before its idempotency claims and recorded with them.
 * A call that takes over the claim of one that failed or died part way creates the same requests, so those the
 * first call stored are found instead of created twice.
 */
export function planRequests(count: number, now: number): PlannedRequest[] {
  return Array.from({ length: count }, () => ({ id: newRequestId(now), at: now }));
}

/** Where requests go when work is split into shards. */
export interface RequestPlacement {
  readonly shardCount: number;
  /**
   * A shard this process delivers, for a request of `queue` that names no flow key, or null when such a request is
   * better spread over every shard by its random ID (see `localShardChooser`). Absent: always spread.
   */
  readonly localShard?: (projectId: string, queue: string) => number | null;
}

/** What placement looks at in a request: its first flow key (null: none) and its queue. */
export interface PlacedItem {
  readonly firstKey: string | null;
  readonly queue: string;
}

/**
 * `planRequests` for requests of `projectId`, where work is split into shards: a request with a flow key gets an ID
 * on its first key's shard (`flowKeyShard`), so one process sees every request that names the key first and
 * enforces its budget in full; one without goes to the shard `localShard` names, if any, else wherever its random
 * ID falls.
 */
export function planPlacedRequests(projectId: string, items: readonly PlacedItem[], now: number, placement: RequestPlacement): PlannedRequest[] {
  const { shardCount, localShard } = placement;
  return items.map(({ firstKey, queue }) => {
    const shard = firstKey !== null ? flowKeyShard(projectId, firstKey, shardCount) : (localShard?.(projectId, queue) ?? null);
    return { id: shard === null ? newRequestId(now) : newRequestIdOnShard(now, shard, shardCount), at: now };
  });
}

export function encodePlan(planned: readonly PlannedRequest[]): string {
  return JSON.stringify({ at: planned[0]?.at ?? 0, ids: planned.map((p) => p.id) });
}

/** The plan recorded by an earlier holder, or null when it is missing, unreadable or not for `count` requests. */
export function decodePlan(recorded: string | null, count: number): PlannedRequest[] | null {
  if (recorded === null) return null;
  try {
    const plan = JSON.parse(recorded) as { at?: unknown; ids?: unknown };
    const { at, ids } = plan;
    if (typeof at !== 'number' || !Array.isArray(ids) || ids.length !== count) return null;
    if (!ids.every((id): id is string => typeof id === 'string')) return null;
    return ids.map((id) => ({ id, at }));
  } catch {
    return null;
  }
}
