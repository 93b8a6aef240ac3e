import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { openCassandraBackend, type CassandraBackend } from '../../../src/adapters/cassandra/backend.js';
import { openEmbeddedBackend } from '../../../src/adapters/embedded/backend.js';
import { infra } from '../../support/infra.js';
import { CONTRACT_SHARDS, type BackendFactory, type ReopenableStorage } from './harness.js';
import { TestKeyspaces, holdingEveryShard } from './scratch-cassandra.js';

/** What a backend's contract files open their storage with: fresh for every test. */
export interface ContractStorage {
  makeBackend: BackendFactory;
  makeStorage(): Promise<ReopenableStorage>;
}

/** Embedded databases in a directory of the calling file's own, removed after it. */
export function embeddedContractStorage(): ContractStorage {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-contract-embedded-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let files = 0;
  // A nested path also checks that missing parent directories are created.
  const freshPath = () => join(dir, `case-${++files}`, 'ferry.db');
  return {
    makeBackend: async () => openEmbeddedBackend({ path: freshPath() }),
    makeStorage: async () => {
      const path = freshPath();
      return { open: async () => openEmbeddedBackend({ path }) };
    },
  };
}

/**
 * Cassandra keyspaces lent for the calling file, one per test, each claim stored as it is made (claims held in the
 * claiming process are the subject of cassandra-claims-held.test.ts).
 */
export function cassandraContractStorage(prefix: string): ContractStorage {
  // Every test gets empty storage of its own: the ports promise fresh storage, and claims span all projects.
  const keyspaces = new TestKeyspaces(prefix);
  const connection = (keyspace: string) => ({
    ...infra.cassandra.connection(keyspace),
    shardCount: CONTRACT_SHARDS,
    claimStoredAfterMs: 0,
    epochs: holdingEveryShard(),
  });
  return {
    makeBackend: async (): Promise<CassandraBackend> => {
      const lent = await keyspaces.take();
      const backend = await openCassandraBackend(connection(lent.keyspace));
      return {
        ...backend,
        close: async () => {
          await backend.close();
          await keyspaces.giveBack(lent);
        },
      };
    },
    makeStorage: async () => {
      // Lent until the file is done: the storage outlives each backend opened on it.
      const { keyspace } = await keyspaces.take();
      return { open: () => openCassandraBackend(connection(keyspace)) };
    },
  };
}
