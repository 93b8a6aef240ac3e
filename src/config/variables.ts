import { availableParallelism } from 'node:os';

/** One environment variable Ferry reads. */
export interface ConfigVariable {
  readonly name: `FERRY_${string}`;
  /**
   * Used when the variable is unset or empty. null: unset means "not given" (the feature is off, or a store
   * keeps its own default). A function: a default that depends on the machine.
   */
  readonly fallback: string | null | (() => string);
  readonly description: string;
  /** Masked wherever the configuration is shown. */
  readonly secret?: true;
  /** Read only with FERRY_BACKEND=cassandra; known, and unused, on the embedded backend. */
  readonly distributedOnly?: true;
}

/**
 * A delivery thread where a second core can run it: there it takes TLS and socket work off the event loop that
 * also serves the API and the engine, which keeps delivery throughput steadier under load. On one core it would
 * only add hand-overs between threads.
 */
function defaultDeliveryThreads(): string {
  return availableParallelism() > 1 ? '1' : '0';
}

const distributed = { distributedOnly: true } as const;

/**
 * Every variable, once. The loader reads values only through this list, the start-up check refuses any other
 * FERRY_* name, `ferry config` shows it, and a test holds the README's table to it: a key added here is
 * documented and checked, and a key cannot be read without being added here.
 */
export const CONFIG_VARIABLES = [
  { name: 'FERRY_BACKEND', fallback: 'embedded', description: 'embedded (one SQLite file) or cassandra (Cassandra and Kafka)' },
  { name: 'FERRY_DATA_DIR', fallback: './.data', description: 'directory of the embedded database' },
  { name: 'FERRY_HOST', fallback: '127.0.0.1', description: 'address every listener binds to' },
  { name: 'FERRY_HTTP_PORT', fallback: '8080', description: 'JSON HTTP API and Connect over HTTP/1.1; 0 picks a free port' },
  { name: 'FERRY_GRPC_PORT', fallback: '8081', description: 'gRPC and Connect over HTTP/2; 0 picks a free port' },
  { name: 'FERRY_TLS_CERT_FILE', fallback: null, description: 'PEM certificate; with FERRY_TLS_KEY_FILE, both ports serve TLS' },
  { name: 'FERRY_TLS_KEY_FILE', fallback: null, description: 'PEM private key of FERRY_TLS_CERT_FILE' },
  { name: 'FERRY_ALLOW_PRIVATE_DESTINATIONS', fallback: 'false', description: 'accept loopback and private destinations (development and tests only)' },
  { name: 'FERRY_AUTH_CACHE_MS', fallback: '5000', description: 'how long a verified API key is trusted before it is looked up again' },
  { name: 'FERRY_SCHEDULE_LEAD_MS', fallback: '10000', description: "how long before its instant a schedule's occurrence is enqueued" },
  { name: 'FERRY_ROLES', fallback: 'api,delivery', description: 'what the process does: api, delivery, or both' },
  { name: 'FERRY_DELIVERY_MAX_IN_FLIGHT', fallback: '512', description: 'attempts in flight at once, overall' },
  { name: 'FERRY_DELIVERY_MAX_PER_HOST', fallback: '64', description: 'exchanges open at once with one destination host' },
  { name: 'FERRY_DELIVERY_MAX_PER_QUEUE', fallback: '256', description: 'attempts in flight at once for one (project, queue)' },
  { name: 'FERRY_RETRY_BASE_MS', fallback: '1000', description: 'backoff ceiling after the first failed attempt' },
  { name: 'FERRY_RETRY_CAP_MS', fallback: '3600000', description: 'largest backoff ceiling' },
  { name: 'FERRY_RETRY_AFTER_CAP_MS', fallback: '3600000', description: 'largest delay a Retry-After header can ask for' },
  { name: 'FERRY_SHUTDOWN_GRACE_MS', fallback: '10000', description: 'how long SIGTERM waits for attempts in flight' },
  { name: 'FERRY_DELIVERY_CA_FILE', fallback: null, description: 'extra PEM CA certificates trusted for destinations' },
  { name: 'FERRY_DELIVERY_IDLE_POLL_MS', fallback: '1000', description: 'longest wait between looks at storage when nothing is known to be due' },
  { name: 'FERRY_BULK_BATCH_SIZE', fallback: '50', description: 'requests a bulk action acts on per batch; its progress is stored after each' },
  { name: 'FERRY_BULK_PAUSE_MS', fallback: '100', description: 'pause after each batch of a bulk action, leaving the API its share of storage' },
  { name: 'FERRY_DELIVERY_THREADS', fallback: defaultDeliveryThreads, description: 'threads for the HTTP side of attempts; 0 runs it on the main thread' },
  { name: 'FERRY_LOG_LEVEL', fallback: 'info', description: 'fatal, error, warn, info, debug, trace or silent' },
  { name: 'FERRY_METRICS_ENABLED', fallback: 'true', description: 'serve /metrics and collect what it shows' },
  { name: 'FERRY_CONSOLE_ENABLED', fallback: 'true', description: 'serve the web console at /console/ on the HTTP port' },
  { name: 'FERRY_CORS_ORIGINS', fallback: null, description: 'comma-separated origins (https://app.example.com) whose browser pages may call the API, or * for any; unset: none' },
  { name: 'FERRY_METRICS_PORT', fallback: null, description: 'unset: /metrics on the HTTP port; set: a listener of its own (0 picks a free port)' },
  { name: 'FERRY_SHARDS', fallback: '12', description: 'shards of delivery work = partitions of the work topic', ...distributed },
  {
    name: 'FERRY_PLACEMENT',
    fallback: 'spread',
    description: 'spread: requests without flow keys go to the shard their ID falls in; local: those in queues without limits go to shards of the process that accepted them',
    ...distributed,
  },
  { name: 'FERRY_CASSANDRA_CONTACT_POINTS', fallback: '127.0.0.1:9042', description: 'comma-separated host[:port] of Cassandra nodes', ...distributed },
  { name: 'FERRY_CASSANDRA_LOCAL_DC', fallback: 'datacenter1', description: 'the local datacenter', ...distributed },
  { name: 'FERRY_CASSANDRA_KEYSPACE', fallback: 'ferry', description: 'keyspace (lowercase letters, digits, _)', ...distributed },
  {
    name: 'FERRY_CASSANDRA_REPLICATION',
    fallback: "{'class': 'SimpleStrategy', 'replication_factor': 1}",
    description: 'replication map used when ferry migrate creates the keyspace',
    ...distributed,
  },
  { name: 'FERRY_CASSANDRA_USERNAME', fallback: null, description: 'Cassandra password authentication: user', ...distributed },
  { name: 'FERRY_CASSANDRA_PASSWORD', fallback: null, description: 'Cassandra password authentication: password', secret: true, ...distributed },
  { name: 'FERRY_CASSANDRA_TLS', fallback: 'false', description: 'TLS to Cassandra', ...distributed },
  { name: 'FERRY_CASSANDRA_CA_FILE', fallback: null, description: 'extra PEM CA certificates trusted for Cassandra', ...distributed },
  { name: 'FERRY_CLAIM_STORED_AFTER_MS', fallback: null, description: 'how long a claim waits in the claiming process before it is stored; unset: 3000', ...distributed },
  { name: 'FERRY_KAFKA_BROKERS', fallback: '127.0.0.1:9092', description: 'comma-separated bootstrap brokers', ...distributed },
  { name: 'FERRY_KAFKA_TOPIC', fallback: 'ferry.work', description: 'the work topic', ...distributed },
  { name: 'FERRY_KAFKA_GROUP', fallback: 'ferry-delivery', description: 'the consumer group of delivering processes', ...distributed },
  { name: 'FERRY_KAFKA_CLIENT_ID', fallback: 'ferry', description: 'client ID reported to Kafka', ...distributed },
  { name: 'FERRY_KAFKA_REPLICATION_FACTOR', fallback: '1', description: 'replication factor when ferry migrate creates the topic', ...distributed },
  { name: 'FERRY_KAFKA_SESSION_TIMEOUT_MS', fallback: '10000', description: 'a silent process loses its shards after this long', ...distributed },
  { name: 'FERRY_KAFKA_TLS', fallback: 'false', description: 'TLS to Kafka', ...distributed },
  { name: 'FERRY_KAFKA_CA_FILE', fallback: null, description: 'extra PEM CA certificates trusted for Kafka', ...distributed },
  { name: 'FERRY_KAFKA_SASL_MECHANISM', fallback: null, description: 'SASL plain, scram-sha-256 or scram-sha-512', ...distributed },
  { name: 'FERRY_KAFKA_SASL_USERNAME', fallback: null, description: 'SASL user', ...distributed },
  { name: 'FERRY_KAFKA_SASL_PASSWORD', fallback: null, description: 'SASL password', secret: true, ...distributed },
  {
    name: 'FERRY_ADDRESS_MAP',
    fallback: null,
    description: 'comma-separated from=to pairs of host:port: a Cassandra node or Kafka broker known as from is reached at to',
    ...distributed,
  },
] as const satisfies readonly ConfigVariable[];

export type VariableName = (typeof CONFIG_VARIABLES)[number]['name'];

const BY_NAME: ReadonlyMap<string, ConfigVariable> = new Map(CONFIG_VARIABLES.map((v) => [v.name, v]));

export function configVariable(name: string): ConfigVariable | undefined {
  return BY_NAME.get(name);
}

/** The value a variable takes when unset, or undefined when unset means "not given". */
export function fallbackOf(variable: ConfigVariable): string | undefined {
  const f = variable.fallback;
  return typeof f === 'function' ? f() : (f ?? undefined);
}
