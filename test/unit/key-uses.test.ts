import { describe, expect, it } from 'vitest';
import { Authenticator } from '../../src/app/authenticate.js';
import { KEY_USE_WRITE_EVERY_MS, KeyUses } from '../../src/app/key-uses.js';
import { hashSecret, newApiKey } from '../../src/domain/ids.js';
import type { ApiKeyRecord, Project } from '../../src/domain/project.js';
import type { ProjectStore } from '../../src/ports/projects.js';
import { FakeClock } from '../support/fake-clock.js';

/** A project store that holds one project and its keys, and records every write of a key's use. */
function storeWith(keys: ApiKeyRecord[], project: Project): { store: ProjectStore; uses: Array<[string, number]> } {
  const uses: Array<[string, number]> = [];
  const unused = () => Promise.reject(new Error('not used by these tests'));
  const store: ProjectStore = {
    createProject: unused,
    getProject: async (id) => (id === project.id ? project : null),
    listProjects: unused,
    updateProject: unused,
    createApiKey: unused,
    getApiKey: async (keyId) => keys.find((k) => k.keyId === keyId) ?? null,
    listApiKeys: unused,
    revokeApiKey: unused,
    recordKeyUse: async (keyId, at) => {
      uses.push([keyId, at]);
    },
    activeSigningSecrets: unused,
    rotateSigningSecret: unused,
  };
  return { store, uses };
}

const PROJECT: Project = { id: 'prj_1', name: 'p', monthlyAllowance: 10, scheduleAllowance: 1, retentionDays: 1, captureResponseBodies: true, createdAt: 0 };

describe('key uses', () => {
  it('writes the first use at once, then at most once a minute per key', () => {
    const clock = new FakeClock(1_000_000);
    const { store, uses } = storeWith([], PROJECT);
    const keyUses = new KeyUses(store, clock);
    keyUses.used('a');
    keyUses.used('a');
    keyUses.used('b');
    clock.advance(KEY_USE_WRITE_EVERY_MS - 1);
    keyUses.used('a');
    expect(uses).toEqual([
      ['a', 1_000_000],
      ['b', 1_000_000],
    ]);
    clock.advance(1);
    keyUses.used('a');
    keyUses.used('a');
    expect(uses).toEqual([
      ['a', 1_000_000],
      ['b', 1_000_000],
      ['a', 1_000_000 + KEY_USE_WRITE_EVERY_MS],
    ]);
  });

  it('does not retry a failed write at once: the next one is a minute later', async () => {
    const clock = new FakeClock(0);
    const { store } = storeWith([], PROJECT);
    let writes = 0;
    const failed: unknown[] = [];
    const failing: ProjectStore = {
      ...store,
      recordKeyUse: async () => {
        writes++;
        throw new Error('storage is down');
      },
    };
    const keyUses = new KeyUses(failing, clock, (err) => failed.push(err));
    keyUses.used('a');
    keyUses.used('a');
    await Promise.resolve();
    expect(writes).toBe(1);
    expect(failed).toHaveLength(1);
  });

  it('are noted by authentication, on a cached key as on one read from storage', async () => {
    const clock = new FakeClock(0);
    const issued = newApiKey();
    const key: ApiKeyRecord = { keyId: issued.keyId, projectId: PROJECT.id, secretHash: hashSecret(issued.secret), createdAt: 0, revokedAt: null, lastUsedAt: null };
    const { store, uses } = storeWith([key], PROJECT);
    const auth = new Authenticator(store, clock, 5 * KEY_USE_WRITE_EVERY_MS, new KeyUses(store, clock));
    expect(await auth.authenticate(`Bearer ${issued.token}`)).toBe(PROJECT);
    clock.advance(KEY_USE_WRITE_EVERY_MS);
    // Within the cache's lifetime: no storage read, and the use is still noted.
    expect(await auth.authenticate(`Bearer ${issued.token}`)).toBe(PROJECT);
    expect(uses).toEqual([
      [issued.keyId, 0],
      [issued.keyId, KEY_USE_WRITE_EVERY_MS],
    ]);
    await expect(auth.authenticate('Bearer fry_unknown_key')).rejects.toThrow();
    expect(uses).toHaveLength(2);
  });
});
