import { systemClock, type Clock } from '../../domain/clock.js';
import type { Backend } from '../../ports/backend.js';
import type { ShardEpochs } from '../../ports/shard-epochs.js';
import { CassandraIdempotencyStore } from './idempotency.js';
import { assertMigrated, migrate } from './migrations.js';
import { CassandraProjectStore } from './projects.js';
import { CassandraRequestStore } from './requests/store.js';
import { CassandraScheduleStore } from './schedules/store.js';
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
  /** Default `systemClock`. */
  readonly clock?: Clock;
  /** See `CassandraRequestStoreOptions.epochs`. */
  readonly epochs?: ShardEpochs;
}

export interface CassandraBackend extends Backend {
  readonly requests: CassandraRequestStore;
  readonly schedules: CassandraScheduleStore;
  readonly session: CassandraSession;
}

/** Connects to the cluster, checks (or applies) the schema, and builds every store on one session. */
export async function openCassandraBackend(o: CassandraBackendOptions): Promise<CassandraBackend> {
  const clock = o.clock ?? systemClock;
  const session = await CassandraSession.connect(o);
  try {
    if (o.migrate) await migrate(session, o.replication, clock);
    else await assertMigrated(session);
  } catch (err) {
    await session.close();
    throw err;
  }
  const requests = new CassandraRequestStore(session, { shardCount: o.shardCount, claimStoredAfterMs: o.claimStoredAfterMs, clock, epochs: o.epochs });
  const schedules = new CassandraScheduleStore(session, { shardCount: o.shardCount, clock });
  return {
    session,
    requests,
    schedules,
    idempotency: new CassandraIdempotencyStore(session),
    usage: new CassandraUsageStore(session, clock),
    projects: new CassandraProjectStore(session),
    secrets: new CassandraSecretStore(session),
    // A read of the coordinator's own row: cheap, and it answers only while a node takes queries.
    ready: async () => {
      await session.read('SELECT release_version FROM system.local', [], 'the readiness probe');
    },
    close: async () => {
      await requests.close();
      await schedules.close();
      await session.close();
    },
  };
}
