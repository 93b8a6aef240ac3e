import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { cassandraBackend, openCassandraBackend, openCassandraSession, type CassandraBackend } from '../adapters/cassandra/backend.js';
import { RETAKE_EPOCH_AFTER_MS } from '../adapters/cassandra/ownership/owner-timestamps.js';
import { CassandraShardFence } from '../adapters/cassandra/ownership/shard-fence.js';
import type { CassandraSession } from '../adapters/cassandra/session.js';
import { createKafka } from '../adapters/kafka/client.js';
import { KafkaReadiness } from '../adapters/kafka/readiness.js';
import { KafkaShardOwnership } from '../adapters/kafka/shard-ownership.js';
import { assertWorkTopic, ensureWorkTopic } from '../adapters/kafka/topic.js';
import { KafkaWorkNotifier, NOTICE_LINGER_MS } from '../adapters/kafka/work-notifier.js';
import type { Config, DistributedConfig } from '../config/config.js';
import { systemClock, type Clock } from '../domain/clock.js';
import type { ReadinessCheck } from '../edge/health/readiness.js';
import type { Log } from '../ports/telemetry.js';
import { distributedPlacement } from '../workers/placement/distributed-placement.js';
import type { WorkPlacement } from '../workers/placement/work-placement.js';
import { log } from './log.js';

/*
 * Everything the distributed backend needs, in one module that the composition root imports only when the
 * configuration asks for it: an embedded process never loads the Cassandra and Kafka clients.
 */

/** How often owned shards are checked against the fence (see `KafkaShardOwnershipOptions.verifyEveryMs`). */
const VERIFY_OWNERSHIP_EVERY_MS = 2_000;

export function openDistributedBackend(d: DistributedConfig, clock: Clock = systemClock): Promise<CassandraBackend> {
  return openCassandraBackend({ ...d.cassandra, shardCount: d.shards, clock });
}

/** The keyspace's tables and the work topic, created or upgraded. */
export async function migrateDistributed(d: DistributedConfig): Promise<void> {
  await (await openCassandraSession({ ...d.cassandra, migrate: true })).close();
  await ensureWorkTopic(createKafka({ ...d.kafka }, log), d.kafka.topic, d.shards, d.kafka.replicationFactor);
}

/** Wraps a Kafka adapter object (tracing); the name says which. */
export type KafkaWrapper = <T extends object>(port: T, name: string) => T;

/**
 * Cassandra storage and the Kafka placement that goes with it, each given the other's parts at construction: the
 * request store fences its owner writes by the epochs the shard ownership holds, and tells the owners of other
 * shards of cancels through the notifier; the placement tells the store's working set what notices carry. Kafka
 * is part of readiness too: without it, work notices and shard ownership stop. The Kafka client and adapters log
 * through `kafkaLog`, which also counts their errors.
 */
export async function openDistributedStorage(
  config: Config,
  d: DistributedConfig,
  clock: Clock,
  kafkaLog: Log = log,
  wrapKafka: KafkaWrapper = (port) => port,
): Promise<{ backend: CassandraBackend; placement: () => Promise<WorkPlacement>; checks: ReadinessCheck[]; closeChecks: () => Promise<void> }> {
  const session = await openCassandraSession({ ...d.cassandra, clock });
  const { ownership, notifier } = await kafkaParts(config, d, session, clock, kafkaLog).catch(async (err: unknown) => {
    await session.close();
    throw err;
  });
  // The owner's writes to requests are fenced by the epochs it holds; a process that delivers nothing has none. A
  // cancel stored here reaches the owner of the request's shard through its partition, after the work before it.
  const tracedNotifier = notifier === null ? null : wrapKafka(notifier, 'notifier');
  const backend = cassandraBackend(session, { shardCount: d.shards, clock, epochs: ownership ?? undefined, cancelNotices: tracedNotifier ?? undefined });
  const placement = distributedPlacement({
    requests: backend.requests,
    shardCount: d.shards,
    ownership: ownership === null ? null : wrapKafka(ownership, 'ownership'),
    notifier: tracedNotifier,
    clock,
    pollMs: config.delivery.idlePollMs,
    log,
    workingSet: backend.requests.workingSet,
  });
  const kafkaReadiness = new KafkaReadiness(createKafka({ ...d.kafka }, kafkaLog));
  return {
    backend,
    placement: async () => placement,
    checks: [{ name: 'kafka', probe: () => kafkaReadiness.probe() }],
    closeChecks: () => kafkaReadiness.close(),
  };
}

/**
 * Kafka group membership decides who works on which shard, fenced in Cassandra; Kafka carries work notices. Only
 * a delivering process takes part in ownership, only one serving the API sends notices.
 */
async function kafkaParts(
  config: Config,
  d: DistributedConfig,
  session: CassandraSession,
  clock: Clock,
  kafkaLog: Log,
): Promise<{ ownership: KafkaShardOwnership | null; notifier: KafkaWorkNotifier | null }> {
  const kafka = createKafka({ ...d.kafka }, kafkaLog);
  await assertWorkTopic(kafka, d.kafka.topic, d.shards);
  const ownership = config.roles.delivery
    ? new KafkaShardOwnership(
        kafka,
        {
          topic: d.kafka.topic,
          groupId: d.kafka.groupId,
          owner: `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`,
          fence: new CassandraShardFence(session, clock),
          sessionTimeoutMs: d.kafka.sessionTimeoutMs,
          verifyEveryMs: VERIFY_OWNERSHIP_EVERY_MS,
          retakeAfterMs: RETAKE_EPOCH_AFTER_MS,
          clock,
        },
        kafkaLog,
      )
    : null;
  const notifier = config.roles.api ? new KafkaWorkNotifier(kafka, d.kafka.topic, kafkaLog, { ms: NOTICE_LINGER_MS, clock }) : null;
  return { ownership, notifier };
}
