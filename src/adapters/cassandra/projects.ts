import { types } from 'cassandra-driver';
import type { ApiKeyRecord, Project, ProjectChanges, SigningSecret } from '../../domain/project.js';
import type { ProjectStore } from '../../ports/projects.js';
import { toPortError } from './errors.js';
import { applied, blob, millis, plainBytes, type CassandraSession } from './session.js';

/**
 * Projects and API keys as plain rows; revocation and project changes are the conditional writes, so they can tell
 * a missing row from a known one (and revocation keep its first time). Signing secrets live in one partition per
 * project. The operator's listings (every project, a project's keys) scan their table: they are small, and read
 * only by the `ferry` command, never on a call's path.
 */
export class CassandraProjectStore implements ProjectStore {
  private readonly q: ReturnType<typeof statements>;

  constructor(private readonly session: CassandraSession) {
    this.q = statements(session);
  }

  async createProject(p: Project): Promise<void> {
    await this.session.execute(
      this.q.insertProject,
      [p.id, p.name, p.monthlyAllowance, p.scheduleAllowance, p.retentionDays, p.captureResponseBodies, p.createdAt],
      'creating a project',
      { idempotent: true },
    );
  }

  async getProject(id: string): Promise<Project | null> {
    const row = (await this.session.read(this.q.selectProject, [id], 'reading a project')).first();
    return row === null ? null : projectFromRow(id, row);
  }

  async listProjects(): Promise<Project[]> {
    const rows = await allRows(await this.session.read(this.q.selectProjects, [], 'listing projects', LISTING_PAGE), 'listing projects');
    return rows.map((row) => projectFromRow(row.get('id') as string, row)).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async updateProject(id: string, changes: ProjectChanges): Promise<Project | null> {
    const columns = PROJECT_COLUMNS.filter(([field]) => changes[field] !== undefined);
    if (columns.length === 0) return this.getProject(id);
    const sets = columns.map(([, column]) => `${column} = ?`).join(', ');
    // Conditional, so a change to a project that does not exist creates no row.
    const rs = await this.session.execute(
      `UPDATE ${this.session.table('projects')} SET ${sets} WHERE id = ? IF EXISTS`,
      [...columns.map(([field]) => changes[field]), id],
      'changing a project',
    );
    return applied(rs) ? this.getProject(id) : null;
  }

  async createApiKey(k: ApiKeyRecord): Promise<void> {
    // An unset revocation writes no cell at all, so a later conditional revoke has nothing to race with.
    await this.session.execute(
      this.q.insertApiKey,
      [k.keyId, k.projectId, blob(k.secretHash), k.createdAt, k.revokedAt ?? types.unset, k.lastUsedAt ?? types.unset],
      'creating an API key',
      { idempotent: true },
    );
  }

  async getApiKey(keyId: string): Promise<ApiKeyRecord | null> {
    const row = (await this.session.read(this.q.selectApiKey, [keyId], 'reading an API key')).first();
    return row === null ? null : apiKeyFromRow(keyId, row);
  }

  async listApiKeys(projectId: string): Promise<ApiKeyRecord[]> {
    const rs = await this.session.read(this.q.selectProjectKeys, [projectId], "listing a project's keys", LISTING_PAGE);
    const keys = (await allRows(rs, "listing a project's keys")).flatMap((row) => apiKeyFromRow(row.get('key_id') as string, row) ?? []);
    return keys.sort((a, b) => a.createdAt - b.createdAt || (a.keyId < b.keyId ? -1 : 1));
  }

  async recordKeyUse(keyId: string, at: number): Promise<void> {
    // Written with the use's own time as the cell's timestamp, so the latest use wins whichever write lands last.
    await this.session.execute(this.q.recordKeyUse, [at * 1000, at, keyId], 'recording the use of an API key', { idempotent: true });
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
    insertProject: `INSERT INTO ${projects} (id, name, monthly_allowance, schedule_allowance, retention_days,
      capture_response_bodies, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    selectProject: `SELECT name, monthly_allowance, schedule_allowance, retention_days, capture_response_bodies, created_at
      FROM ${projects} WHERE id = ?`,
    selectProjects: `SELECT id, name, monthly_allowance, schedule_allowance, retention_days, capture_response_bodies, created_at
      FROM ${projects}`,
    insertApiKey: `INSERT INTO ${apiKeys} (key_id, project_id, secret_hash, created_at, revoked_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?)`,
    selectApiKey: `SELECT project_id, secret_hash, created_at, revoked_at, last_used_at FROM ${apiKeys} WHERE key_id = ?`,
    selectProjectKeys: `SELECT key_id, project_id, secret_hash, created_at, revoked_at, last_used_at FROM ${apiKeys}
      WHERE project_id = ? ALLOW FILTERING`,
    // Unconditional: a use that lands on a key never created leaves a row without a project, which reads as absent.
    recordKeyUse: `UPDATE ${apiKeys} USING TIMESTAMP ? SET last_used_at = ? WHERE key_id = ?`,
    // An update creates the row it names, so the condition also asks for the key to exist.
    revokeApiKey: `UPDATE ${apiKeys} SET revoked_at = ? WHERE key_id = ? IF revoked_at = null AND project_id != null`,
    selectSigningSecrets: `SELECT created_at, secret, retires_at FROM ${signing} WHERE project_id = ?`,
    retireSigningSecret: `UPDATE ${signing} SET retires_at = ? WHERE project_id = ? AND created_at = ? AND secret = ?`,
    insertSigningSecret: `INSERT INTO ${signing} (project_id, created_at, secret, retires_at) VALUES (?, ?, ?, ?)`,
  };
}

/** Rows per page of the operator's listings. */
const LISTING_PAGE = 1_000;

const PROJECT_COLUMNS = [
  ['name', 'name'],
  ['monthlyAllowance', 'monthly_allowance'],
  ['scheduleAllowance', 'schedule_allowance'],
  ['retentionDays', 'retention_days'],
  ['captureResponseBodies', 'capture_response_bodies'],
] as const satisfies ReadonlyArray<readonly [keyof ProjectChanges, string]>;

function projectFromRow(id: string, row: types.Row): Project {
  return {
    id,
    name: row.get('name') as string,
    monthlyAllowance: millis(row.get('monthly_allowance'))!,
    scheduleAllowance: row.get('schedule_allowance') as number,
    retentionDays: row.get('retention_days') as number,
    // Projects created before the setting existed have no value: capture is on for them, as for new ones.
    captureResponseBodies: row.get('capture_response_bodies') !== false,
    createdAt: millis(row.get('created_at'))!,
  };
}

/** A key's row; null for a row a use wrote on a key that was never created (it has no project). */
function apiKeyFromRow(keyId: string, row: types.Row): ApiKeyRecord | null {
  const projectId = row.get('project_id') as string | null;
  if (projectId === null) return null;
  return {
    keyId,
    projectId,
    secretHash: plainBytes(row.get('secret_hash') as Uint8Array),
    createdAt: millis(row.get('created_at'))!,
    revokedAt: millis(row.get('revoked_at')),
    lastUsedAt: millis(row.get('last_used_at')),
  };
}

function signingSecretFromRow(projectId: string, row: types.Row): SigningSecret {
  return {
    projectId,
    secret: plainBytes(row.get('secret') as Uint8Array),
    createdAt: millis(row.get('created_at'))!,
    retiresAt: millis(row.get('retires_at')),
  };
}

/**
 * Newest first. The embedded store orders secrets created in the same millisecond by insertion, latest first; the
 * rows here keep no insertion order, but each rotation retires the current secrets, so the current one leads and
 * then the one retiring last, which is the same order unless two rotations retired at the same time.
 */
function newestFirst(a: SigningSecret, b: SigningSecret): number {
  if (a.createdAt !== b.createdAt) return b.createdAt - a.createdAt;
  if (a.retiresAt === b.retiresAt) return 0;
  if (a.retiresAt === null) return -1;
  if (b.retiresAt === null) return 1;
  return b.retiresAt - a.retiresAt;
}

/** Every row of a result, the later pages fetched as the rows are read. */
async function allRows(rs: types.ResultSet, during: string): Promise<types.Row[]> {
  const rows: types.Row[] = [];
  try {
    for await (const row of rs) rows.push(row);
  } catch (err) {
    throw toPortError(err, during);
  }
  return rows;
}
