import type { ApiKeyRecord, Project } from '../../domain/project.js';
import type { ProjectStore } from '../../ports/projects.js';
import type { EmbeddedDatabase } from './database.js';
import { plainBytes } from './bytes.js';

interface ProjectRow {
  id: string;
  name: string;
  monthly_allowance: number;
  schedule_allowance: number;
  retention_days: number;
  created_at: number;
}

interface ApiKeyRow {
  key_id: string;
  project_id: string;
  secret_hash: Uint8Array;
  created_at: number;
  revoked_at: number | null;
}

export class EmbeddedProjectStore implements ProjectStore {
  constructor(private readonly db: EmbeddedDatabase) {}

  async createProject(p: Project): Promise<void> {
    await this.db.write(() => {
      this.db
        .statement(`INSERT INTO projects (id, name, monthly_allowance, schedule_allowance, retention_days, created_at)
          VALUES (?, ?, ?, ?, ?, ?)`)
        .run(p.id, p.name, p.monthlyAllowance, p.scheduleAllowance, p.retentionDays, p.createdAt);
    });
  }

  async getProject(id: string): Promise<Project | null> {
    const row = this.db.read(() => this.db.statement('SELECT * FROM projects WHERE id = ?').get(id) as ProjectRow | undefined);
    if (row === undefined) return null;
    return {
      id: row.id,
      name: row.name,
      monthlyAllowance: row.monthly_allowance,
      scheduleAllowance: row.schedule_allowance,
      retentionDays: row.retention_days,
      createdAt: row.created_at,
    };
  }

  async createApiKey(k: ApiKeyRecord): Promise<void> {
    await this.db.write(() => {
      this.db
        .statement('INSERT INTO api_keys (key_id, project_id, secret_hash, created_at, revoked_at) VALUES (?, ?, ?, ?, ?)')
        .run(k.keyId, k.projectId, k.secretHash, k.createdAt, k.revokedAt);
    });
  }

  async getApiKey(keyId: string): Promise<ApiKeyRecord | null> {
    const row = this.db.read(() => this.db.statement('SELECT * FROM api_keys WHERE key_id = ?').get(keyId) as ApiKeyRow | undefined);
    if (row === undefined) return null;
    return {
      keyId: row.key_id,
      projectId: row.project_id,
      secretHash: plainBytes(row.secret_hash)!,
      createdAt: row.created_at,
      revokedAt: row.revoked_at,
    };
  }

  revokeApiKey(keyId: string, at: number): Promise<boolean> {
    // The first revocation time is kept: revoking again changes nothing but still reports the key as known.
    return this.db.write(
      () => this.db.statement('UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE key_id = ?').run(at, keyId).changes === 1,
    );
  }
}
