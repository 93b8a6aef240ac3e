import { setTimeout as sleep } from 'node:timers/promises';
import type { Admin, Kafka } from 'kafkajs';
import { backoffDelayMs, type BackoffConfig } from '../../domain/delivery/backoff.js';

/**
 * How long a topic's metadata is asked for again while the cluster answers that it does not know the topic yet:
 * a topic just created, or a broker just restarted, can take a few seconds to show in every broker's metadata.
 */
const METADATA_SETTLE_MS = 30_000;
const METADATA_BACKOFF: BackoffConfig = { baseMs: 200, capMs: 2_000 };

/**
 * How long the work topic keeps its messages. They matter for a minute at most (wake-ups, requests due within a
 * minute, cancels), and they carry requests, headers and bodies included, so they are not kept longer than needed.
 */
const WORK_TOPIC_RETENTION_MS = 60 * 60 * 1000;

/**
 * Creates the work topic with one partition per shard when it does not exist (`ferry migrate`). An existing topic
 * with another partition count is an error: shards would no longer line up with partitions.
 */
export async function ensureWorkTopic(kafka: Kafka, topic: string, partitions: number, replicationFactor: number): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await createWorkTopic(admin, topic, partitions, replicationFactor);
  } finally {
    await admin.disconnect();
  }
}

/** `ensureWorkTopic` on a connected admin client. */
export async function createWorkTopic(
  admin: Pick<Admin, 'listTopics' | 'createTopics' | 'fetchTopicMetadata'>,
  topic: string,
  partitions: number,
  replicationFactor: number,
): Promise<void> {
  const existing = await admin.listTopics();
  if (!existing.includes(topic)) {
    const configEntries = [{ name: 'retention.ms', value: String(WORK_TOPIC_RETENTION_MS) }];
    try {
      await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: partitions, replicationFactor, configEntries }] });
    } catch (err) {
      // kafkajs waits for the new topic's leaders by asking for its metadata, and gives up when a broker answers
      // that it does not know the topic yet (seen on a busy single broker): the topic is created all the same, and
      // the check below asks again until the metadata shows it.
      if ((err as { retriable?: unknown }).retriable !== true) throw err;
    }
  }
  await checkPartitions(admin, topic, partitions);
}

/** Fails with a clear message unless the work topic exists with one partition per shard. */
export async function assertWorkTopic(kafka: Kafka, topic: string, partitions: number): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    if (!(await admin.listTopics()).includes(topic)) throw new Error(`Kafka topic ${topic} does not exist; run \`ferry migrate\` first.`);
    await checkPartitions(admin, topic, partitions);
  } finally {
    await admin.disconnect();
  }
}

async function checkPartitions(admin: Pick<Admin, 'fetchTopicMetadata'>, topic: string, partitions: number): Promise<void> {
  const count = await partitionCount(admin, topic);
  if (count !== partitions) {
    throw new Error(`Kafka topic ${topic} has ${count} partitions but FERRY_SHARDS is ${partitions}; they must be equal.`);
  }
}

/** The topic's partition count, asked again while the cluster reports a passing (retriable) error. */
export async function partitionCount(admin: Pick<Admin, 'fetchTopicMetadata'>, topic: string, settleMs = METADATA_SETTLE_MS): Promise<number> {
  const deadline = Date.now() + settleMs;
  for (let tries = 1; ; tries++) {
    try {
      const meta = await admin.fetchTopicMetadata({ topics: [topic] });
      return meta.topics[0]?.partitions.length ?? 0;
    } catch (err) {
      const wait = backoffDelayMs(tries, METADATA_BACKOFF, Math.random);
      if ((err as { retriable?: unknown }).retriable !== true || Date.now() + wait > deadline) throw err;
      await sleep(wait);
    }
  }
}
