import { describe, expect, it } from 'vitest';
import { BulkPace } from '../../src/workers/bulk/bulk-pace.js';

describe('the pause between the batches of a bulk action', () => {
  const options = { minPauseMs: 100, maxPauseMs: 5_000, targetDelayMs: 20 };

  it('stays at the configured pause while the main thread keeps up', () => {
    const pace = new BulkPace(options, () => 3);
    expect([pace.next(), pace.next(), pace.next()]).toEqual([100, 100, 100]);
  });

  it('doubles while the main thread runs late, up to the bound, and comes back down by a fifth at a time', () => {
    let delay = 50;
    const pace = new BulkPace(options, () => delay);
    const backing = Array.from({ length: 8 }, () => pace.next());
    expect(backing).toEqual([200, 400, 800, 1_600, 3_200, 5_000, 5_000, 5_000]);
    delay = 2;
    expect([pace.next(), pace.next()]).toEqual([4_000, 3_200]);
    for (let i = 0; i < 40; i++) pace.next();
    expect(pace.next()).toBe(100);
  });

  it('backs off from no pause at all', () => {
    const pace = new BulkPace({ ...options, minPauseMs: 0 }, () => 30);
    expect(pace.next()).toBe(50);
  });
});
