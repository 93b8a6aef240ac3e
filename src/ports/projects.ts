import type { ApiKeyRecord, Project, ProjectChanges, SigningSecret } from '../domain/project.js';

/** Projects and their API keys. Only hashes of key secrets are ever stored. */
export interface ProjectStore {
  createProject(project: Project): Promise<void>;
  getProject(id: string): Promise<Project | null>;
  /** Every project, oldest first (IDs sort by creation time). An operator's listing: it reads them all. */
  listProjects(): Promise<Project[]>;
  /** Applies the changes to the project and returns it as changed; null (and nothing written) when there is none. */
  updateProject(id: string, changes: ProjectChanges): Promise<Project | null>;
  createApiKey(key: ApiKeyRecord): Promise<void>;
  getApiKey(keyId: string): Promise<ApiKeyRecord | null>;
  /** The project's keys, revoked ones included, oldest first; an operator's listing. */
  listApiKeys(projectId: string): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked; false when there is no such key. */
  revokeApiKey(keyId: string, at: number): Promise<boolean>;
  /**
   * Moves the key's last use forward to `at` (never back, so late or concurrent writes cannot undo a newer one).
   * A key that does not exist is left absent. Callers write it sparingly (see `KeyUses`), never once per call.
   */
  recordKeyUse(keyId: string, at: number): Promise<void>;
  /** Signing secrets of the project that still sign at `now`, newest first. */
  activeSigningSecrets(projectId: string, now: number): Promise<SigningSecret[]>;
  /** Adds a new current secret and retires every other current one at `retireOthersAt`, in one write. */
  rotateSigningSecret(secret: SigningSecret, retireOthersAt: number): Promise<void>;
}
