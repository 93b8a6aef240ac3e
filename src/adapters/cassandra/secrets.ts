import type { SecretStore } from '../../ports/secrets.js';
import { applied, blob, plainBytes, type CassandraSession } from './session.js';

/** Server secrets, each created once by a conditional insert so every process ends up with the same value. */
export class CassandraSecretStore implements SecretStore {
  private readonly select: string;
  private readonly insert: string;

  constructor(private readonly session: CassandraSession) {
    const table = session.table('server_secrets');
    this.select = `SELECT value FROM ${table} WHERE name = ?`;
    this.insert = `INSERT INTO ${table} (name, value) VALUES (?, ?) IF NOT EXISTS`;
  }

  async getOrCreate(name: string, candidate: Uint8Array): Promise<Uint8Array> {
    // Usually the secret exists, and a plain read spares a Paxos round.
    const found = await this.session.read(this.select, [name], 'reading a server secret');
    const value = found.first()?.get('value') as Uint8Array | null | undefined;
    if (value) return plainBytes(value);
    const rs = await this.session.execute(this.insert, [name, blob(candidate)], 'creating a server secret');
    // A lost insert reports the value that won.
    return plainBytes(applied(rs) ? candidate : (rs.first().get('value') as Uint8Array));
  }
}
