import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { openCassandraBackend, type CassandraBackend } from '../adapters/cassandra/backend.js';
import type { CassandraSession } from '../adapters/cassandra/session.js';
import { CassandraShardFence } from '../adapters/cassandra/shard-fence.js';
import { createKafka } from '../adapters/kafka/client.js';
import { KafkaShardOwnership } from '../adapters/kafka/shard-ownership.js';
import { assertWorkTopic, ensureWorkTopic } from '../adapters/kafka/topic.js';
import { KafkaWorkNotifier } from '../adapters/kafka/work-notifier.js';
import type { Config, DistributedConfig } from '../config/config.js';
import type { Clock } from '../domain/clock.js';
import { shardOf } from '../domain/shards.js';
import type { RequestStore } from '../ports/requests.js';
import type { ShardOwnership, WorkNotifier } from '../ports/work-shards.js';
import { DueWakeups } from './due-wakeups.js';
import { log } from './log.js';
import type { WorkPlacement } from './work-placement.js';

/*
 * Everything the distributed backend needs, in one module that the composition root imports only when the
 * configuration asks for it: an embedded process never loads the Cassandra and Kafka clients.
 */

export function openDistributedBackend(d: DistributedConfig): Promise<CassandraBackend> {
  return openCassandraBackend({ ...d.cassandra, shardCount: d.shards });
}

/** The keyspace's tables and the work topic, created or upgraded. */
export async function migrateDistributed(d: DistributedConfig): Promise<void> {
  await (await openCassandraBackend({ ...d.cassandra, shardCount: d.shards, migrate: true })).close();
  await ensureWorkTopic(createKafka({ ...d.kafka }, log), d.kafka.topic, d.shards, d.kafka.replicationFactor);
}

/** Cassandra storage and the Kafka placement that goes with it. */
export async function openDistributedStorage(
  config: Config,
  d: DistributedConfig,
  clock: Clock,
): Promise<{ backend: CassandraBackend; placement: () => Promise<WorkPlacement> }> {
  const backend = await openDistributedBackend(d);
  return { backend, placement: () => distributedPlacement(d, backend.session, backend.requests, clock, config.roles, config.delivery.idlePollMs) };
}

/** Many processes over Cassandra and Kafka: Kafka group membership decides who delivers which shard. */
async function distributedPlacement(
  config: DistributedConfig,
  session: CassandraSession,
  requests: RequestStore,
  clock: Clock,
  roles: { readonly api: boolean; readonly delivery: boolean },
  pollMs: number,
): Promise<WorkPlacement> {
  const kafka = createKafka({ ...config.kafka }, log);
  await assertWorkTopic(kafka, config.kafka.topic, config.shards);
  const owner = `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`;
  const notifier: WorkNotifier | null = roles.api ? new KafkaWorkNotifier(kafka, config.kafka.topic, log) : null;
  let ownership: ShardOwnership | null = null;
  let wakeups: DueWakeups | null = null;
  return {
    shards: () => ownership?.owned() ?? [],
    async startDelivery(e) {
      const w = new DueWakeups(e, clock, pollMs);
      wakeups = w;
      ownership = new KafkaShardOwnership(
        kafka,
        {
          topic: config.kafka.topic,
          groupId: config.kafka.groupId,
          owner,
          fence: new CassandraShardFence(session),
          sessionTimeoutMs: config.kafka.sessionTimeoutMs,
          verifyEveryMs: 2_000,
        },
        log,
      );
      await ownership.start({
        onGained: async (shards) => {
          // The previous owner may have died holding leases: whatever it was delivering is due again now.
          if (shards.length === 0) return;
          const released = await requests.releaseLeases(clock.now(), shards);
          if (released > 0) log('info', 'leases of a previous owner released', { shards, requests: released });
        },
        onWork: (notices) => w.stored(notices.map((n) => n.dueAt)),
      });
    },
    accepted(stored) {
      // Notices are hints: work due after the owner's next look at storage wakes nobody (see `DueWakeups`), and
      // work in a shard this process owns needs no round trip through Kafka. The timers hold it either way.
      if (notifier !== null) {
        const noticeBy = clock.now() + pollMs;
        const owned = new Set(ownership?.owned() ?? []);
        const notices = stored.flatMap((r) => {
          const shard = shardOf(r.id, config.shards);
          return r.dueAt === null || r.dueAt > noticeBy || owned.has(shard) ? [] : [{ requestId: r.id, shard, dueAt: r.dueAt }];
        });
        if (notices.length > 0) notifier.notify(notices);
      }
      wakeups?.stored(stored.flatMap((r) => (r.dueAt === null ? [] : [r.dueAt])));
    },
    async stop() {
      wakeups?.stop();
      await ownership?.stop();
      await notifier?.close();
    },
  };
}
