import { describe, expect, it } from 'vitest';
import { BulkPace, QuietLateness } from '../../src/workers/bulk/bulk-pace.js';

describe('the pause between the batches of a bulk action', () => {
  const options = { minPauseMs: 100, maxPauseMs: 5_000, targetDelayMs: 20, quietFactor: 2 };

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

  it('measures lateness against what it is while no action runs: twice that, and at least the floor', () => {
    const quiet = new QuietLateness();
    let delay = 30;
    const pace = new BulkPace(options, () => delay, quiet);
    expect(pace.next()).toBe(200); // no quiet figure yet: the floor, 20 ms, decides
    for (let i = 0; i < 40; i++) quiet.observe(25); // a busier process: 25 ms late with no action running
    expect(quiet.ms).toBeCloseTo(25, 1);
    expect([pace.next(), pace.next()]).toEqual([160, 128]); // 30 ms is within twice 25
    delay = 60;
    expect(pace.next()).toBe(256);
    quiet.observe(0); // one quiet reading moves the average a fifth of the way
    expect(quiet.ms).toBeCloseTo(20, 1);
  });
});
