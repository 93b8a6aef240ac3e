import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { openCassandraBackend, type CassandraBackend } from '../adapters/cassandra/backend.js';
import { RETAKE_EPOCH_AFTER_MS } from '../adapters/cassandra/ownership/owner-timestamps.js';
import { CassandraShardFence } from '../adapters/cassandra/ownership/shard-fence.js';
import { createKafka } from '../adapters/kafka/client.js';
import { KafkaReadiness } from '../adapters/kafka/readiness.js';
import { KafkaShardOwnership } from '../adapters/kafka/shard-ownership.js';
import { assertWorkTopic, ensureWorkTopic } from '../adapters/kafka/topic.js';
import { KafkaWorkNotifier } from '../adapters/kafka/work-notifier.js';
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
  await (await openCassandraBackend({ ...d.cassandra, shardCount: d.shards, migrate: true })).close();
  await ensureWorkTopic(createKafka({ ...d.kafka }, log), d.kafka.topic, d.shards, d.kafka.replicationFactor);
}

/** Wraps a Kafka adapter object (tracing); the name says which. */
export type KafkaWrapper = <T extends object>(port: T, name: string) => T;

/**
 * Cassandra storage and the Kafka placement that goes with it. Kafka is part of readiness too: without it, work
 * notices and shard ownership stop.
 */
export async function openDistributedStorage(
  config: Config,
  d: DistributedConfig,
  clock: Clock,
  kafkaLog: Log = log,
  wrapKafka: KafkaWrapper = (port) => port,
): Promise<{ backend: CassandraBackend; placement: () => Promise<WorkPlacement>; checks: ReadinessCheck[]; closeChecks: () => Promise<void> }> {
  const backend = await openDistributedBackend(d, clock);
  const kafka = new KafkaReadiness(createKafka({ ...d.kafka }, kafkaLog));
  return {
    backend,
    placement: () => kafkaPlacement(config, d, backend, clock, kafkaLog, wrapKafka),
    checks: [{ name: 'kafka', probe: () => kafka.probe() }],
    closeChecks: () => kafka.close(),
  };
}

/**
 * Kafka group membership decides who works on which shard, fenced in Cassandra; Kafka carries work notices. The
 * Kafka client and adapters log through `kafkaLog`, which also counts their errors.
 */
async function kafkaPlacement(
  config: Config,
  d: DistributedConfig,
  backend: CassandraBackend,
  clock: Clock,
  kafkaLog: Log,
  wrapKafka: KafkaWrapper,
): Promise<WorkPlacement> {
  const kafka = createKafka({ ...d.kafka }, kafkaLog);
  await assertWorkTopic(kafka, d.kafka.topic, d.shards);
  const kafkaOwnership = config.roles.delivery
    ? new KafkaShardOwnership(
        kafka,
        {
          topic: d.kafka.topic,
          groupId: d.kafka.groupId,
          owner: `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`,
          fence: new CassandraShardFence(backend.session, clock),
          sessionTimeoutMs: d.kafka.sessionTimeoutMs,
          verifyEveryMs: VERIFY_OWNERSHIP_EVERY_MS,
          retakeAfterMs: RETAKE_EPOCH_AFTER_MS,
          clock,
        },
        kafkaLog,
      )
    : null;
  // The owner's writes to requests are fenced by the epochs it holds; a process that delivers nothing has none.
  if (kafkaOwnership !== null) backend.requests.fenceWith(kafkaOwnership);
  const ownership = kafkaOwnership === null ? null : wrapKafka(kafkaOwnership, 'ownership');
  const notifier = config.roles.api ? wrapKafka(new KafkaWorkNotifier(kafka, d.kafka.topic, kafkaLog), 'notifier') : null;
  // A cancel stored here reaches the owner of the request's shard through its partition, after the work before it.
  if (notifier !== null) backend.requests.announceCancelsWith((notice) => notifier.announceCancel(notice));
  return distributedPlacement({
    requests: backend.requests,
    shardCount: d.shards,
    ownership,
    notifier,
    clock,
    pollMs: config.delivery.idlePollMs,
    log,
    cancelsAsked: (ids) => backend.requests.cancelsAsked(ids),
    acceptedElsewhere: (requests) => backend.requests.acceptedElsewhere(requests),
  });
}
