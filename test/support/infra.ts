// Where the integration tests find Cassandra and Kafka, and a handle on
// test/infra/infra.sh for tests that stop, kill or restart them (failover).
//
// Two topologies, both started by infra.sh:
//   single (default)               one Cassandra node and one Kafka broker (`npm run infra:up`):
//                                  keyspaces SimpleStrategy RF 1, topics replication 1
//   FERRY_TEST_TOPOLOGY=cluster    three Cassandra nodes and three Kafka brokers on 127.0.0.1-3
//                                  (`bash test/infra/infra.sh cluster up`): keyspaces
//                                  NetworkTopologyStrategy {'dc1': 3}, topics replication 3
// To use other servers:
//   FERRY_TEST_CASSANDRA=host:port[,host:port...]   contact points
//   FERRY_TEST_CASSANDRA_DC=name                    their local data center
//   FERRY_TEST_CASSANDRA_REPLICATION="{...}"        replication of the keyspaces tests create
//   FERRY_TEST_KAFKA=host:port[,host:port...]
//   FERRY_TEST_KAFKA_REPLICATION_FACTOR=n           replication of the topics tests create
// Without those, the port overrides that infra.sh itself reads (FERRY_INFRA_CASSANDRA_PORT,
// FERRY_INFRA_KAFKA_PORT; FERRY_INFRA_CLUSTER_CASSANDRA_PORT, FERRY_INFRA_CLUSTER_KAFKA_PORT)
// are honoured, so both sides agree on the ports.
import { spawn } from 'node:child_process';
import net from 'node:net';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const SCRIPT = join(ROOT, 'test/infra/infra.sh');

export type InfraService = 'cassandra' | 'kafka';

export type TestTopology = 'single' | 'cluster';
export const TEST_TOPOLOGY: TestTopology = process.env.FERRY_TEST_TOPOLOGY === 'cluster' ? 'cluster' : 'single';

/** The nodes of `infra.sh cluster`: node N listens on 127.0.0.N. */
export const CLUSTER_NODES = ['cassandra-1', 'cassandra-2', 'cassandra-3', 'kafka-1', 'kafka-2', 'kafka-3'] as const;
export type ClusterNode = (typeof CLUSTER_NODES)[number];

const list = (text: string): string[] =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);

const onEachNode = (port: string): string => [1, 2, 3].map((n) => `127.0.0.${n}:${port}`).join(',');

const defaults =
  TEST_TOPOLOGY === 'cluster'
    ? {
        cassandra: onEachNode(process.env.FERRY_INFRA_CLUSTER_CASSANDRA_PORT ?? '29042'),
        dataCenter: 'dc1',
        replication: "{'class': 'NetworkTopologyStrategy', 'dc1': 3}",
        kafka: onEachNode(process.env.FERRY_INFRA_CLUSTER_KAFKA_PORT ?? '29092'),
        kafkaReplication: 3,
      }
    : {
        cassandra: `127.0.0.1:${process.env.FERRY_INFRA_CASSANDRA_PORT ?? '19042'}`,
        dataCenter: 'datacenter1',
        replication: "{'class': 'SimpleStrategy', 'replication_factor': 1}",
        kafka: `127.0.0.1:${process.env.FERRY_INFRA_KAFKA_PORT ?? '19092'}`,
        kafkaReplication: 1,
      };

const cassandraContactPoints = list(process.env.FERRY_TEST_CASSANDRA ?? defaults.cassandra);
const kafkaBrokers = list(process.env.FERRY_TEST_KAFKA ?? defaults.kafka);
const localDataCenter = process.env.FERRY_TEST_CASSANDRA_DC ?? defaults.dataCenter;
const replication = process.env.FERRY_TEST_CASSANDRA_REPLICATION ?? defaults.replication;
const kafkaReplicationFactor = Number(process.env.FERRY_TEST_KAFKA_REPLICATION_FACTOR ?? defaults.kafkaReplication);

export const infra = {
  topology: TEST_TOPOLOGY,
  cassandra: {
    /** The first contact point (the one a single-node test stops or watches). */
    contactPoint: cassandraContactPoints[0]!,
    contactPoints: cassandraContactPoints,
    localDataCenter,
    /** The replication map of the keyspaces tests create (`ferry migrate`'s FERRY_CASSANDRA_REPLICATION). */
    replication,
    /** How tests reach `keyspace`. */
    connection: (keyspace: string) => ({
      contactPoints: [...cassandraContactPoints],
      localDataCenter,
      keyspace,
      replication,
    }),
  },
  kafka: {
    brokers: kafkaBrokers,
    /** The replication factor of the work topics tests create (`ferry migrate`'s FERRY_KAFKA_REPLICATION_FACTOR). */
    replicationFactor: kafkaReplicationFactor,
  },
} as const;

/**
 * Runs `bash test/infra/infra.sh <args>` and resolves with its output once it
 * has exited 0; rejects with the output otherwise. For example
 * `await infraCommand('kill', 'cassandra')`, then `infraCommand('start', 'cassandra')`
 * and `infraCommand('wait', 'cassandra')`. The services it starts outlive the
 * command (and the test run) until `infraCommand('down')`.
 */
export function infraCommand(...args: string[]): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('bash', [SCRIPT, ...args], { cwd: ROOT, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    // 'close', not 'exit': it fires once the pipes are drained, so the output is complete.
    child.once('close', (code, signal) => {
      if (code === 0) resolvePromise(output);
      else reject(new Error(`infra.sh ${args.join(' ')} failed (${signal ?? `exit ${code}`}):\n${output}`));
    });
  });
}

/**
 * Runs `bash test/infra/infra.sh cluster <action> [node]` on the three-node clusters: `kill` (SIGKILL), `stop` (clean
 * shutdown), `start`, `freeze` (SIGSTOP), `thaw` (SIGCONT) one node; `wait` until every node is ready again; `up`
 * starts whatever is down, then waits; `status` rejects unless every node is up.
 */
export function clusterCommand(action: 'start' | 'stop' | 'kill' | 'freeze' | 'thaw', node: ClusterNode): Promise<string>;
export function clusterCommand(action: 'up' | 'wait' | 'status'): Promise<string>;
export function clusterCommand(action: string, node?: ClusterNode): Promise<string> {
  return infraCommand('cluster', action, ...(node ? [node] : []));
}

function parseAddress(address: string): { host: string; port: number } {
  const colon = address.lastIndexOf(':');
  return { host: address.slice(0, colon), port: Number(address.slice(colon + 1)) };
}

function canConnect(address: string, timeoutMs: number): Promise<boolean> {
  const { host, port } = parseAddress(address);
  return new Promise((resolvePromise) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolvePromise(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * True when both the Cassandra contact point and the first Kafka broker accept
 * TCP connections (e.g. to skip integration suites when nothing runs). It does
 * not prove they are ready to serve: `infraCommand('wait', service)` does.
 */
export async function isInfraUp(timeoutMs = 1000): Promise<boolean> {
  const kafka = infra.kafka.brokers[0];
  if (kafka === undefined) return false;
  const [cassandraOk, kafkaOk] = await Promise.all([
    canConnect(infra.cassandra.contactPoint, timeoutMs),
    canConnect(kafka, timeoutMs),
  ]);
  return cassandraOk && kafkaOk;
}
