import { KafkaJSProtocolError } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { createWorkTopic, partitionCount } from '../../src/adapters/kafka/topic.js';

/** A topic just created or a broker just restarted may not know the topic yet; that passes, other errors do not. */
describe('work topic metadata', () => {
  // What kafkajs throws for error code 3, built as its protocol layer builds it.
  const unknownTopic = () =>
    new KafkaJSProtocolError(
      Object.assign(new Error('This server does not host this topic-partition'), { type: 'UNKNOWN_TOPIC_OR_PARTITION', code: 3, retriable: true }),
    );
  const answering = (errors: Error[]) => {
    let calls = 0;
    const admin = {
      fetchTopicMetadata: async () => {
        calls += 1;
        const err = errors.shift();
        if (err !== undefined) throw err;
        return { topics: [{ name: 'work', partitions: Array.from({ length: 12 }, (_, i) => ({ partitionId: i }) as never) }] };
      },
    };
    return { admin, calls: () => calls };
  };

  it('asks again while the cluster does not know the topic yet', async () => {
    const { admin, calls } = answering([unknownTopic(), unknownTopic()]);
    expect(await partitionCount(admin, 'work')).toBe(12);
    expect(calls()).toBe(3);
  });

  it('gives up once the topic stays unknown past the settling time', async () => {
    const { admin } = answering(Array.from({ length: 100 }, unknownTopic));
    await expect(partitionCount(admin, 'work', 500)).rejects.toBeInstanceOf(KafkaJSProtocolError);
  });

  it('creates the topic when waiting for its leaders meets a broker that does not know it yet', async () => {
    const { admin, calls } = answering([unknownTopic()]);
    const created: string[] = [];
    const creating = {
      ...admin,
      listTopics: async () => created,
      createTopics: async ({ topics }: { topics: Array<{ topic: string }> }) => {
        created.push(...topics.map((t) => t.topic));
        throw unknownTopic();
      },
    };
    await createWorkTopic(creating as never, 'work', 12, 1);
    expect(created).toEqual(['work']);
    expect(calls()).toBe(2);
  });

  it('does not go on after a failed creation that will not pass', async () => {
    const { admin, calls } = answering([]);
    const refusing = { ...admin, listTopics: async () => [], createTopics: async () => Promise.reject(new Error('not authorized')) };
    await expect(createWorkTopic(refusing as never, 'work', 12, 1)).rejects.toThrow('not authorized');
    expect(calls()).toBe(0);
  });

  it('does not ask again after an error that will not pass', async () => {
    const { admin, calls } = answering([new Error('not authorized')]);
    await expect(partitionCount(admin, 'work')).rejects.toThrow('not authorized');
    expect(calls()).toBe(1);
  });
});
