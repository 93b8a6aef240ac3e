import { afterAll, beforeAll } from 'vitest';
import { openCassandraBackend, type CassandraBackend } from '../../../src/adapters/cassandra/backend.js';
import { infra } from '../../support/infra.js';

/**
 * A migrated Cassandra backend in a keyspace of its own for the tests of one file, dropped after them. The getter
 * answers once `beforeAll` has run.
 */
export function scratchCassandraBackend(name: string, shardCount: number, claimStoredAfterMs?: number): () => CassandraBackend {
  let backend: CassandraBackend | undefined;
  beforeAll(async () => {
    const keyspace = `ferry_${name}_${process.pid}_${Date.now().toString(36)}`;
    backend = await openCassandraBackend({ ...infra.cassandra.connection(keyspace), shardCount, claimStoredAfterMs, migrate: true });
  });
  afterAll(async () => {
    if (backend === undefined) return;
    await backend.session.execute(`DROP KEYSPACE IF EXISTS ${backend.session.keyspace}`, [], 'dropping a test keyspace');
    await backend.close();
  }, 60_000);
  return () => {
    if (backend === undefined) throw new Error('The scratch backend is opened in beforeAll.');
    return backend;
  };
}
