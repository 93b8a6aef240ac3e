import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';

/**
 * The service configuration: typed, validated once at boot and frozen. This module is the only reader of
 * `process.env`; every key is listed in the README with its default.
 */
export interface Config {
  /** `embedded`: one SQLite file, one process. `cassandra`: Cassandra storage with Kafka-partitioned work. */
  readonly backend: 'embedded' | 'cassandra';
  /** Directory of the embedded database. */
  readonly dataDir: string;
  /** Set when `backend` is `cassandra`. */
  readonly distributed: DistributedConfig | null;
  readonly host: string;
  /** HTTP/1.1 port: JSON HTTP API and the Connect protocol (and gRPC too when TLS is on). */
  readonly httpPort: number;
  /** HTTP/2 port: gRPC and the Connect protocol. */
  readonly grpcPort: number;
  readonly tls: { readonly certFile: string; readonly keyFile: string } | null;
  /** Lets destinations resolve to loopback and private addresses; for local development and tests only. */
  readonly allowPrivateDestinations: boolean;
  /** How long a verified API key is trusted before it is looked up again (so a revocation applies within it). */
  readonly authCacheMs: number;
  /** How long before its instant a schedule's occurrence is enqueued, as a request scheduled for the instant. */
  readonly scheduleLeadMs: number;
  /** What this process does: serve the API, deliver requests, or both. */
  readonly roles: { readonly api: boolean; readonly delivery: boolean };
  readonly delivery: DeliveryConfig;
}

export interface DeliveryConfig {
  readonly maxInFlight: number;
  readonly maxPerHost: number;
  readonly maxPerQueue: number;
  readonly retryBaseMs: number;
  readonly retryCapMs: number;
  readonly retryAfterCapMs: number;
  /** How long SIGTERM waits for attempts in flight before handing them back. */
  readonly shutdownGraceMs: number;
  /** Extra CA certificates (PEM) trusted for destinations, besides the system store. */
  readonly caFile: string | null;
  readonly idlePollMs: number;
  /** Threads that run the HTTP side of attempts; 0 runs it on the main thread. Default: 1 given two or more cores. */
  readonly threads: number;
}

export interface DistributedConfig {
  /** Shards of delivery and timer work, equal to the work topic's partitions; fixed for a deployment's life. */
  readonly shards: number;
  readonly cassandra: {
    readonly contactPoints: readonly string[];
    readonly localDataCenter: string;
    readonly keyspace: string;
    readonly replication: string;
    readonly username: string | undefined;
    readonly password: string | undefined;
    readonly tls: { readonly caFile: string | undefined } | null;
    /**
     * How long a claim may stay in the claiming process before it is stored; 0 stores each at once. Unset leaves
     * the store's own default (`CLAIM_STORED_AFTER_MS`).
     */
    readonly claimStoredAfterMs: number | undefined;
  };
  readonly kafka: {
    readonly brokers: readonly string[];
    readonly clientId: string;
    readonly topic: string;
    readonly groupId: string;
    /** Replication factor of the work topic when `ferry migrate` creates it. */
    readonly replicationFactor: number;
    /** A process silent this long loses its shards to the others. */
    readonly sessionTimeoutMs: number;
    readonly tls: { readonly caFile: string | null } | null;
    readonly sasl: { readonly mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512'; readonly username: string; readonly password: string } | null;
  };
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

type Env = Readonly<Record<string, string | undefined>>;

export function loadConfig(env: Env = process.env): Config {
  const backend = str(env, 'FERRY_BACKEND', 'embedded');
  if (backend !== 'embedded' && backend !== 'cassandra') {
    throw new ConfigError(`FERRY_BACKEND must be "embedded" or "cassandra", got "${backend}"`);
  }
  const certFile = env.FERRY_TLS_CERT_FILE;
  const keyFile = env.FERRY_TLS_KEY_FILE;
  if ((certFile === undefined) !== (keyFile === undefined)) {
    throw new ConfigError('FERRY_TLS_CERT_FILE and FERRY_TLS_KEY_FILE must be set together');
  }
  return Object.freeze({
    backend,
    dataDir: resolve(str(env, 'FERRY_DATA_DIR', '.data')),
    distributed: backend === 'cassandra' ? distributed(env) : null,
    host: str(env, 'FERRY_HOST', '127.0.0.1'),
    httpPort: port(env, 'FERRY_HTTP_PORT', 8080),
    grpcPort: port(env, 'FERRY_GRPC_PORT', 8081),
    tls: certFile && keyFile ? Object.freeze({ certFile, keyFile }) : null,
    allowPrivateDestinations: bool(env, 'FERRY_ALLOW_PRIVATE_DESTINATIONS', false),
    authCacheMs: int(env, 'FERRY_AUTH_CACHE_MS', 5000, 0, 3_600_000),
    scheduleLeadMs: int(env, 'FERRY_SCHEDULE_LEAD_MS', 10_000, 0, 60_000),
    roles: roles(str(env, 'FERRY_ROLES', 'api,delivery')),
    delivery: Object.freeze({
      maxInFlight: int(env, 'FERRY_DELIVERY_MAX_IN_FLIGHT', 512, 1, 100_000),
      maxPerHost: int(env, 'FERRY_DELIVERY_MAX_PER_HOST', 64, 1, 100_000),
      maxPerQueue: int(env, 'FERRY_DELIVERY_MAX_PER_QUEUE', 256, 1, 100_000),
      retryBaseMs: int(env, 'FERRY_RETRY_BASE_MS', 1000, 1, 3_600_000),
      retryCapMs: int(env, 'FERRY_RETRY_CAP_MS', 3_600_000, 1, 86_400_000),
      retryAfterCapMs: int(env, 'FERRY_RETRY_AFTER_CAP_MS', 3_600_000, 0, 86_400_000),
      shutdownGraceMs: int(env, 'FERRY_SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
      caFile: env.FERRY_DELIVERY_CA_FILE || null,
      idlePollMs: int(env, 'FERRY_DELIVERY_IDLE_POLL_MS', 1000, 10, 60_000),
      threads: int(env, 'FERRY_DELIVERY_THREADS', defaultDeliveryThreads(), 0, 64),
    }),
  });
}

/**
 * A delivery thread where a second core can run it: there it takes TLS and socket work off the event loop that
 * also serves the API and the engine, which keeps delivery throughput steadier under load. On one core it would
 * only add hand-overs between threads.
 */
function defaultDeliveryThreads(): number {
  return availableParallelism() > 1 ? 1 : 0;
}

function str(env: Env, key: string, fallback: string): string {
  const v = env[key];
  return v === undefined || v === '' ? fallback : v;
}

function optionalInt(env: Env, key: string, min: number, max: number): number | undefined {
  return env[key] === undefined || env[key] === '' ? undefined : int(env, key, min, min, max);
}

function int(env: Env, key: string, fallback: number, min: number, max: number): number {
  const v = env[key];
  if (v === undefined || v === '') return fallback;
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
    throw new ConfigError(`${key} must be an integer from ${min} to ${max}, got "${v}"`);
  }
  return Number(v);
}

function port(env: Env, key: string, fallback: number): number {
  return int(env, key, fallback, 0, 65535);
}

function bool(env: Env, key: string, fallback: boolean): boolean {
  const v = env[key];
  if (v === undefined || v === '') return fallback;
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw new ConfigError(`${key} must be true or false, got "${v}"`);
}

function roles(value: string): Config['roles'] {
  const names = value.split(',').map((r) => r.trim()).filter((r) => r !== '');
  for (const n of names) {
    if (n !== 'api' && n !== 'delivery') throw new ConfigError(`FERRY_ROLES takes api and/or delivery, got "${n}"`);
  }
  if (names.length === 0) throw new ConfigError('FERRY_ROLES must name at least one role');
  return Object.freeze({ api: names.includes('api'), delivery: names.includes('delivery') });
}

function list(env: Env, key: string, fallback: string): string[] {
  const items = str(env, key, fallback).split(',').map((x) => x.trim()).filter((x) => x !== '');
  if (items.length === 0) throw new ConfigError(`${key} must list at least one address`);
  return items;
}

function distributed(env: Env): DistributedConfig {
  const mechanism = str(env, 'FERRY_KAFKA_SASL_MECHANISM', '');
  if (mechanism !== '' && mechanism !== 'plain' && mechanism !== 'scram-sha-256' && mechanism !== 'scram-sha-512') {
    throw new ConfigError(`FERRY_KAFKA_SASL_MECHANISM must be plain, scram-sha-256 or scram-sha-512, got "${mechanism}"`);
  }
  const keyspace = str(env, 'FERRY_CASSANDRA_KEYSPACE', 'ferry');
  if (!/^[a-z][a-z0-9_]{0,47}$/.test(keyspace)) {
    throw new ConfigError(`FERRY_CASSANDRA_KEYSPACE must be lowercase letters, digits and underscores, got "${keyspace}"`);
  }
  return Object.freeze({
    shards: int(env, 'FERRY_SHARDS', 12, 1, 1024),
    cassandra: Object.freeze({
      contactPoints: list(env, 'FERRY_CASSANDRA_CONTACT_POINTS', '127.0.0.1:9042'),
      localDataCenter: str(env, 'FERRY_CASSANDRA_LOCAL_DC', 'datacenter1'),
      keyspace,
      replication: str(env, 'FERRY_CASSANDRA_REPLICATION', "{'class': 'SimpleStrategy', 'replication_factor': 1}"),
      username: env.FERRY_CASSANDRA_USERNAME || undefined,
      password: env.FERRY_CASSANDRA_PASSWORD || undefined,
      tls: bool(env, 'FERRY_CASSANDRA_TLS', false) ? Object.freeze({ caFile: env.FERRY_CASSANDRA_CA_FILE || undefined }) : null,
      claimStoredAfterMs: optionalInt(env, 'FERRY_CLAIM_STORED_AFTER_MS', 0, 60_000),
    }),
    kafka: Object.freeze({
      brokers: list(env, 'FERRY_KAFKA_BROKERS', '127.0.0.1:9092'),
      clientId: str(env, 'FERRY_KAFKA_CLIENT_ID', 'ferry'),
      topic: str(env, 'FERRY_KAFKA_TOPIC', 'ferry.work'),
      groupId: str(env, 'FERRY_KAFKA_GROUP', 'ferry-delivery'),
      replicationFactor: int(env, 'FERRY_KAFKA_REPLICATION_FACTOR', 1, 1, 32),
      sessionTimeoutMs: int(env, 'FERRY_KAFKA_SESSION_TIMEOUT_MS', 10_000, 3_000, 300_000),
      tls: bool(env, 'FERRY_KAFKA_TLS', false) ? Object.freeze({ caFile: env.FERRY_KAFKA_CA_FILE || null }) : null,
      sasl:
        mechanism === ''
          ? null
          : Object.freeze({
              mechanism,
              username: str(env, 'FERRY_KAFKA_SASL_USERNAME', ''),
              password: str(env, 'FERRY_KAFKA_SASL_PASSWORD', ''),
            }),
    }),
  });
}
