import type { ApiKeyRecord, Project, SigningSecret } from '../domain/project.js';

/** Projects and their API keys. Only hashes of key secrets are ever stored. */
export interface ProjectStore {
  createProject(project: Project): Promise<void>;
  getProject(id: string): Promise<Project | null>;
  createApiKey(key: ApiKeyRecord): Promise<void>;
  getApiKey(keyId: string): Promise<ApiKeyRecord | null>;
  /** Marks the key revoked; false when there is no such key. */
  revokeApiKey(keyId: string, at: number): Promise<boolean>;
  /** Signing secrets of the project that still sign at `now`, newest first. */
  activeSigningSecrets(projectId: string, now: number): Promise<SigningSecret[]>;
  /** Adds a new current secret and retires every other current one at `retireOthersAt`, in one write. */
  rotateSigningSecret(secret: SigningSecret, retireOthersAt: number): Promise<void>;
}
