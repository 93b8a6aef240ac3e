import { describe, expect, it } from 'vitest';
import { useBackend, type BackendFactory } from './harness.js';

/** Server-wide secrets created once: SecretStore. */
export function describeSecretStoreContract(makeBackend: BackendFactory): void {
  describe('SecretStore', () => {
    const backend = useBackend(makeBackend);
    const store = () => backend().secrets;
    const bytes = (seed: number) => new Uint8Array(32).map((_, i) => (seed * 31 + i * 17) % 256);

    it('keeps the first candidate for good', async () => {
      expect(await store().getOrCreate('cursor-key', bytes(1))).toStrictEqual(bytes(1));
      expect(await store().getOrCreate('cursor-key', bytes(2))).toStrictEqual(bytes(1));
      expect(await store().getOrCreate('other-key', bytes(3))).toStrictEqual(bytes(3));
    });

    it('agrees on one secret when many callers create it at once', async () => {
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store().getOrCreate('raced', bytes(i))));
      for (const r of results) expect(r).toStrictEqual(results[0]);
      expect(await store().getOrCreate('raced', bytes(99))).toStrictEqual(results[0]);
    });
  });
}
