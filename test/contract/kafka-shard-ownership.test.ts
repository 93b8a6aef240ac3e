import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKafka, type KafkaLog } from '../../src/adapters/kafka/client.js';
import { KafkaShardOwnership } from '../../src/adapters/kafka/shard-ownership.js';
import { ensureWorkTopic } from '../../src/adapters/kafka/topic.js';
import { KafkaWorkNotifier } from '../../src/adapters/kafka/work-notifier.js';
import type { ShardFence, WorkNotice } from '../../src/ports/work-shards.js';
import { eventually } from '../support/api-client.js';
import { infra } from '../support/infra.js';

const SHARDS = 2;

/** Epochs counted in memory: one member, nothing to fence against. */
function memoryFence(): ShardFence {
  const epochs = new Map<number, number>();
  return {
    acquire: async (shard) => {
      epochs.set(shard, (epochs.get(shard) ?? 0) + 1);
      return epochs.get(shard)!;
    },
    superseded: async () => new Map(),
  };
}

describe('KafkaShardOwnership on a real broker', () => {
  const topic = `ferry-ownership-${randomUUID().slice(0, 8)}`;
  const lines: Array<{ level: string; message: string }> = [];
  const log: KafkaLog = (level, message) => void lines.push({ level, message });
  const kafka = createKafka({ brokers: infra.kafka.brokers, clientId: 'ferry-ownership-test', tls: null, sasl: null }, log);
  let ownership: KafkaShardOwnership;
  let notifier: KafkaWorkNotifier;

  beforeAll(async () => {
    await ensureWorkTopic(kafka, topic, SHARDS, infra.kafka.replicationFactor);
    notifier = new KafkaWorkNotifier(kafka, topic, log);
  }, 60_000);

  afterAll(async () => {
    await ownership?.stop();
    await notifier?.close();
  });

  it('starts its consumer again after an error kafkajs gives up on, and owns its shards again', async () => {
    const received: WorkNotice[] = [];
    let failOnce = true;
    ownership = new KafkaShardOwnership(
      kafka,
      { topic, groupId: `${topic}-group`, owner: 'member-1', fence: memoryFence(), sessionTimeoutMs: 6_000, verifyEveryMs: 60_000, retakeAfterMs: 3_600_000 },
      log,
    );
    await ownership.start({
      onGained: async () => undefined,
      onWork: (notices) => {
        if (notices.length === 0) return;
        // A TypeError is one kafkajs calls unrecoverable: its consumer stops and does not start again on its own.
        if (failOnce) {
          failOnce = false;
          throw new TypeError('a listener failing the way a bug would');
        }
        received.push(...notices);
      },
      onCancelsAsked: () => undefined,
    });
    await eventually(async () => (ownership.owned().length === SHARDS ? true : undefined), 60_000);

    notifier.notify([{ requestId: 'req_first', shard: 0, dueAt: Date.now() }]);
    await eventually(async () => (lines.some((l) => l.message.includes('starting it again')) ? true : undefined), 30_000);

    await eventually(async () => (ownership.owned().length === SHARDS ? true : undefined), 60_000);
    notifier.notify([{ requestId: 'req_second', shard: 1, dueAt: Date.now() }]);
    await eventually(async () => (received.some((n) => n.requestId === 'req_second') ? true : undefined), 30_000);
    expect(lines.filter((l) => l.message.includes('starting it again'))).toHaveLength(1);
  }, 180_000);
});
