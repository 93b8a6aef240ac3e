import { systemClock, type Clock } from '../../domain/clock.js';
import type { Backend } from '../../ports/backend.js';
import type { ShardEpochs } from '../../ports/shard-epochs.js';
import type { WorkNotifier } from '../../ports/work-shards.js';
import { CassandraBudgetBoard } from './budget-board.js';
import { CassandraBudgetStore } from './budgets.js';
import { CassandraBulkActionStore } from './bulk-actions.js';
import { CassandraIdempotencyStore } from './idempotency.js';
import { assertMigrated, migrate } from './migrations.js';
import { CassandraProjectStore } from './projects.js';
import { CassandraRequestStore } from './requests/store.js';
import { CassandraScheduleStore } from './schedules/store.js';
import { CassandraSecretStore } from './secrets.js';
import { CassandraSession, type CassandraConnection } from './session.js';
import { CassandraStatsStore } from './stats.js';
import { CassandraUsageStore } from './usage.js';

export interface CassandraSessionOptions extends CassandraConnection {
  /** Create or upgrade the schema first (`ferry migrate`, tests); otherwise a missing schema is an error. */
  readonly migrate?: boolean;
  /** Default `systemClock`. */
  readonly clock?: Clock;
}

/** What the stores are built with, beside their session. */
export interface CassandraStoreOptions {
  /** Shards of delivery and timer work; fixed for the life of a deployment. */
  readonly shardCount: number;
  /** See `CassandraRequestStoreOptions.claimStoredAfterMs`. */
  readonly claimStoredAfterMs?: number;
  /** Default `systemClock`. */
  readonly clock?: Clock;
  /** See `CassandraRequestStoreOptions.epochs`. */
  readonly epochs?: ShardEpochs;
  /** See `CassandraRequestStoreOptions.cancelNotices`. */
  readonly cancelNotices?: Pick<WorkNotifier, 'announceCancel'>;
}

export type CassandraBackendOptions = CassandraSessionOptions & CassandraStoreOptions;

export interface CassandraBackend extends Backend {
  readonly requests: CassandraRequestStore;
  readonly schedules: CassandraScheduleStore;
  readonly budgetBoard: CassandraBudgetBoard;
  readonly session: CassandraSession;
}

/** Connects to the cluster and checks (or applies) the schema; closes the session again if that fails. */
export async function openCassandraSession(o: CassandraSessionOptions): Promise<CassandraSession> {
  const session = await CassandraSession.connect(o, o.clock ?? systemClock);
  try {
    if (o.migrate) await migrate(session, o.replication, o.clock ?? systemClock);
    else await assertMigrated(session);
  } catch (err) {
    await session.close();
    throw err;
  }
  return session;
}

/** Every store on one session, the session's owner from then on: closing the backend closes it. */
export function cassandraBackend(session: CassandraSession, o: CassandraStoreOptions): CassandraBackend {
  const clock = o.clock ?? systemClock;
  const usage = new CassandraUsageStore(session, clock);
  const requests = new CassandraRequestStore(session, {
    usage,
    shardCount: o.shardCount,
    claimStoredAfterMs: o.claimStoredAfterMs,
    clock,
    epochs: o.epochs,
    cancelNotices: o.cancelNotices,
  });
  const schedules = new CassandraScheduleStore(session, { shardCount: o.shardCount, clock });
  return {
    session,
    requests,
    schedules,
    idempotency: new CassandraIdempotencyStore(session),
    usage,
    projects: new CassandraProjectStore(session),
    secrets: new CassandraSecretStore(session),
    budgets: new CassandraBudgetStore(session, clock),
    budgetBoard: new CassandraBudgetBoard(session),
    bulkActions: new CassandraBulkActionStore(session),
    stats: new CassandraStatsStore(session),
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

/** Connects to the cluster, checks (or applies) the schema, and builds every store on one session. */
export async function openCassandraBackend(o: CassandraBackendOptions): Promise<CassandraBackend> {
  return cassandraBackend(await openCassandraSession(o), o);
}
