// Where the integration tests find Cassandra and Kafka, and a handle on
// test/infra/infra.sh for tests that stop, kill or restart them (failover).
//
// Defaults match infra.sh (`npm run infra:up`). To use other servers:
//   FERRY_TEST_CASSANDRA=host:port       one contact point
//   FERRY_TEST_CASSANDRA_DC=name         its local data center (default datacenter1)
//   FERRY_TEST_KAFKA=host:port[,host:port...]
// Without those, the FERRY_INFRA_CASSANDRA_PORT / FERRY_INFRA_KAFKA_PORT overrides that
// infra.sh itself reads are honoured, so both sides agree on the ports.
import { spawn } from 'node:child_process';
import net from 'node:net';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const SCRIPT = join(ROOT, 'test/infra/infra.sh');

export type InfraService = 'cassandra' | 'kafka';

const cassandraContactPoint = process.env.FERRY_TEST_CASSANDRA ?? `127.0.0.1:${process.env.FERRY_INFRA_CASSANDRA_PORT ?? '19042'}`;
const kafkaBrokers = (process.env.FERRY_TEST_KAFKA ?? `127.0.0.1:${process.env.FERRY_INFRA_KAFKA_PORT ?? '19092'}`)
  .split(',')
  .map((broker) => broker.trim())
  .filter((broker) => broker.length > 0);

const localDataCenter = process.env.FERRY_TEST_CASSANDRA_DC ?? 'datacenter1';

export const infra = {
  cassandra: {
    contactPoint: cassandraContactPoint,
    localDataCenter,
    /** How tests reach `keyspace` on the test node (one node: one replica). */
    connection: (keyspace: string) => ({
      contactPoints: [cassandraContactPoint],
      localDataCenter,
      keyspace,
      replication: "{'class': 'SimpleStrategy', 'replication_factor': 1}",
    }),
  },
  kafka: {
    brokers: kafkaBrokers,
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
