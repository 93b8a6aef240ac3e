import { readFileSync } from 'node:fs';
import { connect, isIP, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { Kafka, logLevel, type ISocketFactory, type SASLOptions } from 'kafkajs';
import { findLostGroupCoordinators } from './coordinator-fix.js';
import { skipIdleRequestQueueChecks } from './request-queue-fix.js';

/** How to reach a Kafka cluster; every field comes from the service configuration. */
export interface KafkaConnection {
  readonly brokers: readonly string[];
  readonly clientId: string;
  /** Connect with TLS; `caFile` adds a CA to trust beside the system store. */
  readonly tls: { readonly caFile: string | null } | null;
  readonly sasl: { readonly mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512'; readonly username: string; readonly password: string } | null;
  /** Where to connect instead, by the `host:port` a bootstrap broker or the cluster names a broker by (NAT, a proxy). */
  readonly addressMap?: ReadonlyMap<string, string> | undefined;
}

export type KafkaLog = (level: 'info' | 'warn' | 'error', message: string, fields: Record<string, unknown>) => void;

/** A client whose own log lines (warnings and errors only) go to the service log. */
export function createKafka(c: KafkaConnection, log: KafkaLog): Kafka {
  skipIdleRequestQueueChecks();
  findLostGroupCoordinators();
  return new Kafka({
    clientId: c.clientId,
    brokers: [...c.brokers],
    ...(c.tls ? { ssl: c.tls.caFile ? { ca: [readFileSync(c.tls.caFile, 'utf8')] } : true } : {}),
    ...(c.sasl ? { sasl: { ...c.sasl } as SASLOptions } : {}),
    ...(c.addressMap && c.addressMap.size > 0 ? { socketFactory: mappedSockets(c.addressMap) } : {}),
    connectionTimeout: 3_000,
    requestTimeout: 10_000,
    retry: { retries: 5, initialRetryTime: 200, maxRetryTime: 5_000 },
    logLevel: logLevel.WARN,
    logCreator: () => (entry) => {
      const { message, ...fields } = entry.log;
      log(entry.level <= logLevel.ERROR ? 'error' : 'warn', `kafka: ${message}`, { namespace: entry.namespace, ...fields });
    },
  });
}

/** kafkajs's own socket factory (keep-alive, TLS with the broker's name), each connection sent where the map says. */
function mappedSockets(map: ReadonlyMap<string, string>): ISocketFactory {
  return ({ host, port, ssl, onConnect }) => {
    const to = map.get(`${host}:${port}`);
    const at = to === undefined ? { host, port } : splitHostPort(to);
    // TLS still checks the certificate against the name the broker is known by, not the address reached.
    const socket: Socket = ssl
      ? connectTls({ ...at, ...(isIP(host) ? {} : { servername: host }), ...ssl }, onConnect)
      : connect(at, onConnect);
    socket.setKeepAlive(true, 60_000);
    return socket;
  };
}

function splitHostPort(endpoint: string): { host: string; port: number } {
  const colon = endpoint.lastIndexOf(':');
  return { host: endpoint.slice(0, colon).replace(/^\[|\]$/g, ''), port: Number(endpoint.slice(colon + 1)) };
}
