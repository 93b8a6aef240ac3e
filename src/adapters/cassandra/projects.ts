import { types } from 'cassandra-driver';
import type { ApiKeyRecord, Project, SigningSecret } from '../../domain/project.js';
import type { ProjectStore } from '../../ports/projects.js';
import { newestFirst, signingSecretFromRow } from './projects-signing.js';
import { blob, plainBytes } from './secrets-bytes.js';
import { applied, millis, type CassandraSession } from './session.js';

/**
 * Projects and API keys as plain rows; revocation is the one conditional write, so it can tell a missing key from
 * a known one and keep the first revocation time. Signing secrets live in one partition per project.
 */
export class CassandraProjectStore implements ProjectStore {
  private readonly q: ReturnType<typeof statements>;

  constructor(private readonly session: CassandraSession) {
    this.q = statements(session);
  }

  async createProject(p: Project): Promise<void> {
    await this.session.execute(
      this.q.insertProject,
      [p.id, p.name, p.monthlyAllowance, p.scheduleAllowance, p.retentionDays, p.createdAt],
      'creating a project',
      { idempotent: true },
    );
  }

  async getProject(id: string): Promise<Project | null> {
    const row = (await this.session.read(this.q.selectProject, [id], 'reading a project')).first();
    if (row === null) return null;
    return {
      id,
      name: row.get('name') as string,
      monthlyAllowance: millis(row.get('monthly_allowance'))!,
      scheduleAllowance: row.get('schedule_allowance') as number,
      retentionDays: row.get('retention_days') as number,
      createdAt: millis(row.get('created_at'))!,
    };
  }

  async createApiKey(k: ApiKeyRecord): Promise<void> {
    // An unset revocation writes no cell at all, so a later conditional revoke has nothing to race with.
    await this.session.execute(
      this.q.insertApiKey,
      [k.keyId, k.projectId, blob(k.secretHash), k.createdAt, k.revokedAt ?? types.unset],
      'creating an API key',
      { idempotent: true },
    );
  }

  async getApiKey(keyId: string): Promise<ApiKeyRecord | null> {
    const row = (await this.session.read(this.q.selectApiKey, [keyId], 'reading an API key')).first();
    if (row === null) return null;
    return {
      keyId,
      projectId: row.get('project_id') as string,
      secretHash: plainBytes(row.get('secret_hash') as Uint8Array),
      createdAt: millis(row.get('created_at'))!,
      revokedAt: millis(row.get('revoked_at')),
    };
  }

  async revokeApiKey(keyId: string, at: number): Promise<boolean> {
    const rs = await this.session.execute(this.q.revokeApiKey, [at, keyId], 'revoking an API key');
    // Not applied means revoked already (true) or no such key (no project).
    return applied(rs) || rs.first()?.get('project_id') != null;
  }

  async activeSigningSecrets(projectId: string, now: number): Promise<SigningSecret[]> {
    const rs = await this.session.read(this.q.selectSigningSecrets, [projectId], 'reading signing secrets');
    return rs.rows
      .map((row) => signingSecretFromRow(projectId, row))
      .filter((s) => s.retiresAt === null || s.retiresAt > now)
      .sort(newestFirst);
  }

  async rotateSigningSecret(secret: SigningSecret, retireOthersAt: number): Promise<void> {
    const s = secret;
    const rs = await this.session.read(this.q.selectSigningSecrets, [s.projectId], 'reading signing secrets');
    const others = rs.rows
      .map((row) => signingSecretFromRow(s.projectId, row))
      .filter((o) => o.retiresAt === null && !(o.createdAt === s.createdAt && blob(o.secret).equals(blob(s.secret))));
    // One partition, so the batch applies whole: no moment with the new secret added but the others not retired.
    await this.session.batch(
      [
        ...others.map((o) => ({ query: this.q.retireSigningSecret, params: [retireOthersAt, s.projectId, o.createdAt, blob(o.secret)] })),
        { query: this.q.insertSigningSecret, params: [s.projectId, s.createdAt, blob(s.secret), s.retiresAt ?? types.unset] },
      ],
      'rotating signing secrets',
      { logged: true },
    );
  }
}

function statements(session: CassandraSession) {
  const projects = session.table('projects');
  const apiKeys = session.table('api_keys');
  const signing = session.table('signing_secrets');
  return {
    insertProject: `INSERT INTO ${projects} (id, name, monthly_allowance, schedule_allowance, retention_days, created_at)
      VALUES (?, ?, ?, ?, ?, ?)`,
    selectProject: `SELECT name, monthly_allowance, schedule_allowance, retention_days, created_at FROM ${projects} WHERE id = ?`,
    insertApiKey: `INSERT INTO ${apiKeys} (key_id, project_id, secret_hash, created_at, revoked_at) VALUES (?, ?, ?, ?, ?)`,
    selectApiKey: `SELECT project_id, secret_hash, created_at, revoked_at FROM ${apiKeys} WHERE key_id = ?`,
    // An update creates the row it names, so the condition also asks for the key to exist.
    revokeApiKey: `UPDATE ${apiKeys} SET revoked_at = ? WHERE key_id = ? IF revoked_at = null AND project_id != null`,
    selectSigningSecrets: `SELECT created_at, secret, retires_at FROM ${signing} WHERE project_id = ?`,
    retireSigningSecret: `UPDATE ${signing} SET retires_at = ? WHERE project_id = ? AND created_at = ? AND secret = ?`,
    insertSigningSecret: `INSERT INTO ${signing} (project_id, created_at, secret, retires_at) VALUES (?, ?, ?, ?)`,
  };
}
