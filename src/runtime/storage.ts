import { join } from 'node:path';
import { openEmbeddedBackend } from '../adapters/embedded/backend.js';
import { lockDataDir } from '../adapters/embedded/data-dir-lock.js';
import type { ServiceTracing } from '../adapters/telemetry/service-tracing.js';
import { ProjectAdmin } from '../app/project-admin.js';
import type { Config } from '../config/config.js';
import { systemClock, type Clock } from '../domain/clock.js';
import type { ReadinessCheck } from '../edge/health/readiness.js';
import type { Backend } from '../ports/backend.js';
import type { Log } from '../ports/telemetry.js';
import { embeddedPlacement } from '../workers/placement/embedded-placement.js';
import type { WorkPlacement } from '../workers/placement/work-placement.js';
import type * as DistributedStorageModule from './distributed-storage.js';

export { DataDirInUse } from '../adapters/embedded/data-dir-lock.js';

/** The embedded database file of a configuration. */
export function embeddedDatabaseFile(config: Config): string {
  return join(config.dataDir, 'ferry.db');
}

/**
 * Storage as the configuration names it: the composition root is the only place that knows which adapters
 * exist. `create: false` opens only an embedded database that already exists.
 */
export async function openBackend(config: Config, options: { create?: boolean } = {}): Promise<Backend> {
  const d = config.distributed;
  if (d === null) return openEmbeddedBackend({ path: embeddedDatabaseFile(config), mustExist: options.create === false });
  return (await distributed()).openDistributedBackend(d);
}

type DistributedStorage = typeof DistributedStorageModule;

/** Loaded only when the configuration asks for Cassandra and Kafka. */
function distributed(): Promise<DistributedStorage> {
  return import('./distributed-storage.js');
}

/** Creates or upgrades the schema (and, distributed, the work topic); safe to run again and from several hosts. */
export async function migrateStorage(config: Config): Promise<void> {
  const d = config.distributed;
  if (d === null) {
    // Opening the embedded file applies every pending migration.
    await openEmbeddedBackend({ path: embeddedDatabaseFile(config) }).close();
    return;
  }
  await (await distributed()).migrateDistributed(d);
}

export function projectAdmin(backend: Backend, clock: Clock = systemClock): ProjectAdmin {
  return new ProjectAdmin(backend.projects, clock);
}

/**
 * Storage, and how work placed in it reaches delivery: the two always come as a matching pair. With them, what
 * readiness looks at beyond storage itself.
 */
export interface OpenedStorage {
  readonly backend: Backend;
  readonly placement: () => Promise<WorkPlacement>;
  readonly checks: readonly ReadinessCheck[];
  readonly closeChecks: () => Promise<void>;
}

export async function openStorage(config: Config, clock: Clock, kafkaLog: Log, tracing: ServiceTracing | null): Promise<OpenedStorage> {
  const d = config.distributed;
  if (d === null) {
    // One server per data directory, held until its storage is closed: two would deliver the same attempts.
    const lock = lockDataDir(config.dataDir, clock.now());
    const opened = await openBackend(config).catch((err: unknown) => {
      lock.release();
      throw err;
    });
    const backend: Backend = { ...opened, close: () => opened.close().finally(() => lock.release()) };
    return { backend, placement: async () => embeddedPlacement(backend.requests, clock), checks: [], closeChecks: async () => undefined };
  }
  return (await distributed()).openDistributedStorage(config, d, clock, kafkaLog, tracing ? (port, name) => tracing.kafka(port, name) : undefined);
}
