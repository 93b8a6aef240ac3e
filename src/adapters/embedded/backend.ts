import type { Backend } from '../../ports/backend.js';
import { EmbeddedDatabase, type EmbeddedDatabaseOptions } from './database.js';
import { EmbeddedIdempotencyStore } from './idempotency.js';
import { EmbeddedProjectStore } from './projects.js';
import { EmbeddedRequestStore } from './requests.js';
import { EmbeddedScheduleStore } from './schedules.js';
import { EmbeddedSecretStore } from './secrets.js';
import { EmbeddedUsageStore } from './usage.js';

export type EmbeddedBackendOptions = EmbeddedDatabaseOptions;

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
  const db = new EmbeddedDatabase(options);
  return {
    requests: new EmbeddedRequestStore(db),
    schedules: new EmbeddedScheduleStore(db),
    idempotency: new EmbeddedIdempotencyStore(db),
    usage: new EmbeddedUsageStore(db),
    projects: new EmbeddedProjectStore(db),
    secrets: new EmbeddedSecretStore(db),
    close: () => db.close(),
  };
}
