import { backupEmbeddedDatabase } from '../adapters/embedded/backup.js';
import type { Config } from '../config/config.js';
import { embeddedDatabaseFile } from './storage.js';

/**
 * Copies the embedded database to `destination` beside a running server. Distributed storage is backed up with
 * Cassandra's own tools (snapshots), so there is nothing for Ferry to copy there.
 */
export function backupStorage(config: Config, destination: string): Promise<{ pages: number }> {
  if (config.distributed !== null) {
    return Promise.reject(new Error("backups of Cassandra are taken with Cassandra's tools (nodetool snapshot); 'ferry backup' copies the embedded database"));
  }
  return backupEmbeddedDatabase(embeddedDatabaseFile(config), destination);
}
