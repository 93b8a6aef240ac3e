import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';

describe('FERRY_DELIVERY_THREADS', () => {
  it('defaults to one delivery thread when there is a second core, none otherwise', () => {
    expect(loadConfig({}).delivery.threads).toBe(availableParallelism() > 1 ? 1 : 0);
  });

  it('takes 0 to keep attempts on the main thread, and counts up to 64', () => {
    expect(loadConfig({ FERRY_DELIVERY_THREADS: '0' }).delivery.threads).toBe(0);
    expect(loadConfig({ FERRY_DELIVERY_THREADS: '4' }).delivery.threads).toBe(4);
    expect(loadConfig({ FERRY_DELIVERY_THREADS: '64' }).delivery.threads).toBe(64);
  });

  it.each(['65', '-1', '1.5', 'two'])('refuses %s with the setting named', (value) => {
    expect(() => loadConfig({ FERRY_DELIVERY_THREADS: value })).toThrow(/FERRY_DELIVERY_THREADS/);
  });
});
