import { describe } from 'vitest';
import { openCassandraBackend, type CassandraBackend } from '../../src/adapters/cassandra/backend.js';
import { infra } from '../support/infra.js';
import { describeClaimContracts } from './suite/all.js';
import { CONTRACT_SHARDS } from './suite/harness.js';
import { TestKeyspaces, holdingEveryShard } from './suite/scratch-cassandra.js';

// The contracts of claims and of the changes made through them, with claims held in the claiming process as a
// deployment runs them by default (`CLAIM_STORED_AFTER_MS`); cassandra.test.ts runs every contract with each claim
// stored as it is made. Every test gets empty storage of its own.
const keyspaces = new TestKeyspaces('ferry_ch');

const makeBackend = async (): Promise<CassandraBackend> => {
  const lent = await keyspaces.take();
  const backend = await openCassandraBackend({ ...infra.cassandra.connection(lent.keyspace), shardCount: CONTRACT_SHARDS, epochs: holdingEveryShard() });
  return {
    ...backend,
    close: async () => {
      await backend.close();
      await keyspaces.giveBack(lent);
    },
  };
};

describe('with claims held in the claiming process', () => describeClaimContracts(makeBackend));
