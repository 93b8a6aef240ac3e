import { describe, expect, it } from 'vitest';
import type { ApiKeyRecord, Project, SigningSecret } from '../../../src/domain/project.js';
import { PROJECT_A, PROJECT_B, T0, awkwardBytes, useBackend, type BackendFactory } from './harness.js';

/** Projects, API keys and signing secrets: ProjectStore. */
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
      captureResponseBodies: true,
      createdAt: T0,
    };
    const key: ApiKeyRecord = {
      keyId: 'key_contract_1',
      projectId: PROJECT_A,
      secretHash: new Uint8Array(32).map((_, i) => 255 - i * 3),
      createdAt: T0 + 1,
      revokedAt: null,
      lastUsedAt: null,
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

    it('lists every project oldest first', async () => {
      expect(await store().listProjects()).toEqual([]);
      const later = { ...project, id: PROJECT_B, name: 'b', createdAt: T0 + 5 };
      await store().createProject(later);
      await store().createProject(project);
      expect(await store().listProjects()).toStrictEqual([project, later]);
    });

    it('changes only the settings given, and changes (and creates) nothing for an unknown project', async () => {
      await store().createProject(project);
      const changed = await store().updateProject(PROJECT_A, { monthlyAllowance: 5_000_000_000, retentionDays: 7 });
      const expected = { ...project, monthlyAllowance: 5_000_000_000, retentionDays: 7 };
      expect(changed).toStrictEqual(expected);
      expect(await store().getProject(PROJECT_A)).toStrictEqual(expected);
      expect(await store().updateProject(PROJECT_A, { name: 'renamed', scheduleAllowance: 0 })).toStrictEqual({ ...expected, name: 'renamed', scheduleAllowance: 0 });
      expect(await store().updateProject(PROJECT_A, {})).toStrictEqual({ ...expected, name: 'renamed', scheduleAllowance: 0 });
      const quiet = { ...expected, name: 'renamed', scheduleAllowance: 0, captureResponseBodies: false };
      expect(await store().updateProject(PROJECT_A, { captureResponseBodies: false })).toStrictEqual(quiet);
      expect(await store().updateProject(PROJECT_A, { retentionDays: 7 })).toStrictEqual(quiet);
      expect(await store().getProject(PROJECT_A)).toStrictEqual(quiet);

      expect(await store().updateProject(PROJECT_B, { name: 'ghost' })).toBeNull();
      expect(await store().getProject(PROJECT_B)).toBeNull();
      expect((await store().listProjects()).map((p) => p.id)).toEqual([PROJECT_A]);
    });

    it("lists a project's keys oldest first, revoked ones included, and no other project's", async () => {
      const second = { ...key, keyId: 'key_contract_2', createdAt: T0 + 2 };
      await store().createApiKey(second);
      await store().createApiKey(key);
      await store().createApiKey({ ...key, keyId: 'key_contract_b', projectId: PROJECT_B });
      await store().revokeApiKey(second.keyId, T0 + 50);
      expect(await store().listApiKeys(PROJECT_A)).toStrictEqual([key, { ...second, revokedAt: T0 + 50 }]);
      expect((await store().listApiKeys(PROJECT_B)).map((k) => k.keyId)).toEqual(['key_contract_b']);
      expect(await store().listApiKeys('prj_unknown')).toEqual([]);
    });

    it("records a key's last use, never moving it back, and leaves an unknown key absent", async () => {
      await store().createApiKey(key);
      await store().recordKeyUse(key.keyId, T0 + 60_000);
      expect((await store().getApiKey(key.keyId))?.lastUsedAt).toBe(T0 + 60_000);
      await store().recordKeyUse(key.keyId, T0 + 30_000);
      expect((await store().getApiKey(key.keyId))?.lastUsedAt).toBe(T0 + 60_000);
      await store().recordKeyUse(key.keyId, T0 + 120_000);
      expect(await store().listApiKeys(PROJECT_A)).toStrictEqual([{ ...key, lastUsedAt: T0 + 120_000 }]);
      // A revoked key keeps its last use.
      await store().revokeApiKey(key.keyId, T0 + 130_000);
      expect(await store().getApiKey(key.keyId)).toStrictEqual({ ...key, lastUsedAt: T0 + 120_000, revokedAt: T0 + 130_000 });

      await store().recordKeyUse('key_unknown', T0);
      expect(await store().getApiKey('key_unknown')).toBeNull();
      expect(await store().revokeApiKey('key_unknown', T0)).toBe(false);
    });

    it('revokes a known key and reports an unknown one', async () => {
      await store().createApiKey(key);
      expect(await store().revokeApiKey(key.keyId, T0 + 100)).toBe(true);
      expect(await store().getApiKey(key.keyId)).toStrictEqual({ ...key, revokedAt: T0 + 100 });
      expect(await store().revokeApiKey(key.keyId, T0 + 200)).toBe(true);
      expect((await store().getApiKey(key.keyId))?.revokedAt).not.toBeNull();
      expect(await store().revokeApiKey('key_unknown', T0)).toBe(false);
    });

    const secret = (n: number, projectId = PROJECT_A): SigningSecret => ({
      projectId,
      secret: new Uint8Array(32).fill(n),
      createdAt: T0 + n,
      retiresAt: null,
    });

    it('keeps a rotated-out signing secret active until it retires, newest first', async () => {
      expect(await store().activeSigningSecrets(PROJECT_A, T0)).toEqual([]);
      const first = { ...secret(1), secret: awkwardBytes() };
      await store().rotateSigningSecret(first, T0 + 1);
      expect(await store().activeSigningSecrets(PROJECT_A, T0 + 1)).toStrictEqual([first]);

      await store().rotateSigningSecret(secret(2), T0 + 1_000);
      await store().rotateSigningSecret(secret(3, PROJECT_B), T0 + 3);
      expect(await store().activeSigningSecrets(PROJECT_A, T0 + 999)).toStrictEqual([secret(2), { ...first, retiresAt: T0 + 1_000 }]);
      expect(await store().activeSigningSecrets(PROJECT_A, T0 + 1_000)).toStrictEqual([secret(2)]);
      expect(await store().activeSigningSecrets(PROJECT_B, T0 + 1_000)).toStrictEqual([secret(3, PROJECT_B)]);
    });

    it('retires the other current secret at once when the overlap is zero', async () => {
      await store().rotateSigningSecret(secret(1), T0 + 1);
      await store().rotateSigningSecret(secret(2), T0 + 2);
      expect(await store().activeSigningSecrets(PROJECT_A, T0 + 2)).toStrictEqual([secret(2)]);
    });
  });
}
