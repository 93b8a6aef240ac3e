import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createKafka } from '../../src/adapters/kafka/client.js';
import { KafkaReadiness } from '../../src/adapters/kafka/readiness.js';
import { infra } from '../support/infra.js';

const quiet = () => undefined;
const connection = (brokers: readonly string[]) => ({ brokers, clientId: 'ferry-readiness-test', tls: null, sasl: null });

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('KafkaReadiness', () => {
  const opened: KafkaReadiness[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((r) => r.close()));
  });

  it('resolves while the cluster answers, probe after probe on one connection', async () => {
    const readiness = new KafkaReadiness(createKafka(connection(infra.kafka.brokers), quiet));
    opened.push(readiness);
    await readiness.probe();
    await readiness.probe();
  });

  it('rejects when no broker answers, and keeps trying on later probes', async () => {
    const readiness = new KafkaReadiness(createKafka(connection([`127.0.0.1:${await closedPort()}`]), quiet));
    opened.push(readiness);
    await expect(readiness.probe()).rejects.toThrow();
    await expect(readiness.probe()).rejects.toThrow();
  });
});
