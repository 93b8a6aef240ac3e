import { createRequire } from 'node:module';

/**
 * kafkajs 2.2.4 keeps the group coordinator it found at the last join for heartbeats and offset commits, and looks
 * for it again only when the coordinator itself answers "not coordinator". When the coordinator's broker dies, that
 * answer never comes: heartbeats fail to connect, commits fail with "broker not found" once the cluster dropped the
 * broker from its metadata, the runner retries both forever, and the member (every member of a group that broker
 * coordinated) stays out of the group until the dead broker comes back, however long that is. Measured on the
 * three-broker cluster: deliveries stalled for the whole outage, 37 s to 76 s.
 *
 * Fixed here: a heartbeat or commit that fails for want of the coordinator (its connection refused, closed or timed
 * out, or its broker gone from the metadata) makes the group find the coordinator again before the error goes on to
 * the runner, as Kafka's own clients do. The runner retries with the new one; a coordinator that does not know the
 * member, or is rebalancing, says so, and the runner rejoins. Offsets left uncommitted meanwhile are notices a new
 * owner may see again, which it checks anyway.
 */
interface GroupCoordinator {
  isConnected(): boolean;
}

interface ConsumerGroup {
  groupId: string;
  coordinator: GroupCoordinator | null;
  offsetManager: { coordinator: GroupCoordinator } | null;
  cluster: { findGroupCoordinator(o: { groupId: string }): Promise<GroupCoordinator> };
}

/** Errors that say the coordinator is out of reach, not that it refused the request. */
const UNREACHABLE = new Set(['KafkaJSBrokerNotFound', 'KafkaJSConnectionError', 'KafkaJSConnectionClosedError', 'KafkaJSRequestTimeoutError']);

let applied = false;
/** A search under way per group: the heartbeat and a commit failing together look once. */
const searching = new WeakMap<ConsumerGroup, Promise<void>>();

export function findLostGroupCoordinators(): void {
  if (applied) return;
  applied = true;
  const group = createRequire(import.meta.url)('kafkajs/src/consumer/consumerGroup.js') as { prototype: Record<string, unknown> };
  for (const name of ['heartbeat', 'commitOffsets', 'commitOffsetsIfNecessary']) {
    const original = group.prototype[name];
    if (typeof original !== 'function') continue;
    group.prototype[name] = async function (this: ConsumerGroup, ...args: unknown[]): Promise<unknown> {
      try {
        return await (original as (...a: unknown[]) => Promise<unknown>).apply(this, args);
      } catch (err) {
        if (coordinatorUnreachable(err)) await searchOnce(this);
        throw err;
      }
    };
  }
}

export function coordinatorUnreachable(err: unknown): boolean {
  // kafkajs wraps errors it gave up retrying; the cause says what happened.
  for (let e = err as { name?: string; originalError?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 4; depth++) {
    if (e.name !== undefined && UNREACHABLE.has(e.name)) return true;
    e = (e.originalError ?? e.cause) as typeof e;
  }
  return false;
}

function searchOnce(group: ConsumerGroup): Promise<void> {
  let search = searching.get(group);
  if (search === undefined) {
    search = findAgain(group).finally(() => searching.delete(group));
    searching.set(group, search);
  }
  return search;
}

async function findAgain(group: ConsumerGroup): Promise<void> {
  try {
    const coordinator = await group.cluster.findGroupCoordinator({ groupId: group.groupId });
    group.coordinator = coordinator;
    if (group.offsetManager) group.offsetManager.coordinator = coordinator;
  } catch {
    // No coordinator yet (the offsets partition is still without a leader): the next failure looks again.
  }
}
