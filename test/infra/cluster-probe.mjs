/* global process, console, setTimeout */
// Readiness of the three-node clusters of `infra.sh cluster` (test/infra/cluster.sh).
//
//   node test/infra/cluster-probe.mjs node <host:port> <datacenter> <pid> <timeout seconds>
//   node test/infra/cluster-probe.mjs cluster <cassandra host:port,...> <datacenter> <kafka host:port,...> <pids> <timeout seconds>
//
// `node`: one Cassandra node answers `SELECT release_version FROM system.local` itself.
// `cluster`: every node is part of a whole, healthy cluster:
//   Cassandra: each node, as the coordinator, writes and reads a row of a keyspace replicated
//     {'class': 'NetworkTopologyStrategy', <dc>: 3} at consistency ALL (so it reaches all three
//     replicas, and its failure detector holds every node up), and lists the two others in
//     system.peers_v2;
//   Kafka: each broker answers metadata listing three brokers and a controller; a probe topic
//     exists with replication 3 (made here), and every partition of every topic has all its
//     replicas in sync.
// It retries until all of that holds, or gives up early when one of the JVMs (pids) is gone.
//
// Plain JavaScript (no tsx) so it starts in tens of milliseconds.
// Exit codes: 0 ready, 1 timed out, 2 a process gone, 64 bad usage.

import { alive } from './process-alive.mjs';

const PROBE_KEYSPACE = 'ferry_cluster_probe';
const PROBE_TOPIC = 'ferry.cluster.probe';

const [mode, ...args] = process.argv.slice(2);
const usage = () => {
  console.error('usage: cluster-probe.mjs node <host:port> <dc> <pid> <timeout s> | cluster <cassandra,...> <dc> <kafka,...> <pids> <timeout s>');
  process.exit(64);
};
if (mode === 'node' ? args.length !== 4 : mode === 'cluster' ? args.length !== 5 : true) usage();

const { default: cassandra } = await import('cassandra-driver');
const { default: kafkajs } = await import('kafkajs');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const messageOf = (error) => (error instanceof Error ? error.message : String(error));

/** A client whose every query goes to `address` as the coordinator. */
function cassandraClient(address, dataCenter) {
  const { AllowListPolicy, DCAwareRoundRobinPolicy } = cassandra.policies.loadBalancing;
  return new cassandra.Client({
    contactPoints: [address],
    localDataCenter: dataCenter,
    policies: { loadBalancing: new AllowListPolicy(new DCAwareRoundRobinPolicy(dataCenter), [address]) },
    socketOptions: { connectTimeout: 2000, readTimeout: 10000 },
  });
}

async function withCassandra(address, dataCenter, use) {
  const client = cassandraClient(address, dataCenter);
  try {
    await client.connect();
    return await use(client);
  } finally {
    await client.shutdown().catch(() => {});
  }
}

async function nodeAnswers(address, dataCenter) {
  return withCassandra(address, dataCenter, async (client) => {
    const result = await client.execute('SELECT release_version FROM system.local');
    return `Cassandra ${result.first().get('release_version')}`;
  });
}

let schemaMade = false;

async function cassandraReady(addresses, dataCenter) {
  const { consistencies } = cassandra.types;
  for (const address of addresses) {
    await withCassandra(address, dataCenter, async (client) => {
      if (!schemaMade) {
        await client.execute(
          `CREATE KEYSPACE IF NOT EXISTS ${PROBE_KEYSPACE} WITH replication = {'class': 'NetworkTopologyStrategy', '${dataCenter}': 3}`,
        );
        await client.execute(`CREATE TABLE IF NOT EXISTS ${PROBE_KEYSPACE}.beats (coordinator text PRIMARY KEY, at timestamp)`);
        schemaMade = true;
      }
      const peers = await client.execute('SELECT peer FROM system.peers_v2');
      if (peers.rowLength !== addresses.length - 1) throw new Error(`${address} knows ${peers.rowLength} peers, not ${addresses.length - 1}`);
      const at = new Date();
      const all = { prepare: true, consistency: consistencies.all };
      await client.execute(`INSERT INTO ${PROBE_KEYSPACE}.beats (coordinator, at) VALUES (?, ?)`, [address, at], all);
      const row = (await client.execute(`SELECT at FROM ${PROBE_KEYSPACE}.beats WHERE coordinator = ?`, [address], all)).first();
      if (row?.get('at')?.getTime() !== at.getTime()) throw new Error(`${address} read back another row at consistency ALL`);
    });
  }
  return `Cassandra: ${addresses.length} nodes each reach ${addresses.length} replicas (CL ALL)`;
}

function kafkaAdmin(brokers) {
  const { Kafka, logLevel } = kafkajs;
  return new Kafka({
    clientId: 'ferry-infra-cluster-probe',
    brokers,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 2000,
    requestTimeout: 10000,
    retry: { retries: 0 },
  }).admin();
}

async function withAdmin(brokers, use) {
  const admin = kafkaAdmin(brokers);
  try {
    await admin.connect();
    return await use(admin);
  } finally {
    await admin.disconnect().catch(() => {});
  }
}

async function kafkaReady(brokers) {
  for (const broker of brokers) {
    await withAdmin([broker], async (admin) => {
      const cluster = await admin.describeCluster();
      if (cluster.brokers.length !== brokers.length) {
        throw new Error(`${broker} lists broker(s) ${cluster.brokers.map((b) => b.nodeId).join(',') || 'none'}, not ${brokers.length}`);
      }
      if (cluster.controller === null || cluster.controller < 0) throw new Error(`${broker} knows no controller`);
    });
  }
  return withAdmin(brokers, async (admin) => {
    if (!(await admin.listTopics()).includes(PROBE_TOPIC)) {
      await admin.createTopics({ waitForLeaders: true, topics: [{ topic: PROBE_TOPIC, numPartitions: brokers.length, replicationFactor: brokers.length }] });
    }
    const { topics } = await admin.fetchTopicMetadata();
    let partitions = 0;
    for (const topic of topics) {
      for (const p of topic.partitions) {
        partitions++;
        if (p.leader < 0) throw new Error(`${topic.name}/${p.partitionId} has no leader`);
        if (p.isr.length < p.replicas.length) throw new Error(`${topic.name}/${p.partitionId} has ${p.isr.length} of ${p.replicas.length} replicas in sync`);
      }
    }
    const probe = topics.find((t) => t.name === PROBE_TOPIC);
    const replicas = probe?.partitions[0]?.replicas.length;
    const configs = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: 2, name: PROBE_TOPIC, configNames: ['min.insync.replicas'] }] });
    const minIsr = configs.resources[0]?.configEntries[0]?.configValue;
    return `Kafka: ${brokers.length} brokers each list ${brokers.length}; ${topics.length} topic(s), ${partitions} partitions all in sync; new topics get replication ${replicas}, min.insync.replicas ${minIsr}`;
  });
}

async function retry(timeoutSeconds, pids, check) {
  const deadline = Date.now() + Number(timeoutSeconds) * 1000;
  let lastError = 'no attempt yet';
  while (Date.now() < deadline) {
    const gone = pids.find((pid) => !alive(pid));
    if (gone !== undefined) {
      console.error(`process ${gone} is gone (last probe error: ${lastError})`);
      process.exit(2);
    }
    try {
      return await check();
    } catch (error) {
      lastError = messageOf(error);
    }
    await sleep(1000);
  }
  console.error(`not ready after ${timeoutSeconds}s (last probe error: ${lastError})`);
  process.exit(1);
}

if (mode === 'node') {
  const [address, dataCenter, pid, timeout] = args;
  console.log(await retry(timeout, [Number(pid)], () => nodeAnswers(address, dataCenter)));
} else {
  const [cassandraList, dataCenter, kafkaList, pidList, timeout] = args;
  const pids = pidList.split(',').map(Number);
  // Both are asked at once; each goes on retrying until it holds, within the one deadline.
  const [c, k] = await Promise.all([
    retry(timeout, pids, () => cassandraReady(cassandraList.split(','), dataCenter)),
    retry(timeout, pids, () => kafkaReady(kafkaList.split(','))),
  ]);
  console.log(c);
  console.log(k);
}
process.exit(0);
