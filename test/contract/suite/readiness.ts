import { describe, expect, it } from 'vitest';
import { StorageUnavailable } from '../../../src/ports/errors.js';
import type { BackendFactory } from './harness.js';

/** The readiness probe of every backend: `Backend.ready`. */
export function describeReadinessContract(makeBackend: BackendFactory): void {
  describe('Backend.ready', () => {
    it('resolves while storage takes writes, again and again, and rejects with StorageUnavailable once closed', async () => {
      const backend = await makeBackend();
      let closed = false;
      try {
        await backend.ready();
        await Promise.all(Array.from({ length: 10 }, () => backend.ready()));
        await backend.close();
        closed = true;
        await expect(backend.ready()).rejects.toBeInstanceOf(StorageUnavailable);
      } finally {
        if (!closed) await backend.close();
      }
    });
  });
}
