import type { Kafka } from 'kafkajs';

/**
 * Creates the work topic with one partition per shard when it does not exist (`ferry migrate`). An existing topic
 * with another partition count is an error: shards would no longer line up with partitions.
 */
export async function ensureWorkTopic(kafka: Kafka, topic: string, partitions: number, replicationFactor: number): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = await admin.listTopics();
    if (!existing.includes(topic)) {
      await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: partitions, replicationFactor }] });
    }
    await checkPartitions(admin, topic, partitions);
  } finally {
    await admin.disconnect();
  }
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

async function checkPartitions(admin: ReturnType<Kafka['admin']>, topic: string, partitions: number): Promise<void> {
  const meta = await admin.fetchTopicMetadata({ topics: [topic] });
  const count = meta.topics[0]?.partitions.length ?? 0;
  if (count !== partitions) {
    throw new Error(`Kafka topic ${topic} has ${count} partitions but FERRY_SHARDS is ${partitions}; they must be equal.`);
  }
}
