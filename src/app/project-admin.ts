import type { Clock } from '../domain/clock.js';
import { newSigningSecret } from '../domain/delivery/signature.js';
import { FerryError } from '../domain/errors.js';
import { hashSecret, isProjectId, newApiKey, newProjectId, parseApiKey } from '../domain/ids.js';
import type { ApiKeyRecord, Project, ProjectChanges } from '../domain/project.js';
import { validateProjectChanges, validateProjectName, validateProjectSetting } from '../domain/validation/index.js';
import type { ProjectStore } from '../ports/projects.js';

export interface NewProjectInput {
  readonly name: string;
  readonly monthlyAllowance?: number;
  readonly scheduleAllowance?: number;
  readonly retentionDays?: number;
  readonly captureResponseBodies?: boolean;
}

export const PROJECT_DEFAULTS = { monthlyAllowance: 1_000_000, scheduleAllowance: 100, retentionDays: 30, captureResponseBodies: true } as const;

/** An API key as issued: the plain token, shown this once, and the key ID that names it from then on. */
export interface IssuedKey {
  readonly keyId: string;
  readonly token: string;
}

/** Issues, lists and changes projects and API keys. The plain key is returned once and only its hash is stored. */
export class ProjectAdmin {
  constructor(
    private readonly projects: ProjectStore,
    private readonly clock: Clock,
  ) {}

  async createProject(input: NewProjectInput): Promise<{ project: Project; apiKey: IssuedKey; signingSecret: string }> {
    const now = this.clock.now();
    const project: Project = {
      id: newProjectId(now),
      name: validateProjectName(input.name),
      monthlyAllowance: validateProjectSetting('monthlyAllowance', input.monthlyAllowance ?? PROJECT_DEFAULTS.monthlyAllowance),
      scheduleAllowance: validateProjectSetting('scheduleAllowance', input.scheduleAllowance ?? PROJECT_DEFAULTS.scheduleAllowance),
      retentionDays: validateProjectSetting('retentionDays', input.retentionDays ?? PROJECT_DEFAULTS.retentionDays),
      captureResponseBodies: input.captureResponseBodies ?? PROJECT_DEFAULTS.captureResponseBodies,
      createdAt: now,
    };
    await this.projects.createProject(project);
    const apiKey = await this.createKey(project.id);
    const signingSecret = await this.rotateSigningSecret(project.id, 0);
    return { project, apiKey, signingSecret };
  }

  /** Every project, oldest first. */
  listProjects(): Promise<Project[]> {
    return this.projects.listProjects();
  }

  async project(projectId: string): Promise<Project> {
    const project = isProjectId(projectId) ? await this.projects.getProject(projectId) : null;
    if (project === null) throw noProject(projectId);
    return project;
  }

  /**
   * Changes a project's settings. Running servers apply them within FERRY_AUTH_CACHE_MS (they keep a project
   * with its key for that long): a lower allowance refuses new work from then on, and already counted usage stays.
   */
  async updateProject(projectId: string, changes: ProjectChanges): Promise<Project> {
    const checked = validateProjectChanges(changes);
    const updated = isProjectId(projectId) ? await this.projects.updateProject(projectId, checked) : null;
    if (updated === null) throw noProject(projectId);
    return updated;
  }

  /**
   * Makes a new signing secret current; the previous ones keep signing for `overlapMs`, so receivers can switch
   * without rejecting a delivery. Returns the new secret, shown once.
   */
  async rotateSigningSecret(projectId: string, overlapMs: number): Promise<string> {
    await this.project(projectId);
    const now = this.clock.now();
    const { secret, encoded } = newSigningSecret();
    await this.projects.rotateSigningSecret({ projectId, secret, createdAt: now, retiresAt: null }, now + overlapMs);
    return encoded;
  }

  /** Creates another key for the project, e.g. to rotate keys without downtime. */
  async createKey(projectId: string): Promise<IssuedKey> {
    await this.project(projectId);
    const key = newApiKey();
    await this.projects.createApiKey({
      keyId: key.keyId,
      projectId,
      secretHash: hashSecret(key.secret),
      createdAt: this.clock.now(),
      revokedAt: null,
      lastUsedAt: null,
    });
    return { keyId: key.keyId, token: key.token };
  }

  /** The project's keys, revoked ones included, oldest first; their hashes stay with the caller. */
  async listKeys(projectId: string): Promise<ApiKeyRecord[]> {
    await this.project(projectId);
    return this.projects.listApiKeys(projectId);
  }

  /** Revokes a key given as the full token or its key ID. */
  async revokeKey(tokenOrKeyId: string): Promise<string> {
    const keyId = parseApiKey(tokenOrKeyId)?.keyId ?? tokenOrKeyId;
    if (!(await this.projects.revokeApiKey(keyId, this.clock.now()))) {
      throw new FerryError('NOT_FOUND', `No API key ${JSON.stringify(keyId)}.`);
    }
    return keyId;
  }
}

function noProject(projectId: string): FerryError {
  return new FerryError('NOT_FOUND', `No project ${JSON.stringify(projectId)}.`);
}
