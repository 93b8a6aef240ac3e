/* global process, console, setTimeout */
// Readiness probe for the test infrastructure, run by `infra.sh wait <service>`.
//
//   node test/infra/probe.mjs cassandra|kafka <host:port> <pid> <timeout seconds>
//
// An open port is not enough: Kafka opens its listener before it has caught up
// with its own metadata, and a Cassandra port can accept while the node still
// refuses queries. So the probe asks each service a real question with the
// same client library the tests use, and retries until it answers:
//   cassandra: SELECT release_version FROM system.local
//   kafka:     DescribeCluster must list at least one broker
// It gives up early when the JVM (pid) is gone, so a crash at start-up fails
// in a second instead of after the whole timeout.
//
// Plain JavaScript (no tsx) so it starts in tens of milliseconds.
// Exit codes: 0 ready, 1 timed out, 2 process gone, 64 bad usage.

import { alive } from './process-alive.mjs';
import net from 'node:net';

const [service, address, pidArg, timeoutArg] = process.argv.slice(2);
if (!['cassandra', 'kafka'].includes(service) || !address || !pidArg || !timeoutArg) {
  console.error('usage: probe.mjs cassandra|kafka <host:port> <pid> <timeout seconds>');
  process.exit(64);
}
const [host, portText] = address.split(':');
const port = Number(portText);
const pid = Number(pidArg);
const deadline = Date.now() + Number(timeoutArg) * 1000;
let lastError = 'no attempt yet';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Cheap check first, so the client libraries are not set up (and do not log)
// while nothing listens yet.
function portOpen() {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (open) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

async function askCassandra() {
  const { default: cassandra } = await import('cassandra-driver');
  const client = new cassandra.Client({
    contactPoints: [address],
    localDataCenter: 'datacenter1',
    socketOptions: { connectTimeout: 2000, readTimeout: 5000 },
  });
  try {
    await client.connect();
    const result = await client.execute('SELECT release_version FROM system.local');
    return `Cassandra ${result.first().get('release_version')}`;
  } finally {
    await client.shutdown().catch(() => {});
  }
}

async function askKafka() {
  const { default: kafkajs } = await import('kafkajs');
  const { Kafka, logLevel } = kafkajs;
  const kafka = new Kafka({
    clientId: 'ferry-infra-probe',
    brokers: [address],
    logLevel: logLevel.NOTHING,
    connectionTimeout: 2000,
    requestTimeout: 5000,
    retry: { retries: 0 },
  });
  const admin = kafka.admin();
  try {
    await admin.connect();
    const cluster = await admin.describeCluster();
    if (cluster.brokers.length === 0) throw new Error('no broker registered yet');
    return `Kafka cluster ${cluster.clusterId}, broker(s) ${cluster.brokers.map((b) => b.nodeId).join(',')}`;
  } finally {
    await admin.disconnect().catch(() => {});
  }
}

const ask = service === 'cassandra' ? askCassandra : askKafka;

while (Date.now() < deadline) {
  if (!alive(pid)) {
    console.error(`${service}: process ${pid} is gone (last probe error: ${lastError})`);
    process.exit(2);
  }
  if (await portOpen()) {
    try {
      console.log(await ask());
      process.exit(0);
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
    }
  } else {
    lastError = `${address} does not accept connections`;
  }
  await sleep(500);
}
console.error(`${service}: not ready after ${timeoutArg}s (last probe error: ${lastError})`);
process.exit(1);
