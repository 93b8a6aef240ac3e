import { openCassandraBackend, type CassandraBackend } from '../../src/adapters/cassandra/backend.js';
import { infra } from '../support/infra.js';
import { describeBackendContracts } from './suite/all.js';
import { ReusedKeyspaces, holdingEveryShard } from './suite/scratch-cassandra.js';

// Every test gets empty storage of its own: the ports promise fresh storage, and claims span all projects.
const keyspaces = new ReusedKeyspaces('ferry_ct');

const connection = (keyspace: string) => ({
  ...infra.cassandra.connection(keyspace),
  shardCount: 8,
  // The port's claims are stored at once; claims held in the process are tested in cassandra-held-claims.
  claimStoredAfterMs: 0,
  epochs: holdingEveryShard(),
});

const makeBackend = async (): Promise<CassandraBackend> => {
  const reused = keyspaces.reuse();
  const backend = await openCassandraBackend({ ...connection(reused ?? keyspaces.fresh()), migrate: reused === undefined });
  return {
    ...backend,
    close: async () => {
      await keyspaces.release(backend);
      await backend.close();
    },
  };
};
const makeStorage = async () => {
  const keyspace = keyspaces.fresh();
  let first = true;
  return {
    open: async () => {
      const backend = await openCassandraBackend({ ...connection(keyspace), migrate: first });
      first = false;
      return backend;
    },
  };
};

describeBackendContracts(makeBackend, makeStorage);
