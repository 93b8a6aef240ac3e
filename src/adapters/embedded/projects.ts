import type { ApiKeyRecord, Project, ProjectChanges, SigningSecret } from '../../domain/project.js';
import type { ProjectStore } from '../../ports/projects.js';
import type { EmbeddedDatabase } from './database.js';
import { plainBytes } from './bytes.js';

interface ProjectRow {
  id: string;
  name: string;
  monthly_allowance: number;
  schedule_allowance: number;
  retention_days: number;
  capture_response_bodies: number;
  created_at: number;
}

interface ApiKeyRow {
  key_id: string;
  project_id: string;
  secret_hash: Uint8Array;
  created_at: number;
  revoked_at: number | null;
  last_used_at: number | null;
}

export class EmbeddedProjectStore implements ProjectStore {
  constructor(private readonly db: EmbeddedDatabase) {}

  async createProject(p: Project): Promise<void> {
    await this.db.write('createProject', p);
  }

  async getProject(id: string): Promise<Project | null> {
    const row = this.db.read(() => this.db.statement('SELECT * FROM projects WHERE id = ?').get(id) as ProjectRow | undefined);
    return row === undefined ? null : projectFromRow(row);
  }

  async listProjects(): Promise<Project[]> {
    const rows = this.db.read(() => this.db.statement('SELECT * FROM projects ORDER BY id').all() as ProjectRow[]);
    return rows.map(projectFromRow);
  }

  async updateProject(id: string, changes: ProjectChanges): Promise<Project | null> {
    const row = await this.db.write('updateProject', { id, changes });
    return row === undefined ? null : projectFromRow(row as unknown as ProjectRow);
  }

  async createApiKey(k: ApiKeyRecord): Promise<void> {
    await this.db.write('createApiKey', k);
  }

  async getApiKey(keyId: string): Promise<ApiKeyRecord | null> {
    const row = this.db.read(() => this.db.statement('SELECT * FROM api_keys WHERE key_id = ?').get(keyId) as ApiKeyRow | undefined);
    return row === undefined ? null : apiKeyFromRow(row);
  }

  async listApiKeys(projectId: string): Promise<ApiKeyRecord[]> {
    const sql = 'SELECT * FROM api_keys WHERE project_id = ? ORDER BY created_at, key_id';
    const rows = this.db.read(() => this.db.statement(sql).all(projectId) as ApiKeyRow[]);
    return rows.map(apiKeyFromRow);
  }

  revokeApiKey(keyId: string, at: number): Promise<boolean> {
    return this.db.write('revokeApiKey', { keyId, at });
  }

  async recordKeyUse(keyId: string, at: number): Promise<void> {
    await this.db.write('recordKeyUse', { keyId, at });
  }

  async activeSigningSecrets(projectId: string, now: number): Promise<SigningSecret[]> {
    const sql = `SELECT project_id, secret, created_at, retires_at FROM signing_secrets
      WHERE project_id = ? AND (retires_at IS NULL OR retires_at > ?) ORDER BY created_at DESC, rowid DESC`;
    const rows = this.db.read(() => this.db.rawStatement(sql).all(projectId, now)) as Array<[string, Uint8Array, number, number | null]>;
    return rows.map((row) => ({ projectId: row[0], secret: plainBytes(row[1])!, createdAt: row[2], retiresAt: row[3] }));
  }

  rotateSigningSecret(secret: SigningSecret, retireOthersAt: number): Promise<void> {
    return this.db.write('rotateSigningSecret', { secret, retireOthersAt });
  }
}

function projectFromRow(row: ProjectRow): Project {
  return {
    id: row.id,
    name: row.name,
    monthlyAllowance: row.monthly_allowance,
    scheduleAllowance: row.schedule_allowance,
    retentionDays: row.retention_days,
    captureResponseBodies: row.capture_response_bodies !== 0,
    createdAt: row.created_at,
  };
}

function apiKeyFromRow(row: ApiKeyRow): ApiKeyRecord {
  return {
    keyId: row.key_id,
    projectId: row.project_id,
    secretHash: plainBytes(row.secret_hash)!,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
  };
}
