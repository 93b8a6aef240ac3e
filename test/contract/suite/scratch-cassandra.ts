import { afterAll, beforeAll } from 'vitest';
import { openCassandraBackend, type CassandraBackend } from '../../../src/adapters/cassandra/backend.js';
import { CassandraSession } from '../../../src/adapters/cassandra/session.js';
import type { ShardEpochs } from '../../../src/ports/shard-epochs.js';
import { infra } from '../../support/infra.js';

/**
 * Holds every shard under one epoch, taken now: a test's store is the only owner of its keyspace's shards, as a
 * process is of the shards Kafka gave it.
 */
export function holdingEveryShard(epoch = 1, since = Date.now()): ShardEpochs {
  return { held: () => ({ epoch, since, heldFrom: epoch }) };
}

/**
 * A migrated Cassandra backend in a keyspace of its own for the tests of one file, dropped after them. The getter
 * answers once `beforeAll` has run.
 */
export function scratchCassandraBackend(name: string, shardCount: number, claimStoredAfterMs?: number): () => CassandraBackend {
  let backend: CassandraBackend | undefined;
  beforeAll(async () => {
    const keyspace = `ferry_${name}_${process.pid}_${Date.now().toString(36)}`;
    backend = await openCassandraBackend({ ...infra.cassandra.connection(keyspace), shardCount, claimStoredAfterMs, migrate: true, epochs: holdingEveryShard() });
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

/**
 * Keyspaces named for this test file and reused between its tests: emptied when a test is done with one, dropped
 * after the file. Creating one per test would leave hundreds of tables, and each costs the node heap.
 */
export class ReusedKeyspaces {
  private readonly run = `${process.pid}_${Date.now().toString(36)}`;
  private readonly created: string[] = [];
  private readonly idle: string[] = [];
  private count = 0;

  constructor(private readonly prefix: string) {
    afterAll(async () => {
      const session = await CassandraSession.connect({ ...infra.cassandra.connection('system') });
      try {
        for (const ks of this.created) await session.execute(`DROP KEYSPACE IF EXISTS ${ks}`, [], 'dropping a test keyspace');
      } finally {
        await session.close();
      }
    }, 120_000);
  }

  /** A keyspace never used before (to be migrated). */
  fresh(): string {
    const name = `${this.prefix}_${this.run}_${++this.count}`;
    this.created.push(name);
    return name;
  }

  /** An emptied keyspace of an earlier test (already migrated), or undefined. */
  reuse(): string | undefined {
    return this.idle.pop();
  }

  /** Empties the backend's keyspace for the next test. */
  async release(backend: CassandraBackend): Promise<void> {
    const ks = backend.session.keyspace;
    const tables = await backend.session.read('SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?', [ks], 'listing');
    for (const row of tables.rows) {
      const table = String(row['table_name']);
      if (table !== 'schema_migrations') await backend.session.execute(`TRUNCATE ${ks}.${table}`, [], 'emptying a test table');
    }
    this.idle.push(ks);
  }
}
