import type { ApiKeyRecord, Project } from '../domain/project.js';

/** Projects and their API keys. Only hashes of key secrets are ever stored. */
export interface ProjectStore {
  createProject(project: Project): Promise<void>;
  getProject(id: string): Promise<Project | null>;
  createApiKey(key: ApiKeyRecord): Promise<void>;
  getApiKey(keyId: string): Promise<ApiKeyRecord | null>;
  /** Marks the key revoked; false when there is no such key. */
  revokeApiKey(keyId: string, at: number): Promise<boolean>;
}
