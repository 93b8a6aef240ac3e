import type { ShardScope } from '../../ports/requests.js';

/**
 * With `FERRY_PLACEMENT=local`, where a delivering process places the requests it accepts that name no flow key: on
 * the shards it owns, taken in turn, unless their queue has limits. Placed there, a request is delivered by the process that accepted it: no
 * notice travels to another owner through Kafka (with N processes and requests spread by their random IDs, N−1 of
 * every N requests did: produced, fetched and committed, and fetched alone at a few hundred a second), and the
 * process keeps it in its working set from the insert on. Behind a load balancer that spreads calls evenly, the
 * work ends up spread as evenly as the calls.
 *
 * A queue with a rate or concurrency limit keeps the spread: each process enforces a share of those limits in
 * proportion to the shards it owns (`budgetShare`), which is exact only for requests spread evenly over the shards.
 * A limit set on a queue later leaves the requests already placed where they are: the processes holding them
 * deliver them at their share until the backlog drains (below the limit, never above it). A process that owns no
 * shard (none yet, or API only) spreads every request.
 */
export function localShardChooser(
  owned: () => ShardScope,
  queueLimited: (projectId: string, queue: string) => boolean,
): (projectId: string, queue: string) => number | null {
  let turn = 0;
  return (projectId, queue) => {
    const shards = owned();
    if (shards.length === 0 || queueLimited(projectId, queue)) return null;
    turn = (turn + 1) % shards.length;
    return shards[turn]!;
  };
}
