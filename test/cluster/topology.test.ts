import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CassandraSession } from '../../src/adapters/cassandra/session.js';
import { backendEnv, TEST_BACKEND } from '../support/deployment.js';
import { newDataDir, startFerry, type FerryProcess } from '../support/ferry-process.js';
import { clusterCommand, infra, TEST_TOPOLOGY } from '../support/infra.js';

// Ferry on the three-node Cassandra and three-broker Kafka clusters of `infra.sh cluster` (project api-cluster,
// run only with FERRY_TEST_TOPOLOGY=cluster; see test/infra/README.md): keyspaces replicated three times in dc1, the
// work topic on three brokers with two in sync required. Losing a node under load is failures.test.ts's (each
// Cassandra node killed in turn, with two processes and a ledger: more than a single kill here checked).

describe.runIf(TEST_BACKEND === 'cassandra' && TEST_TOPOLOGY === 'cluster')('Ferry on a three-node Cassandra and Kafka cluster', () => {
  let ferry: FerryProcess;

  beforeAll(async () => {
    // Starts whatever an earlier run left down, and waits until every node is ready.
    await clusterCommand('up');
    ferry = await startFerry({ dataDir: newDataDir() });
  });

  afterAll(async () => {
    await ferry?.stop();
  });

  it('stores its requests three times in dc1 and its notices on three brokers, two in sync required', async () => {
    const env = backendEnv(ferry.dataDir);
    const session = await CassandraSession.connect(infra.cassandra.connection('system'));
    try {
      const ks = await session.read('SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = ?', [env.FERRY_CASSANDRA_KEYSPACE], 'reading');
      expect(ks.rows[0]?.['replication']).toEqual({ class: 'org.apache.cassandra.locator.NetworkTopologyStrategy', dc1: '3' });
    } finally {
      await session.close();
    }
    const admin = new Kafka({ brokers: [...infra.kafka.brokers], logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      const topic = env.FERRY_KAFKA_TOPIC!;
      const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
      expect(topics[0]!.partitions.map((p) => p.replicas.length)).toEqual(topics[0]!.partitions.map(() => 3));
      const configs = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: 2, name: topic, configNames: ['min.insync.replicas'] }] });
      expect(configs.resources[0]!.configEntries[0]!.configValue).toBe('2');
    } finally {
      await admin.disconnect();
    }
  });
});
