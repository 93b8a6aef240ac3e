import { readFileSync } from 'node:fs';
import { Kafka, logLevel, type SASLOptions } from 'kafkajs';
import { skipIdleRequestQueueChecks } from './request-queue-fix.js';

/** How to reach a Kafka cluster; every field comes from the service configuration. */
export interface KafkaConnection {
  readonly brokers: readonly string[];
  readonly clientId: string;
  /** Connect with TLS; `caFile` adds a CA to trust beside the system store. */
  readonly tls: { readonly caFile: string | null } | null;
  readonly sasl: { readonly mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512'; readonly username: string; readonly password: string } | null;
}

export type KafkaLog = (level: 'info' | 'warn' | 'error', message: string, fields: Record<string, unknown>) => void;

/** A client whose own log lines (warnings and errors only) go to the service log. */
export function createKafka(c: KafkaConnection, log: KafkaLog): Kafka {
  skipIdleRequestQueueChecks();
  return new Kafka({
    clientId: c.clientId,
    brokers: [...c.brokers],
    ...(c.tls ? { ssl: c.tls.caFile ? { ca: [readFileSync(c.tls.caFile, 'utf8')] } : true } : {}),
    ...(c.sasl ? { sasl: { ...c.sasl } as SASLOptions } : {}),
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
