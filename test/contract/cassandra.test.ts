import { openCassandraBackend, type CassandraBackend } from '../../src/adapters/cassandra/backend.js';
import { infra } from '../support/infra.js';
import { describeBackendContracts } from './suite/all.js';
import { ReusedKeyspaces, holdingEveryShard } from './suite/scratch-cassandra.js';

// Every test gets empty storage of its own: the ports promise fresh storage, and claims span all projects.
const keyspaces = new ReusedKeyspaces('ferry_ct');

// Every contract runs with each claim stored as it is made; those of claims and of the changes made through them run
// again with claims held in the claiming process, as a deployment runs them by default (`CLAIM_STORED_AFTER_MS`), in
// cassandra-claims-held (a file of its own, so the two run side by side). What only held claims do is tested in
// cassandra-held-claims.
const connection = (keyspace: string, claimStoredAfterMs?: number) => ({
  ...infra.cassandra.connection(keyspace),
  shardCount: 8,
  claimStoredAfterMs,
  epochs: holdingEveryShard(),
});

const makeBackend = async (): Promise<CassandraBackend> => {
  const reused = keyspaces.reuse();
  const backend = await openCassandraBackend({ ...connection(reused ?? keyspaces.fresh(), 0), migrate: reused === undefined });
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
      const backend = await openCassandraBackend({ ...connection(keyspace, 0), migrate: first });
      first = false;
      return backend;
    },
  };
};

describeBackendContracts(makeBackend, makeStorage);
