import type * as Os from 'node:os';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config/config.js';

const cores = vi.hoisted(() => ({ available: 2 }));
vi.mock('node:os', async (importOriginal) => ({
  ...(await importOriginal<typeof Os>()),
  availableParallelism: () => cores.available,
}));

afterEach(() => {
  cores.available = 2;
});

describe('FERRY_DELIVERY_THREADS', () => {
  it.each([
    [1, 0],
    [2, 1],
    [16, 1],
  ])('defaults, with %i core(s), to %i delivery thread(s)', (available, threads) => {
    cores.available = available;
    expect(loadConfig({}).delivery.threads).toBe(threads);
  });

  it('takes 0 to keep attempts on the main thread, and counts up to 64, whatever the cores', () => {
    cores.available = 1;
    expect(loadConfig({ FERRY_DELIVERY_THREADS: '4' }).delivery.threads).toBe(4);
    cores.available = 8;
    expect(loadConfig({ FERRY_DELIVERY_THREADS: '0' }).delivery.threads).toBe(0);
    expect(loadConfig({ FERRY_DELIVERY_THREADS: '64' }).delivery.threads).toBe(64);
  });

  it.each(['65', '-1', '1.5', 'two'])('refuses %s with the setting named', (value) => {
    expect(() => loadConfig({ FERRY_DELIVERY_THREADS: value })).toThrow(/FERRY_DELIVERY_THREADS/);
  });
});
