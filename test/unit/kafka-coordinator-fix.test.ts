import { createRequire } from 'node:module';
import { KafkaJSBrokerNotFound, KafkaJSConnectionError, KafkaJSNumberOfRetriesExceeded, KafkaJSProtocolError } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { coordinatorUnreachable, findLostGroupCoordinators } from '../../src/adapters/kafka/coordinator-fix.js';

// kafkajs's own consumer group class, with the fix applied, driven by a cluster that names a new coordinator: the
// group's state is kafkajs's, only the network is left out.
const ConsumerGroup = createRequire(import.meta.url)('kafkajs/src/consumer/consumerGroup.js') as { prototype: object };
findLostGroupCoordinators();

/** kafkajs's `KafkaJSBrokerNotFound` takes its message, which its type declarations leave out. */
const brokerNotFound = (message: string): Error => new (KafkaJSBrokerNotFound as unknown as new (m: string) => Error)(message);

interface Coordinator {
  readonly name: string;
  isConnected(): boolean;
}

function groupWhoseCommitsFail(error: Error) {
  const dead: Coordinator = { name: 'broker 3', isConnected: () => false };
  const alive: Coordinator = { name: 'broker 1', isConnected: () => true };
  let searches = 0;
  const group = Object.assign(Object.create(ConsumerGroup.prototype) as Record<string, unknown>, {
    groupId: 'g',
    coordinator: dead,
    offsetManager: {
      coordinator: dead,
      commitOffsets: async () => {
        throw error;
      },
    },
    cluster: {
      findGroupCoordinator: async ({ groupId }: { groupId: string }) => {
        expect(groupId).toBe('g');
        searches += 1;
        return alive;
      },
    },
  });
  const commit = () => (group['commitOffsets'] as (o?: unknown) => Promise<void>).call(group);
  return { group, commit, alive, searches: () => searches };
}

describe('kafkajs group coordinator lost with its broker', () => {
  it('a commit failing for want of the coordinator finds it again, for the group and its offsets, then fails', async () => {
    const lost = brokerNotFound('Broker 3 not found in the cached metadata');
    const g = groupWhoseCommitsFail(lost);
    await expect(g.commit()).rejects.toBe(lost);
    expect(g.searches()).toBe(1);
    expect(g.group['coordinator']).toBe(g.alive);
    expect((g.group['offsetManager'] as { coordinator: Coordinator }).coordinator).toBe(g.alive);
  });

  it('failures at once look once', async () => {
    const g = groupWhoseCommitsFail(new KafkaJSConnectionError('Connection error: connect ECONNREFUSED'));
    await Promise.allSettled([g.commit(), g.commit(), g.commit()]);
    expect(g.searches()).toBe(1);
  });

  it('a coordinator that answers, even with a refusal, is kept: the runner deals with what it said', async () => {
    const g = groupWhoseCommitsFail(new KafkaJSProtocolError('The group is rebalancing, so a rejoin is needed'));
    await expect(g.commit()).rejects.toThrow('rebalancing');
    expect(g.searches()).toBe(0);
    expect((g.group['coordinator'] as Coordinator).name).toBe('broker 3');
  });

  it('tells an unreachable coordinator from other failures, also when kafkajs gave up retrying', () => {
    expect(coordinatorUnreachable(new KafkaJSConnectionError('Connection error: connect ECONNREFUSED'))).toBe(true);
    const wrapped = new KafkaJSNumberOfRetriesExceeded(brokerNotFound('Broker 3 not found'), { retryCount: 5, retryTime: 1000 });
    expect(coordinatorUnreachable(wrapped)).toBe(true);
    expect(coordinatorUnreachable(new KafkaJSProtocolError('Not coordinator'))).toBe(false);
    expect(coordinatorUnreachable(new Error('eachBatch failed'))).toBe(false);
    expect(coordinatorUnreachable(undefined)).toBe(false);
  });
});
