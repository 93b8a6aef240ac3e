import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate } from '../../src/adapters/cassandra/migrations.js';
import { CassandraSession } from '../../src/adapters/cassandra/session.js';
import { systemClock } from '../../src/domain/clock.js';
import { infra } from './infra.js';

/**
 * Migrated test keyspaces, lent out and emptied instead of created and dropped for every test deployment.
 *
 * Creating the schema of a keyspace and dropping it are schema changes, which a Cassandra node makes one at a time
 * and at a cost of seconds each, more when the machine is busy; emptying every table of a migrated keyspace costs
 * a fraction of that. A keyspace is lent to one test process at a time through a lease file (its number and the
 * holder's process ID) in a directory shared by every test process on this machine, so concurrent test runs share
 * the pool safely; a lease whose holder has died is free again. The pool holds at most `POOL_SIZE` keyspaces
 * (the peak a run has in use at once stays below it); past that a deployment gets a keyspace of its own as before.
 */
const POOL_SIZE = 16;

// One pool per Cassandra (the single node and the cluster each have theirs): named after the contact points.
const POOL_DIR = join(tmpdir(), `ferry-keyspace-pool-${createHash('sha256').update(infra.cassandra.contactPoints.join(',')).digest('hex').slice(0, 8)}`);

/** A keyspace lent out: its name, and how to give it back. */
export interface KeyspaceLease {
  readonly keyspace: string;
  release(): void;
}

/**
 * Lends a keyspace with the current schema and no rows, or null when every keyspace of the pool is lent out.
 * Rows are removed when a keyspace is lent rather than when it comes back, so one left by a test process that
 * died is as clean as any.
 */
export async function borrowKeyspace(): Promise<KeyspaceLease | null> {
  mkdirSync(POOL_DIR, { recursive: true });
  for (let n = 0; n < POOL_SIZE; n++) {
    const lease = join(POOL_DIR, `${n}.lease`);
    if (!take(lease, n)) continue;
    const keyspace = `ferry_pool_${n}`;
    try {
      await readyForUse(keyspace);
    } catch (err) {
      give(lease);
      throw err;
    }
    return { keyspace, release: () => give(lease) };
  }
  return null;
}

function take(lease: string, n: number): boolean {
  try {
    writeFileSync(lease, String(process.pid), { flag: 'wx' });
    return true;
  } catch {
    // Held: free only if its holder is gone. Whoever first marks the dead holder's lease takes it over.
    const holder = Number(readQuietly(lease));
    if (!Number.isInteger(holder) || holder <= 0 || alive(holder)) return false;
    try {
      writeFileSync(join(POOL_DIR, `${n}.taken-from-${holder}`), String(process.pid), { flag: 'wx' });
    } catch {
      return false;
    }
    writeFileSync(lease, String(process.pid));
    return true;
  }
}

function give(lease: string): void {
  if (readQuietly(lease) === String(process.pid)) unlinkSync(lease);
}

function readQuietly(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A keyspace lent for one use that may be the test's own: `release` gives it back, or drops it. */
export interface TestKeyspace {
  readonly keyspace: string;
  release(): Promise<void>;
}

/**
 * An empty keyspace with the current schema: from the pool when one is free, else a new one named `ownName`,
 * dropped when given back.
 */
export async function lendKeyspace(ownName: string): Promise<TestKeyspace> {
  const lease = await borrowKeyspace();
  if (lease) return { keyspace: lease.keyspace, release: async () => lease.release() };
  const connection = infra.cassandra.connection(ownName);
  const session = await CassandraSession.connect(connection);
  try {
    await migrate(session, connection.replication, systemClock);
  } finally {
    await session.close();
  }
  return { keyspace: ownName, release: () => dropKeyspaces([ownName]) };
}

/**
 * Drops test keyspaces. A schema change on a busy node may outlast the driver's read timeout while the node goes on
 * with it; dropping again (`IF EXISTS`) waits for it rather than failing the tests that are done with the keyspace.
 */
export async function dropKeyspaces(names: readonly string[]): Promise<void> {
  if (names.length === 0) return;
  const session = await CassandraSession.connect(infra.cassandra.connection('system'));
  try {
    for (const name of names) {
      for (let attempt = 1; ; attempt++) {
        try {
          await session.execute(`DROP KEYSPACE IF EXISTS ${name}`, [], 'dropping a test keyspace');
          break;
        } catch (err) {
          if (attempt === 4) throw err;
          await new Promise((resolve) => setTimeout(resolve, 2_000 * attempt));
        }
      }
    }
  } finally {
    await session.close();
  }
}

/** Brings the keyspace to the current schema (creating it the first time) and empties every table but the record of migrations. */
async function readyForUse(keyspace: string): Promise<void> {
  const connection = infra.cassandra.connection(keyspace);
  const session = await CassandraSession.connect(connection);
  try {
    await migrate(session, connection.replication, systemClock);
    const tables = await session.read('SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?', [keyspace], 'listing pooled tables');
    const names = tables.rows.map((r) => String(r['table_name'])).filter((t) => t !== 'schema_migrations');
    await Promise.all(names.map((t) => session.execute(`TRUNCATE ${keyspace}.${t}`, [], 'emptying a pooled table')));
  } finally {
    await session.close();
  }
}
