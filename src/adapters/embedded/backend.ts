import { existsSync } from 'node:fs';
import type { Backend } from '../../ports/backend.js';
import { StorageUnavailable } from '../../ports/errors.js';
import { EmbeddedBudgetStore } from './budgets.js';
import { EmbeddedBulkActionStore } from './bulk-actions.js';
import { EmbeddedDatabase, type EmbeddedDatabaseOptions } from './database.js';
import { EmbeddedIdempotencyStore } from './idempotency.js';
import { EmbeddedProjectStore } from './projects.js';
import { EmbeddedRequestStore } from './requests.js';
import { EmbeddedScheduleStore } from './schedules.js';
import { EmbeddedSecretStore } from './secrets.js';
import { EmbeddedStatsStore } from './stats.js';
import { EmbeddedUsageStore } from './usage.js';

export interface EmbeddedBackendOptions extends EmbeddedDatabaseOptions {
  /**
   * Open only a database that exists: an administration command pointed at the wrong directory must not leave a
   * new, empty database behind it.
   */
  readonly mustExist?: boolean;
}

/** The embedded backend, with the housekeeping it offers beyond the ports. */
export interface EmbeddedBackend extends Backend {
  readonly idempotency: EmbeddedIdempotencyStore;
}

/**
 * Opens (creating and migrating if needed) the SQLite file at `options.path` and builds every store on one
 * EmbeddedDatabase: reads on this thread, writes on its writer thread. Other processes may open the same file at
 * once; writes then wait for each other's locks.
 */
export function openEmbeddedBackend(options: EmbeddedBackendOptions): EmbeddedBackend {
  if (options.mustExist === true && !existsSync(options.path)) throw new StorageUnavailable(`No embedded database at ${options.path}.`);
  const db = new EmbeddedDatabase(options);
  return {
    requests: new EmbeddedRequestStore(db),
    schedules: new EmbeddedScheduleStore(db),
    idempotency: new EmbeddedIdempotencyStore(db),
    usage: new EmbeddedUsageStore(db),
    projects: new EmbeddedProjectStore(db),
    secrets: new EmbeddedSecretStore(db),
    budgets: new EmbeddedBudgetStore(db),
    bulkActions: new EmbeddedBulkActionStore(db),
    stats: new EmbeddedStatsStore(db),
    ready: () => probeEmbedded(db),
    close: () => db.close(),
  };
}

/**
 * A read on this thread's connection, then an empty write through the writer thread: it answers only while the
 * writer thread lives and can take the file's write lock and commit, which is what accepting a request needs.
 * An empty transaction writes nothing to the log, so the probe costs no fsync.
 */
async function probeEmbedded(db: EmbeddedDatabase): Promise<void> {
  db.read(() => db.statement('SELECT 1 FROM sqlite_schema LIMIT 1').get());
  await db.write('insertRequests', []);
}
