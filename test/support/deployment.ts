import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import { openCassandraBackend } from '../../src/adapters/cassandra/backend.js';
import { openEmbeddedBackend } from '../../src/adapters/embedded/backend.js';
import { ensureWorkTopic } from '../../src/adapters/kafka/topic.js';
import type { Backend } from '../../src/ports/backend.js';
import { infra } from './infra.js';
import { borrowKeyspace, dropKeyspaces, type KeyspaceLease } from './keyspace-pool.js';

const execFileAsync = promisify(execFile);
const CLI = join(resolve(import.meta.dirname, '../..'), 'dist/cli/main.js');

/**
 * Which backend the black-box tests run against: `FERRY_TEST_BACKEND=cassandra` runs the very same tests on
 * Cassandra and Kafka (started by `test/infra/infra.sh`). Each test data directory then stands for a deployment
 * of its own: its own keyspace (lent by the pool of `keyspace-pool.ts`, empty), work topic and consumer group.
 */
export type TestBackend = 'embedded' | 'cassandra';
export const TEST_BACKEND: TestBackend = process.env.FERRY_TEST_BACKEND === 'cassandra' ? 'cassandra' : 'embedded';

export const TEST_SHARDS = 6;

/**
 * This process's environment for a child it starts, without the variables that steer the tests themselves
 * (FERRY_TEST_*, and FERRY_INFRA_* of test/infra): `ferry` refuses every FERRY_* name it does not know.
 */
export function childEnv(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('FERRY_TEST_') && !name.startsWith('FERRY_INFRA_')) env[name] = value;
  }
  return { ...env, ...extra };
}

function deploymentName(dataDir: string): string {
  return createHash('sha256').update(dataDir).digest('hex').slice(0, 16);
}

/**
 * The environment that points a `ferry` process at the deployment of `dataDir`. `backend` is given only where the
 * caller is no test file of a project (a global set-up serving both).
 */
export function backendEnv(dataDir: string, backend: TestBackend = TEST_BACKEND): Record<string, string> {
  if (backend === 'embedded') return { FERRY_DATA_DIR: dataDir };
  const name = deploymentName(dataDir);
  return {
    FERRY_DATA_DIR: dataDir,
    FERRY_BACKEND: 'cassandra',
    FERRY_SHARDS: String(TEST_SHARDS),
    FERRY_CASSANDRA_CONTACT_POINTS: infra.cassandra.contactPoints.join(','),
    FERRY_CASSANDRA_LOCAL_DC: infra.cassandra.localDataCenter,
    FERRY_CASSANDRA_KEYSPACE: pooledKeyspace(dataDir) ?? `ferry_t_${name}`,
    FERRY_CASSANDRA_REPLICATION: infra.cassandra.replication,
    FERRY_KAFKA_BROKERS: infra.kafka.brokers.join(','),
    FERRY_KAFKA_REPLICATION_FACTOR: String(infra.kafka.replicationFactor),
    FERRY_KAFKA_TOPIC: `ferry.t.${name}`,
    FERRY_KAFKA_GROUP: `ferry-t-${name}`,
    FERRY_KAFKA_SESSION_TIMEOUT_MS: '6000',
  };
}

/** The file in a data directory naming the pooled keyspace its deployment was lent. */
const POOLED = '.pooled-keyspace';

function pooledKeyspace(dataDir: string): string | null {
  try {
    return readFileSync(join(dataDir, POOLED), 'utf8');
  } catch {
    return null;
  }
}


/** The distributed deployments this process prepared, by data directory: a pooled keyspace's lease, or null for one of its own. */
const prepared = new Map<string, KeyspaceLease | null>();

/**
 * Makes the deployment's storage ready once per data directory, as `ferry migrate` would: on Cassandra a keyspace
 * lent by the pool (migrated and empty) when one is free, else one of its own migrated by the CLI, and the work
 * topic. The embedded file creates itself.
 */
export function prepareStorage(dataDir: string, backend: TestBackend = TEST_BACKEND): Promise<void> {
  if (backend === 'embedded') return Promise.resolve();
  // Processes started side by side on one deployment must all get the keyspace the first call borrows.
  let preparing = preparations.get(dataDir);
  if (!preparing) {
    preparing = prepareOnce(dataDir, backend);
    preparations.set(dataDir, preparing);
    preparing.catch(() => preparations.delete(dataDir));
  }
  return preparing;
}

const preparations = new Map<string, Promise<void>>();

async function prepareOnce(dataDir: string, backend: TestBackend): Promise<void> {
  const marker = join(dataDir, '.migrated');
  if (existsSync(marker)) return;
  const lease = await borrowKeyspace();
  prepared.set(dataDir, lease);
  if (lease) {
    writeFileSync(join(dataDir, POOLED), lease.keyspace);
    // Patient: on a busy machine the broker may take longer than the default retries to elect the new topic's leaders.
    const kafka = new Kafka({ brokers: [...infra.kafka.brokers], logLevel: logLevel.NOTHING, retry: { retries: 12, maxRetryTime: 5_000 } });
    await ensureWorkTopic(kafka, backendEnv(dataDir, backend).FERRY_KAFKA_TOPIC!, TEST_SHARDS, infra.kafka.replicationFactor);
  } else {
    await execFileAsync(process.execPath, [CLI, 'migrate'], { env: childEnv(backendEnv(dataDir, backend)) });
  }
  writeFileSync(marker, '');
}

/**
 * Ends the distributed deployments this test process prepared (`only` those of these data directories): their
 * topics are deleted, their keyspaces given back to the pool or dropped. Each table costs the shared Cassandra
 * node heap, so keyspaces must not pile up across runs.
 */
export async function dropDeployments(only?: readonly string[]): Promise<void> {
  const dirs = [...prepared.keys()].filter((d) => !only || only.includes(d));
  const leases = dirs.map((d) => prepared.get(d));
  for (const d of dirs) {
    prepared.delete(d);
    preparations.delete(d);
  }
  if (dirs.length === 0) return;
  // A pooled keyspace goes back to the pool (emptied when lent next); one of the deployment's own is dropped.
  for (const lease of leases) lease?.release();
  await dropKeyspaces(dirs.filter((_, i) => !leases[i]).map((dir) => backendEnv(dir, 'cassandra').FERRY_CASSANDRA_KEYSPACE!));
  const admin = new Kafka({ brokers: [...infra.kafka.brokers], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    await admin.deleteTopics({ topics: dirs.map((d) => backendEnv(d, 'cassandra').FERRY_KAFKA_TOPIC!) });
  } finally {
    await admin.disconnect();
  }
}

/**
 * Opens the deployment's storage directly, for tests that set up or inspect state behind the API. In distributed
 * mode it changes requests as their shards' owner would, under an epoch above any a test deployment reaches: only
 * for deployments where no process delivers, or whose deliverers the test means to overrule.
 */
export async function openTestBackend(dataDir: string): Promise<Backend> {
  if (TEST_BACKEND === 'embedded') return openEmbeddedBackend({ path: join(dataDir, 'ferry.db') });
  const env = backendEnv(dataDir);
  const since = Date.now();
  return openCassandraBackend({
    ...infra.cassandra.connection(env.FERRY_CASSANDRA_KEYSPACE!),
    shardCount: TEST_SHARDS,
    epochs: { held: () => ({ epoch: TEST_OWNER_EPOCH, since, heldFrom: TEST_OWNER_EPOCH }) },
  });
}

/** The shard epoch of `openTestBackend`'s changes: far above the epochs test deployments take. */
const TEST_OWNER_EPOCH = 1_000_000;

/** Everything the deployment has stored, as raw bytes: the embedded files, or every Cassandra row as JSON. */
export async function storedBytes(dataDir: string): Promise<Buffer[]> {
  if (TEST_BACKEND === 'embedded') {
    const { readdirSync, readFileSync } = await import('node:fs');
    return readdirSync(dataDir).map((n) => readFileSync(join(dataDir, n)));
  }
  const backend = (await openTestBackend(dataDir)) as Awaited<ReturnType<typeof openCassandraBackend>>;
  try {
    const ks = backend.session.keyspace;
    const tables = await backend.session.read('SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?', [ks], 'listing tables');
    const dumps: Buffer[] = [];
    for (const t of tables.rows) {
      const rows = await backend.session.read(`SELECT JSON * FROM ${ks}.${String(t['table_name'])}`, [], 'dumping a table');
      dumps.push(Buffer.from(rows.rows.map((r) => String(r['[json]'])).join('\n')));
    }
    return dumps;
  } finally {
    await backend.close();
  }
}
