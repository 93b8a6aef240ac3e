import { afterAll } from 'vitest';
import { openCassandraBackend, type CassandraBackend } from '../../src/adapters/cassandra/backend.js';
import { CassandraSession } from '../../src/adapters/cassandra/session.js';
import { infra } from '../support/infra.js';
import { describeBackendContracts } from './suite/all.js';

// Every test gets a keyspace of its own: the ports promise fresh, empty storage, and claims span all projects.
const run = `${process.pid}_${Date.now().toString(36)}`;
let keyspaces = 0;
const created: string[] = [];

const connection = (keyspace: string) => ({
  ...infra.cassandra.connection(keyspace),
  shardCount: 8,
  // The port's claims are stored at once; claims held in the process are tested in cassandra-held-claims.
  claimStoredAfterMs: 0,
});

const freshKeyspace = () => {
  const name = `ferry_ct_${run}_${++keyspaces}`;
  created.push(name);
  return name;
};

// Keyspaces are reused: emptied when a test closes its backend, then handed to the next test. Creating one per
// test would leave hundreds of tables, and each costs the node heap.
const idle: string[] = [];

async function emptyKeyspace(backend: CassandraBackend): Promise<void> {
  const ks = backend.session.keyspace;
  const tables = await backend.session.read('SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?', [ks], 'listing');
  for (const row of tables.rows) {
    const table = String(row['table_name']);
    if (table !== 'schema_migrations') await backend.session.execute(`TRUNCATE ${ks}.${table}`, [], 'emptying a test table');
  }
}

const makeBackend = async (): Promise<CassandraBackend> => {
  const reused = idle.pop();
  const backend = await openCassandraBackend({ ...connection(reused ?? freshKeyspace()), migrate: reused === undefined });
  return {
    ...backend,
    close: async () => {
      await emptyKeyspace(backend);
      await backend.close();
      idle.push(backend.session.keyspace);
    },
  };
};
const makeStorage = async () => {
  const keyspace = freshKeyspace();
  let first = true;
  return {
    open: async () => {
      const backend = await openCassandraBackend({ ...connection(keyspace), migrate: first });
      first = false;
      return backend;
    },
  };
};

afterAll(async () => {
  const session = await CassandraSession.connect(connection('system'));
  try {
    for (const ks of created) await session.execute(`DROP KEYSPACE IF EXISTS ${ks}`, [], 'dropping a test keyspace');
  } finally {
    await session.close();
  }
}, 120_000);

describeBackendContracts(makeBackend, makeStorage);
