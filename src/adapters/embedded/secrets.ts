import type { SecretStore } from '../../ports/secrets.js';
import type { EmbeddedDatabase } from './database.js';
import { plainBytes } from './bytes.js';

export class EmbeddedSecretStore implements SecretStore {
  constructor(private readonly db: EmbeddedDatabase) {}

  async getOrCreate(name: string, candidate: Uint8Array): Promise<Uint8Array> {
    // Usually the secret exists: a read spares the round trip to the writer.
    const value = this.db.read(() => this.db.statement('SELECT value FROM secrets WHERE name = ?').pluck().get(name) as Uint8Array | undefined);
    if (value !== undefined) return plainBytes(value)!;
    return this.db.write('getOrCreateSecret', { name, candidate });
  }
}
