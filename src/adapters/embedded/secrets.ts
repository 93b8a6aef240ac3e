import type { SecretStore } from '../../ports/secrets.js';
import type { EmbeddedDatabase } from './database.js';
import { plainBytes } from './bytes.js';

export class EmbeddedSecretStore implements SecretStore {
  constructor(private readonly db: EmbeddedDatabase) {}

  async getOrCreate(name: string, candidate: Uint8Array): Promise<Uint8Array> {
    const existing = this.read(name);
    if (existing !== null) return existing;
    const stored = await this.db.write(() => {
      this.db.statement('INSERT OR IGNORE INTO secrets (name, value) VALUES (?, ?)').run(name, candidate);
      return this.read(name);
    });
    return stored!;
  }

  private read(name: string): Uint8Array | null {
    const value = this.db.read(() => this.db.statement('SELECT value FROM secrets WHERE name = ?').pluck().get(name) as Uint8Array | undefined);
    return plainBytes(value ?? null);
  }
}
