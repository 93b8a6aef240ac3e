import { resolve } from 'node:path';
import { checkNoUnknownVariables, ConfigError, EnvReader, type Env } from './env-reader.js';
import { CONFIG_VARIABLES, type VariableName } from './variables.js';

export { ConfigError } from './env-reader.js';
export { CONFIG_VARIABLES, type ConfigVariable, type VariableName } from './variables.js';

/**
 * The service configuration: typed, validated once at boot and frozen. This module is the only reader of
 * `process.env`; every key is declared once in `CONFIG_VARIABLES` (variables.ts), which the README's table
 * follows.
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
  /** How long before its instant a schedule's occurrence is enqueued; it is shown only from its instant on. */
  readonly scheduleLeadMs: number;
  /** What this process does: serve the API, deliver requests, or both. */
  readonly roles: { readonly api: boolean; readonly delivery: boolean };
  readonly delivery: DeliveryConfig;
  /** How bulk actions are run: requests per batch, and the pause after each. */
  readonly bulk: { readonly batchSize: number; readonly pauseMs: number };
  readonly log: { readonly level: LogLevel };
  readonly metrics: MetricsConfig;
  /** Serve the web console at `/console/` on the HTTP port (its data still needs an API key). */
  readonly consoleEnabled: boolean;
  /** Which other origins' browser pages may call the JSON and Connect APIs; null: none (same origin only). */
  readonly cors: CorsConfig | null;
  readonly tracing: TracingConfig;
}

/**
 * OpenTelemetry tracing, configured by the standard `OTEL_*` variables rather than Ferry's own: off unless
 * `OTEL_TRACES_EXPORTER` names an exporter or an OTLP endpoint is set, and off whenever `OTEL_SDK_DISABLED=true`.
 * The OTLP exporter reads its endpoint, headers and timeout variables itself.
 */
export interface TracingConfig {
  readonly exporter: 'otlp' | 'console' | null;
  /** `OTEL_SERVICE_NAME`, else `ferry`. */
  readonly serviceName: string;
}

/** Cross-origin access for browsers: each allowed origin as a browser sends it (`https://app.example.com:8443`). */
export interface CorsConfig {
  /** `*`: any origin may call (the API key, never a cookie, is what grants access). */
  readonly anyOrigin: boolean;
  readonly origins: readonly string[];
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface MetricsConfig {
  /** Off: no `/metrics` and no collection. */
  readonly enabled: boolean;
  /** null serves `/metrics` on the HTTP port; a number, a listener of its own on `host` (0 = any free port). */
  readonly port: number | null;
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
  /** Where accepted requests go that no flow key and no queue limit places (`localShardChooser`). */
  readonly placement: 'local' | 'spread';
  readonly cassandra: {
    readonly contactPoints: readonly string[];
    readonly localDataCenter: string;
    readonly keyspace: string;
    readonly replication: string;
    readonly username: string | undefined;
    readonly password: string | undefined;
    readonly tls: { readonly caFile: string | undefined } | null;
    /** `FERRY_ADDRESS_MAP`, shared with `kafka`: see `AddressMap`. */
    readonly addressMap: AddressMap;
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
    readonly addressMap: AddressMap;
  };
}

/**
 * Where to connect instead, by the `host:port` under which a contact point, a bootstrap broker or the cluster itself
 * names a Cassandra node or Kafka broker: for nodes that advertise addresses this process cannot reach directly
 * (NAT, port forwarding, a proxy). Empty: every address as named.
 */
export type AddressMap = ReadonlyMap<string, string>;

export function loadConfig(env: Env = process.env): Config {
  checkNoUnknownVariables(env);
  const read = new EnvReader(env);
  const backend = read.oneOf('FERRY_BACKEND', ['embedded', 'cassandra']);
  if (read.isSet('FERRY_TLS_CERT_FILE') !== read.isSet('FERRY_TLS_KEY_FILE')) {
    throw new ConfigError('FERRY_TLS_CERT_FILE and FERRY_TLS_KEY_FILE must be set together');
  }
  const certFile = read.readableFile('FERRY_TLS_CERT_FILE');
  const keyFile = read.readableFile('FERRY_TLS_KEY_FILE');
  const httpPort = read.port('FERRY_HTTP_PORT');
  const grpcPort = read.port('FERRY_GRPC_PORT');
  const metricsPort = read.isSet('FERRY_METRICS_PORT') ? read.port('FERRY_METRICS_PORT') : null;
  checkDistinctPorts([
    ['FERRY_HTTP_PORT', httpPort],
    ['FERRY_GRPC_PORT', grpcPort],
    ['FERRY_METRICS_PORT', metricsPort],
  ]);
  return Object.freeze({
    backend,
    dataDir: resolve(read.text('FERRY_DATA_DIR')),
    distributed: backend === 'cassandra' ? distributed(read) : null,
    host: read.text('FERRY_HOST'),
    httpPort,
    grpcPort,
    tls: certFile !== null && keyFile !== null ? Object.freeze({ certFile, keyFile }) : null,
    allowPrivateDestinations: read.bool('FERRY_ALLOW_PRIVATE_DESTINATIONS'),
    authCacheMs: read.int('FERRY_AUTH_CACHE_MS', 0, 3_600_000),
    scheduleLeadMs: read.int('FERRY_SCHEDULE_LEAD_MS', 0, 60_000),
    roles: roles(read.text('FERRY_ROLES')),
    delivery: Object.freeze({
      maxInFlight: read.int('FERRY_DELIVERY_MAX_IN_FLIGHT', 1, 100_000),
      maxPerHost: read.int('FERRY_DELIVERY_MAX_PER_HOST', 1, 100_000),
      maxPerQueue: read.int('FERRY_DELIVERY_MAX_PER_QUEUE', 1, 100_000),
      retryBaseMs: read.int('FERRY_RETRY_BASE_MS', 1, 3_600_000),
      retryCapMs: read.int('FERRY_RETRY_CAP_MS', 1, 86_400_000),
      retryAfterCapMs: read.int('FERRY_RETRY_AFTER_CAP_MS', 0, 86_400_000),
      shutdownGraceMs: read.int('FERRY_SHUTDOWN_GRACE_MS', 0, 600_000),
      caFile: read.readableFile('FERRY_DELIVERY_CA_FILE'),
      idlePollMs: read.int('FERRY_DELIVERY_IDLE_POLL_MS', 10, 60_000),
      threads: read.int('FERRY_DELIVERY_THREADS', 0, 64),
    }),
    bulk: Object.freeze({ batchSize: read.int('FERRY_BULK_BATCH_SIZE', 1, 1000), pauseMs: read.int('FERRY_BULK_PAUSE_MS', 0, 60_000) }),
    log: Object.freeze({ level: read.oneOf('FERRY_LOG_LEVEL', LOG_LEVELS) }),
    metrics: Object.freeze({ enabled: read.bool('FERRY_METRICS_ENABLED'), port: metricsPort }),
    consoleEnabled: read.bool('FERRY_CONSOLE_ENABLED'),
    cors: cors(read.optional('FERRY_CORS_ORIGINS')),
    tracing: tracing(env),
  });
}

function tracing(env: Env): TracingConfig {
  const named = (env.OTEL_TRACES_EXPORTER ?? '').trim().toLowerCase();
  if (named !== '' && named !== 'otlp' && named !== 'console' && named !== 'none') {
    throw new ConfigError(`OTEL_TRACES_EXPORTER must be otlp, console or none, got "${env.OTEL_TRACES_EXPORTER}"`);
  }
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const chosen = named === '' ? (endpoint ? 'otlp' : null) : named === 'none' ? null : named;
  const disabled = (env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true';
  return Object.freeze({ exporter: disabled ? null : chosen, serviceName: env.OTEL_SERVICE_NAME || 'ferry' });
}

/**
 * The allowed origins, each checked to be an origin (scheme, host, port; no path, query or credentials) and kept
 * as a browser spells it in `Origin` (lower case, no default port), so the two compare byte for byte.
 */
function cors(value: string | undefined): CorsConfig | null {
  if (value === undefined) return null;
  const items = value.split(',').map((x) => x.trim()).filter((x) => x !== '');
  if (items.length === 0) return null;
  if (items.includes('*')) {
    if (items.length > 1) throw new ConfigError('FERRY_CORS_ORIGINS takes * alone or a list of origins, not both');
    return Object.freeze({ anyOrigin: true, origins: Object.freeze([]) });
  }
  const origins = items.map((item) => {
    const origin = originOf(item);
    if (origin === null) {
      throw new ConfigError(`FERRY_CORS_ORIGINS: "${item}" is not an origin; write scheme://host[:port], such as https://app.example.com, with no path`);
    }
    return origin;
  });
  return Object.freeze({ anyOrigin: false, origins: Object.freeze([...new Set(origins)]) });
}

/** An http(s) URL with nothing after its host and port, as its origin; null for anything else. */
function originOf(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (!/^https?:\/\//i.test(value)) return null;
  // Host and port only (one trailing slash is harmless): no path, query, fragment or credentials.
  const authority = value.slice(value.indexOf('//') + 2).replace(/\/$/, '');
  return /[/?#@\\]/.test(authority) ? null : url.origin;
}

/** One variable as `ferry config` shows it. */
export interface EffectiveSetting {
  /** The value in use (masked when secret); null when unset with no default. */
  readonly value: string | null;
  readonly source: 'environment' | 'default';
}

/**
 * Every variable with the value in use and where it came from, secrets masked. Validates first, so what it shows
 * is a configuration the service would start with.
 */
export function effectiveConfig(env: Env = process.env): Record<VariableName, EffectiveSetting> {
  loadConfig(env);
  const read = new EnvReader(env);
  const entries = CONFIG_VARIABLES.map((v): [VariableName, EffectiveSetting] => {
    const value = read.optional(v.name) ?? null;
    const shown = value !== null && 'secret' in v ? '********' : value;
    return [v.name, { value: shown, source: read.isSet(v.name) ? 'environment' : 'default' }];
  });
  return Object.fromEntries(entries) as Record<VariableName, EffectiveSetting>;
}

/** Two listeners cannot share a port; 0 (any free port) never clashes. */
function checkDistinctPorts(ports: ReadonlyArray<readonly [VariableName, number | null]>): void {
  const seen = new Map<number, VariableName>();
  for (const [name, port] of ports) {
    if (port === null || port === 0) continue;
    const other = seen.get(port);
    if (other !== undefined) throw new ConfigError(`${name}=${port} is also ${other}; each listener needs a port of its own`);
    seen.set(port, name);
  }
}

function roles(value: string): Config['roles'] {
  const names = value.split(',').map((r) => r.trim()).filter((r) => r !== '');
  for (const n of names) {
    if (n !== 'api' && n !== 'delivery') throw new ConfigError(`FERRY_ROLES takes api and/or delivery, got "${n}"`);
  }
  if (names.length === 0) throw new ConfigError('FERRY_ROLES must name at least one role');
  return Object.freeze({ api: names.includes('api'), delivery: names.includes('delivery') });
}

function list(read: EnvReader, name: VariableName): string[] {
  const items = read.text(name).split(',').map((x) => x.trim()).filter((x) => x !== '');
  if (items.length === 0) throw new ConfigError(`${name} must list at least one address`);
  return items;
}

const HOST_PORT = /^(?:\[[0-9a-fA-F:.]+\]|[^\s:=,[\]]+):\d{1,5}$/;

/** `from=to,...`, each side `host:port` (an IPv6 host in brackets). */
function addressMap(text: string | undefined): AddressMap {
  const map = new Map<string, string>();
  for (const pair of (text ?? '').split(',').map((x) => x.trim()).filter((x) => x !== '')) {
    const [from = '', to = '', ...rest] = pair.split('=').map((x) => x.trim());
    if (rest.length > 0 || !HOST_PORT.test(from) || !HOST_PORT.test(to)) {
      throw new ConfigError(`FERRY_ADDRESS_MAP must be comma-separated host:port=host:port pairs, got "${pair}"`);
    }
    if (map.has(from)) throw new ConfigError(`FERRY_ADDRESS_MAP names ${from} twice`);
    map.set(from, to);
  }
  return map;
}

function distributed(read: EnvReader): DistributedConfig {
  const mechanism = read.isSet('FERRY_KAFKA_SASL_MECHANISM')
    ? read.oneOf('FERRY_KAFKA_SASL_MECHANISM', ['plain', 'scram-sha-256', 'scram-sha-512'])
    : null;
  const keyspace = read.text('FERRY_CASSANDRA_KEYSPACE');
  if (!/^[a-z][a-z0-9_]{0,47}$/.test(keyspace)) {
    throw new ConfigError(`FERRY_CASSANDRA_KEYSPACE must be lowercase letters, digits and underscores, got "${keyspace}"`);
  }
  const map = addressMap(read.optional('FERRY_ADDRESS_MAP'));
  return Object.freeze({
    shards: read.int('FERRY_SHARDS', 1, 1024),
    placement: read.oneOf('FERRY_PLACEMENT', ['local', 'spread']),
    cassandra: Object.freeze({
      contactPoints: list(read, 'FERRY_CASSANDRA_CONTACT_POINTS'),
      localDataCenter: read.text('FERRY_CASSANDRA_LOCAL_DC'),
      keyspace,
      replication: read.text('FERRY_CASSANDRA_REPLICATION'),
      username: read.optional('FERRY_CASSANDRA_USERNAME'),
      password: read.optional('FERRY_CASSANDRA_PASSWORD'),
      tls: read.bool('FERRY_CASSANDRA_TLS') ? Object.freeze({ caFile: read.readableFile('FERRY_CASSANDRA_CA_FILE') ?? undefined }) : null,
      claimStoredAfterMs: read.optionalInt('FERRY_CLAIM_STORED_AFTER_MS', 0, 60_000),
      addressMap: map,
    }),
    kafka: Object.freeze({
      brokers: list(read, 'FERRY_KAFKA_BROKERS'),
      clientId: read.text('FERRY_KAFKA_CLIENT_ID'),
      topic: read.text('FERRY_KAFKA_TOPIC'),
      groupId: read.text('FERRY_KAFKA_GROUP'),
      replicationFactor: read.int('FERRY_KAFKA_REPLICATION_FACTOR', 1, 32),
      sessionTimeoutMs: read.int('FERRY_KAFKA_SESSION_TIMEOUT_MS', 3_000, 300_000),
      tls: read.bool('FERRY_KAFKA_TLS') ? Object.freeze({ caFile: read.readableFile('FERRY_KAFKA_CA_FILE') }) : null,
      sasl:
        mechanism === null
          ? null
          : Object.freeze({
              mechanism,
              username: read.optional('FERRY_KAFKA_SASL_USERNAME') ?? '',
              password: read.optional('FERRY_KAFKA_SASL_PASSWORD') ?? '',
            }),
      addressMap: map,
    }),
  });
}
