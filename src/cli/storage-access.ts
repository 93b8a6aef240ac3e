import { existsSync } from 'node:fs';
import type { ProjectAdmin } from '../app/project-admin.js';
import type { ProjectUsage } from '../app/project-usage.js';
import { effectiveConfig, loadConfig, type Config, type EffectiveSetting, type VariableName } from '../config/config.js';
import { embeddedDatabaseFile, openBackend, projectAdmin } from '../runtime/storage.js';
import { projectUsage } from '../runtime/usage-wiring.js';
import { CliFailure, note } from './output.js';

/**
 * Says which storage a command works on, and where that choice came from (the variable only when it is set), so a
 * command run in the wrong directory or against the wrong keyspace is noticed at once.
 */
export function announceStorage(config: Config): void {
  note(storageInUse(config, effectiveConfig()));
}

/** The line `announceStorage` writes, for the configuration and the settings it was made from. */
export function storageInUse(config: Config, settings: Record<VariableName, EffectiveSetting>): string {
  const d = config.distributed;
  if (d === null) {
    const dir = settings.FERRY_DATA_DIR;
    const source = dir.source === 'environment' ? 'FERRY_DATA_DIR' : `the default ${dir.value}; FERRY_DATA_DIR is not set`;
    return `using data directory ${config.dataDir} (${source})`;
  }
  const keyspace = settings.FERRY_CASSANDRA_KEYSPACE;
  const source = keyspace.source === 'environment' ? 'FERRY_CASSANDRA_KEYSPACE' : 'the default keyspace; FERRY_CASSANDRA_KEYSPACE is not set';
  return `using Cassandra keyspace ${d.cassandra.keyspace} at ${d.cassandra.contactPoints.join(',')} (${source})`;
}

/** Fails unless the embedded database exists: a command must not create an empty one where no server looks. */
export function requireEmbeddedDatabase(config: Config, advice: string): void {
  if (config.distributed === null && !existsSync(embeddedDatabaseFile(config))) {
    throw new CliFailure(`no Ferry database in ${config.dataDir}; ${advice}`);
  }
}

export interface AdminTools {
  readonly admin: ProjectAdmin;
  readonly usage: ProjectUsage;
}

/**
 * Runs `work` on the existing storage. An embedded database that is not there is an error, not a new empty one:
 * a project created in the wrong directory would be invisible to the server that runs elsewhere.
 */
export async function withAdmin(work: (tools: AdminTools) => Promise<void>): Promise<number> {
  const config = loadConfig();
  announceStorage(config);
  requireEmbeddedDatabase(config, "point FERRY_DATA_DIR at the directory 'ferry serve' uses, or create one there with 'ferry migrate'");
  const backend = await openBackend(config, { create: false });
  try {
    await work({ admin: projectAdmin(backend), usage: projectUsage(backend) });
    return 0;
  } finally {
    await backend.close();
  }
}
