import { openCassandraBackend, type CassandraBackend } from '../../src/adapters/cassandra/backend.js';
import { infra } from '../support/infra.js';
import { describeBackendContracts } from './suite/all.js';
import { CONTRACT_SHARDS } from './suite/harness.js';
import { TestKeyspaces, holdingEveryShard } from './suite/scratch-cassandra.js';

// Every test gets empty storage of its own: the ports promise fresh storage, and claims span all projects.
const keyspaces = new TestKeyspaces('ferry_ct');

// Every contract runs with each claim stored as it is made; those of claims and of the changes made through them run
// again with claims held in the claiming process, as a deployment runs them by default (`CLAIM_STORED_AFTER_MS`), in
// cassandra-claims-held (a file of its own, so the two run side by side). What only held claims do is tested in
// cassandra-held-claims.
const connection = (keyspace: string, claimStoredAfterMs?: number) => ({
  ...infra.cassandra.connection(keyspace),
  shardCount: CONTRACT_SHARDS,
  claimStoredAfterMs,
  epochs: holdingEveryShard(),
});

const makeBackend = async (): Promise<CassandraBackend> => {
  const lent = await keyspaces.take();
  const backend = await openCassandraBackend(connection(lent.keyspace, 0));
  return {
    ...backend,
    close: async () => {
      await backend.close();
      await keyspaces.giveBack(lent);
    },
  };
};
const makeStorage = async () => {
  // Lent until the file is done: the storage outlives each backend opened on it.
  const { keyspace } = await keyspaces.take();
  return { open: () => openCassandraBackend(connection(keyspace, 0)) };
};

describeBackendContracts(makeBackend, makeStorage);
