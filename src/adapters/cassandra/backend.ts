import type { Backend } from '../../ports/backend.js';
import { CassandraIdempotencyStore } from './idempotency.js';
import { assertMigrated, migrate } from './migrations.js';
import { CassandraProjectStore } from './projects.js';
import { CassandraRequestStore } from './requests.js';
import { CassandraSecretStore } from './secrets.js';
import { CassandraSession, type CassandraConnection } from './session.js';
import { CassandraUsageStore } from './usage.js';

export interface CassandraBackendOptions extends CassandraConnection {
  /** Shards of delivery and timer work; fixed for the life of a deployment. */
  readonly shardCount: number;
  /** See `CassandraRequestStoreOptions.claimStoredAfterMs`. */
  readonly claimStoredAfterMs?: number;
  /** Create or upgrade the schema first (`ferry migrate`, tests); otherwise a missing schema is an error. */
  readonly migrate?: boolean;
}

export interface CassandraBackend extends Backend {
  readonly requests: CassandraRequestStore;
  readonly session: CassandraSession;
}

/** Connects to the cluster, checks (or applies) the schema, and builds every store on one session. */
export async function openCassandraBackend(o: CassandraBackendOptions): Promise<CassandraBackend> {
  const session = await CassandraSession.connect(o);
  try {
    if (o.migrate) await migrate(session, o.replication);
    else await assertMigrated(session);
  } catch (err) {
    await session.close();
    throw err;
  }
  const requests = new CassandraRequestStore(session, { shardCount: o.shardCount, claimStoredAfterMs: o.claimStoredAfterMs });
  return {
    session,
    requests,
    idempotency: new CassandraIdempotencyStore(session),
    usage: new CassandraUsageStore(session),
    projects: new CassandraProjectStore(session),
    secrets: new CassandraSecretStore(session),
    close: async () => {
      await requests.close();
      await session.close();
    },
  };
}
