import { flowKeyShard } from '../shards.js';
import type { BudgetKind } from './budgets.js';

/**
 * The part of a budget's limits a delivering process enforces when several deliver from the same storage, each
 * owning some of the shards. Requests are placed on the shard of their first flow key, so the owner of a key's
 * shard delivers every request that names the key first and enforces its limits in full; everywhere else a budget
 * is enforced in proportion to the shards a process owns, which is exact for requests spread evenly over the shards
 * (a limited queue's requests without keys, by their random IDs: such a queue is never placed on the accepting
 * process's shards) and approximate otherwise (see the distributed notes).
 * `owned` is empty before a process owns anything: it then enforces nothing, as it delivers nothing.
 */
export function budgetShare(kind: BudgetKind, projectId: string, name: string, owned: readonly number[], shardCount: number): number {
  if (kind === 'flow_key' && owned.includes(flowKeyShard(projectId, name, shardCount))) return 1;
  return owned.length / shardCount;
}
