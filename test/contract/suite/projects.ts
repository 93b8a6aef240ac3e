import { describe, expect, it } from 'vitest';
import type { ApiKeyRecord, Project } from '../../../src/domain/project.js';
import { PROJECT_A, T0, useBackend, type BackendFactory } from './harness.js';

/** Projects and API keys: ProjectStore. */
export function describeProjectStoreContract(makeBackend: BackendFactory): void {
  describe('ProjectStore', () => {
    const backend = useBackend(makeBackend);
    const store = () => backend().projects;

    const project: Project = {
      id: PROJECT_A,
      name: 'Billing — production',
      monthlyAllowance: 1_000_000,
      scheduleAllowance: 25,
      retentionDays: 30,
      createdAt: T0,
    };
    const key: ApiKeyRecord = {
      keyId: 'key_contract_1',
      projectId: PROJECT_A,
      secretHash: new Uint8Array(32).map((_, i) => 255 - i * 3),
      createdAt: T0 + 1,
      revokedAt: null,
    };

    it('returns a project as created, and null for an unknown one', async () => {
      await store().createProject(project);
      expect(await store().getProject(PROJECT_A)).toStrictEqual(project);
      expect(await store().getProject('prj_unknown')).toBeNull();
    });

    it('returns an API key with its exact hash, and null for an unknown one', async () => {
      await store().createApiKey(key);
      expect(await store().getApiKey(key.keyId)).toStrictEqual(key);
      expect(await store().getApiKey('key_unknown')).toBeNull();
    });

    it('revokes a known key and reports an unknown one', async () => {
      await store().createApiKey(key);
      expect(await store().revokeApiKey(key.keyId, T0 + 100)).toBe(true);
      expect(await store().getApiKey(key.keyId)).toStrictEqual({ ...key, revokedAt: T0 + 100 });
      expect(await store().revokeApiKey(key.keyId, T0 + 200)).toBe(true);
      expect((await store().getApiKey(key.keyId))?.revokedAt).not.toBeNull();
      expect(await store().revokeApiKey('key_unknown', T0)).toBe(false);
    });
  });
}
