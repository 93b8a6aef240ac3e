import { describe, expect, it } from 'vitest';
import type { SigningSecret } from '../../src/domain/project.js';
import type { ProjectStore } from '../../src/ports/projects.js';
import { ProjectDeliveryCache } from '../../src/workers/delivery/project-delivery.js';
import { clockAt } from '../support/fake-clock.js';

/** A project store that answers only signing-secret reads, counting them; `fail` makes the next read fail. */
function secretsStore() {
  const state = { reads: 0, fail: false, capture: false };
  const secret: SigningSecret = { projectId: 'prj_a', secret: new Uint8Array([1, 2, 3]), createdAt: 0, retiresAt: null };
  const store = {
    activeSigningSecrets: async () => {
      state.reads += 1;
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (state.fail) {
        state.fail = false;
        throw new Error('storage down');
      }
      return [secret];
    },
    getProject: async () => ({ captureResponseBodies: state.capture }),
  } as unknown as ProjectStore;
  return { state, store };
}

describe('ProjectDeliveryCache', () => {
  it('serves many attempts that miss at once with one read, then from the cache until it expires', async () => {
    const { state, store } = secretsStore();
    let now = 1_000;
    const cache = new ProjectDeliveryCache(store, clockAt(() => now));
    const all = await Promise.all(Array.from({ length: 50 }, () => cache.get('prj_a')));
    expect(state.reads).toBe(1);
    expect(all.every((s) => s.secrets.length === 1 && s.secrets[0]![0] === 1 && !s.captureResponseBodies)).toBe(true);
    now += 4_000;
    await cache.get('prj_a');
    expect(state.reads).toBe(1);
    now += 2_000;
    await Promise.all([cache.get('prj_a'), cache.get('prj_a')]);
    expect(state.reads).toBe(2);
  });

  it('does not keep a failed read', async () => {
    const { state, store } = secretsStore();
    const cache = new ProjectDeliveryCache(store, clockAt(() => 1_000));
    state.fail = true;
    await expect(cache.get('prj_a')).rejects.toThrow('storage down');
    expect((await cache.get('prj_a')).secrets.length).toBe(1);
    expect(state.reads).toBe(2);
  });
});
