import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach } from 'vitest';
import { openEmbeddedBackend, type EmbeddedBackend } from '../../src/adapters/embedded/backend.js';
import { systemClock } from '../../src/domain/clock.js';
import { DeliveryEngine, type DeliveryEngineOptions } from '../../src/workers/delivery/engine.js';

type EngineSettings = Partial<DeliveryEngineOptions> & Pick<DeliveryEngineOptions, 'requests' | 'transport'>;

/**
 * Delivery engines over real embedded stores, one store per test case in a temporary folder: the engine and its
 * store are stopped and closed after each case, the folder after the file.
 */
export function engineHarness(name: string): {
  openBackend(): EmbeddedBackend;
  startEngine(backend: EmbeddedBackend, settings: EngineSettings): DeliveryEngine;
} {
  const dir = mkdtempSync(join(tmpdir(), `ferry-${name}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let opened: { backend: EmbeddedBackend; engine: DeliveryEngine } | null = null;
  afterEach(async () => {
    await opened?.engine.stop(1_000);
    await opened?.backend.close();
    opened = null;
  });
  return {
    openBackend: () => openEmbeddedBackend({ path: join(dir, `case-${Math.random().toString(36).slice(2)}`, 'ferry.db') }),
    startEngine(backend, settings) {
      const engine = new DeliveryEngine({
        clock: systemClock,
        projectDelivery: async () => ({ secrets: [new Uint8Array(32)], captureResponseBodies: true }),
        retry: { baseMs: 1_000, capMs: 1_000, retryAfterCapMs: 1_000 },
        maxInFlight: 64,
        maxPerHost: 64,
        maxPerQueue: 64,
        // Longer than any test waits: a look that happens came from the engine's own reasons, not from its poll.
        idlePollMs: 60_000,
        userAgent: 'ferry-test',
        ...settings,
      });
      opened = { backend, engine };
      return engine;
    },
  };
}
