import type { Clock } from '../domain/clock.js';
import { FerryError, quoteInput } from '../domain/errors.js';
import { hashSecret, isProjectId, newApiKey, newProjectId, parseApiKey } from '../domain/ids.js';
import type { Project } from '../domain/project.js';
import type { ProjectStore } from '../ports/projects.js';
import { newSigningSecret } from '../domain/delivery/signature.js';

export interface NewProjectInput {
  readonly name: string;
  readonly monthlyAllowance?: number;
  readonly scheduleAllowance?: number;
  readonly retentionDays?: number;
}

export const PROJECT_DEFAULTS = { monthlyAllowance: 1_000_000, scheduleAllowance: 100, retentionDays: 30 } as const;

/** Issues projects and API keys. The plain key is returned once and only its hash is stored. */
export class ProjectAdmin {
  constructor(
    private readonly projects: ProjectStore,
    private readonly clock: Clock,
  ) {}

  async createProject(input: NewProjectInput): Promise<{ project: Project; apiKey: string; signingSecret: string }> {
    const name = input.name.trim();
    if (name.length === 0 || Buffer.byteLength(name) > 120) {
      throw new FerryError('INVALID_FIELD', 'The project name must be 1 to 120 bytes.', 'name');
    }
    const now = this.clock.now();
    const project: Project = {
      id: newProjectId(now),
      name,
      monthlyAllowance: count(input.monthlyAllowance ?? PROJECT_DEFAULTS.monthlyAllowance, 'monthly_allowance', 0, 1e12),
      scheduleAllowance: count(input.scheduleAllowance ?? PROJECT_DEFAULTS.scheduleAllowance, 'schedule_allowance', 0, 1e9),
      retentionDays: count(input.retentionDays ?? PROJECT_DEFAULTS.retentionDays, 'retention_days', 1, 3650),
      createdAt: now,
    };
    await this.projects.createProject(project);
    const apiKey = await this.createKey(project.id);
    const signingSecret = await this.rotateSigningSecret(project.id, 0);
    return { project, apiKey, signingSecret };
  }

  /**
   * Makes a new signing secret current; the previous ones keep signing for `overlapMs`, so receivers can switch
   * without rejecting a delivery. Returns the new secret, shown once.
   */
  async rotateSigningSecret(projectId: string, overlapMs: number): Promise<string> {
    if (!isProjectId(projectId) || (await this.projects.getProject(projectId)) === null) {
      throw new FerryError('NOT_FOUND', `No project ${quoteInput(projectId)}.`);
    }
    const now = this.clock.now();
    const { secret, encoded } = newSigningSecret();
    await this.projects.rotateSigningSecret({ projectId, secret, createdAt: now, retiresAt: null }, now + overlapMs);
    return encoded;
  }

  /** Creates another key for the project, e.g. to rotate keys without downtime. */
  async createKey(projectId: string): Promise<string> {
    if (!isProjectId(projectId) || (await this.projects.getProject(projectId)) === null) {
      throw new FerryError('NOT_FOUND', `No project ${quoteInput(projectId)}.`);
    }
    const key = newApiKey();
    await this.projects.createApiKey({
      keyId: key.keyId,
      projectId,
      secretHash: hashSecret(key.secret),
      createdAt: this.clock.now(),
      revokedAt: null,
    });
    return key.token;
  }

  /** Revokes a key given as the full token or its key ID. */
  async revokeKey(tokenOrKeyId: string): Promise<string> {
    const keyId = parseApiKey(tokenOrKeyId)?.keyId ?? tokenOrKeyId;
    if (!(await this.projects.revokeApiKey(keyId, this.clock.now()))) {
      throw new FerryError('NOT_FOUND', `No API key ${quoteInput(keyId)}.`);
    }
    return keyId;
  }
}

function count(value: number, field: string, min: number, max: number): number {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new FerryError('INVALID_FIELD', `${field} must be an integer from ${min} to ${max}.`, field);
  }
  return value;
}
