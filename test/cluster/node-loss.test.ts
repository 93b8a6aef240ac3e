import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CassandraSession } from '../../src/adapters/cassandra/session.js';
import { Api, eventually } from '../support/api-client.js';
import { backendEnv, TEST_BACKEND } from '../support/deployment.js';
import { startDestination, type Destination } from '../support/destination.js';
import { createProject, newDataDir, startFerry, type FerryProcess } from '../support/ferry-process.js';
import { clusterCommand, infra, TEST_TOPOLOGY } from '../support/infra.js';

// Ferry on the three-node Cassandra and three-broker Kafka clusters of `infra.sh cluster` (project api-cluster,
// run only with FERRY_TEST_TOPOLOGY=cluster; see test/infra/README.md): keyspaces replicated three times in dc1, the
// work topic on three brokers with two in sync required, and one Cassandra node lost under load.

/** Keeps sending through `api` until stopped; records each acknowledged request and how often each status came. */
function steadyLoad(api: Api, url: string) {
  const acknowledged: string[] = [];
  const statuses = new Map<number, number>();
  let stopped = false;
  const senders = Array.from({ length: 4 }, async (_, w) => {
    for (let i = 0; !stopped; i++) {
      const res = await api.send({ url, retry: '10' }, `node-loss-${w}-${i}`);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status === 202) acknowledged.push((res.body.data as { id: string }).id);
      else await new Promise((r) => setTimeout(r, 50));
    }
  });
  return {
    acknowledged,
    statuses,
    async stop() {
      stopped = true;
      await Promise.all(senders);
    },
  };
}

describe.runIf(TEST_BACKEND === 'cassandra' && TEST_TOPOLOGY === 'cluster')('Ferry on a three-node Cassandra and Kafka cluster', () => {
  let dest: Destination;
  let ferry: FerryProcess;
  let api: Api;

  beforeAll(async () => {
    // Starts whatever an earlier run left down, and waits until every node is ready.
    await clusterCommand('up');
    dest = await startDestination({ record: true });
    ferry = await startFerry({
      dataDir: newDataDir(),
      env: {
        FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true',
        FERRY_DELIVERY_CA_FILE: dest.certFile,
        FERRY_RETRY_BASE_MS: '100',
        FERRY_RETRY_CAP_MS: '2000',
        FERRY_DELIVERY_IDLE_POLL_MS: '200',
      },
    });
    const { apiKey } = await createProject(ferry.dataDir);
    api = new Api(ferry.baseUrl, apiKey);
  });

  afterAll(async () => {
    await ferry?.stop();
    await dest?.close();
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

  it('delivers every acknowledged request while a Cassandra node is killed with -9 and restarted', async () => {
    const path = '/node-loss';
    const load = steadyLoad(api, `${dest.url}${path}`);
    const acknowledgedAfter = async (count: number, what: string): Promise<void> => {
      try {
        await eventually(async () => (load.acknowledged.length >= count ? true : undefined), 90_000);
      } catch (err) {
        throw new Error(`${what}: ${load.acknowledged.length} of ${count} acknowledged; statuses ${JSON.stringify([...load.statuses])}`, { cause: err });
      }
    };
    try {
      await acknowledgedAfter(100, 'before the kill');
      // The first contact point: the driver's control connection goes with it.
      await clusterCommand('kill', 'cassandra-1');
      try {
        await acknowledgedAfter(load.acknowledged.length + 150, 'with cassandra-1 down');
      } finally {
        await clusterCommand('start', 'cassandra-1');
      }
      await clusterCommand('wait');
      await acknowledgedAfter(load.acknowledged.length + 50, 'after cassandra-1 came back');
    } finally {
      await load.stop();
    }

    const ids = load.acknowledged;
    const missing = (): string[] => {
      const delivered = new Set(dest.requestsTo(path).map((r) => r.headers['service-request-id']));
      return ids.filter((id) => !delivered.has(id));
    };
    await eventually(async () => (missing().length === 0 ? true : undefined), 120_000).catch(() => {
      throw new Error(`${missing().length} of ${ids.length} acknowledged requests never arrived, e.g. ${missing().slice(0, 5).join(', ')}`);
    });
    for (const id of ids) {
      await eventually(async () => {
        const res = await api.call<{ status: string }>('GET', `/requests/${id}`);
        return res.body.data.status === 'succeeded' ? true : undefined;
      }, 60_000);
    }
  }, 600_000);
});
