import { afterAll, beforeAll } from 'vitest';
import { openCassandraBackend, type CassandraBackend } from '../../../src/adapters/cassandra/backend.js';
import type { ShardEpochs } from '../../../src/ports/shard-epochs.js';
import { infra } from '../../support/infra.js';
import { lendKeyspace, type TestKeyspace } from '../../support/keyspace-pool.js';

/**
 * Holds every shard under one epoch, taken now: a test's store is the only owner of its keyspace's shards, as a
 * process is of the shards Kafka gave it.
 */
export function holdingEveryShard(epoch = 1, since = Date.now()): ShardEpochs {
  return { held: () => ({ epoch, since, heldFrom: epoch }) };
}

/**
 * A migrated Cassandra backend on an empty keyspace for the tests of one file, lent from the keyspace pool and given
 * back after them. The getter answers once `beforeAll` has run.
 */
export function scratchCassandraBackend(name: string, shardCount: number, claimStoredAfterMs?: number): () => CassandraBackend {
  let lent: TestKeyspace | undefined;
  let backend: CassandraBackend | undefined;
  beforeAll(async () => {
    lent = await lendKeyspace(`ferry_${name}_${process.pid}_${Date.now().toString(36)}`);
    backend = await openCassandraBackend({ ...infra.cassandra.connection(lent.keyspace), shardCount, claimStoredAfterMs, epochs: holdingEveryShard() });
  });
  afterAll(async () => {
    await backend?.close();
    await lent?.release();
  }, 60_000);
  return () => {
    if (backend === undefined) throw new Error('The scratch backend is opened in beforeAll.');
    return backend;
  };
}

/**
 * Empty keyspaces for the tests of one file, one per backend: lent from the keyspace pool (emptied when lent, so
 * a test gets no rows of another) and given back when the test is done with it, or after the file.
 */
export class TestKeyspaces {
  private readonly run = `${process.pid}_${Date.now().toString(36)}`;
  private readonly lent = new Set<TestKeyspace>();
  private count = 0;

  constructor(private readonly prefix: string) {
    afterAll(async () => {
      for (const k of [...this.lent]) await this.giveBack(k);
    }, 120_000);
  }

  /** A migrated keyspace with no rows, until `giveBack`. */
  async take(): Promise<TestKeyspace> {
    const k = await lendKeyspace(`${this.prefix}_${this.run}_${++this.count}`);
    this.lent.add(k);
    return k;
  }

  async giveBack(k: TestKeyspace): Promise<void> {
    if (!this.lent.delete(k)) return;
    await k.release();
  }
}
