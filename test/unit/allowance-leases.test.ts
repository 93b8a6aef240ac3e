import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openEmbeddedBackend } from '../../src/adapters/embedded/backend.js';
import { AllowanceLeases } from '../../src/app/allowance-leases.js';
import type { Backend } from '../../src/ports/backend.js';
import type { UsageStore } from '../../src/ports/usage.js';

describe('allowance leases over the embedded usage store', () => {
  let backend: Backend;
  beforeEach(() => {
    backend = openEmbeddedBackend({ path: join(mkdtempSync(join(tmpdir(), 'ferry-allowance-')), 'db.sqlite') });
  });
  afterEach(async () => {
    await backend.close();
  });

  it('never hands out more than the limit, even in parallel and with blocks larger than what is left', async () => {
    const leases = new AllowanceLeases(backend.usage, 8);
    const results = await Promise.all(Array.from({ length: 50 }, () => leases.take('prj_a', '2026-11', 1, 21)));
    expect(results.filter(Boolean)).toHaveLength(21);
    expect(await backend.usage.used('prj_a', '2026-11')).toBe(21);
  });

  it('reserves in blocks, gives back unused units on release, and keeps periods apart', async () => {
    const leases = new AllowanceLeases(backend.usage, 10);
    expect(await leases.take('prj_b', '2026-11', 3, 1000)).toBe(true);
    expect(await backend.usage.used('prj_b', '2026-11')).toBe(10);
    leases.giveBack('prj_b', '2026-11', 1);
    expect(await leases.take('prj_b', '2026-12', 2, 1000)).toBe(true);
    await leases.releaseAll();
    expect(await backend.usage.used('prj_b', '2026-11')).toBe(2);
    expect(await backend.usage.used('prj_b', '2026-12')).toBe(2);
  });

  it('takes a batch larger than a block in one reservation, all or nothing', async () => {
    const leases = new AllowanceLeases(backend.usage, 4);
    expect(await leases.take('prj_c', '2026-11', 9, 10)).toBe(true);
    expect(await leases.take('prj_c', '2026-11', 2, 10)).toBe(false);
    expect(await leases.take('prj_c', '2026-11', 1, 10)).toBe(true);
    expect(await backend.usage.used('prj_c', '2026-11')).toBe(10);
  });

  it('reserves the next block once half of the current one is used, and gives both back on release', async () => {
    const leases = new AllowanceLeases(backend.usage, 8);
    for (let i = 0; i < 5; i++) expect(await leases.take('prj_d', '2026-11', 1, 1000)).toBe(true);
    await expect.poll(() => backend.usage.used('prj_d', '2026-11')).toBe(16);
    // A third block is reserved ahead meanwhile (it may still be on its way): release gives back all not taken.
    for (let i = 0; i < 11; i++) expect(await leases.take('prj_d', '2026-11', 1, 1000)).toBe(true);
    await leases.releaseAll();
    expect(await backend.usage.used('prj_d', '2026-11')).toBe(16);
  });

  it('reserves bigger blocks while takers outrun them, within a share of the limit', async () => {
    const usage = backend.usage;
    const { counting, sizes } = countingReservations(usage);
    const leases = new AllowanceLeases(counting, 8);
    for (let round = 0; round < 4; round++) {
      const taken = await Promise.all(Array.from({ length: 100 }, () => leases.take('prj_e', '2026-11', 1, 1_000_000)));
      expect(taken.every(Boolean)).toBe(true);
    }
    expect(Math.max(...sizes)).toBeGreaterThanOrEqual(64);
    expect(sizes.length).toBeLessThan(400 / 8);

    // A limit of 1,024 keeps blocks at 16 (1/64 of it), however fast the takers.
    sizes.length = 0;
    await Promise.all(Array.from({ length: 300 }, () => leases.take('prj_f', '2026-11', 1, 1024)));
    expect(Math.max(...sizes)).toBe(16);
    await leases.releaseAll();
    expect(await usage.used('prj_f', '2026-11')).toBe(300);
  });

  it('keeps reserving blocks after a batch too large for what is left was refused', async () => {
    const usage = backend.usage;
    const { counting, sizes } = countingReservations(usage);
    const leases = new AllowanceLeases(counting, 8);
    expect(await leases.take('prj_g', '2026-11', 900, 1000)).toBe(true);
    expect(await leases.take('prj_g', '2026-11', 150, 1000)).toBe(false);
    sizes.length = 0;
    for (let i = 0; i < 40; i++) expect(await leases.take('prj_g', '2026-11', 1, 1000)).toBe(true);
    // Blocks of 8 (about six reservations), not one reservation per request.
    expect(sizes.length).toBeLessThan(10);
  });

  it('applies a lowered limit at once, giving back what was reserved ahead under the old one', async () => {
    const leases = new AllowanceLeases(backend.usage, 64);
    for (let i = 0; i < 3; i++) expect(await leases.take('prj_h', '2026-11', 1, 1_000_000)).toBe(true);
    expect(leases.unused('prj_h', '2026-11')).toBe(61);
    // Lowered to what was taken: nothing more fits, and the block went back.
    expect(await leases.take('prj_h', '2026-11', 1, 3)).toBe(false);
    await expect.poll(() => backend.usage.used('prj_h', '2026-11')).toBe(3);
    expect(leases.unused('prj_h', '2026-11')).toBe(0);
    // Raised again: room for exactly one more.
    expect(await leases.take('prj_h', '2026-11', 1, 4)).toBe(true);
    expect(await leases.take('prj_h', '2026-11', 1, 4)).toBe(false);
    await leases.releaseAll();
    expect(await backend.usage.used('prj_h', '2026-11')).toBe(4);
  });

  it('gives back a block that was being reserved under the old limit when the limit was lowered', async () => {
    let landBlock: (() => void) | undefined;
    const slow: UsageStore = {
      ...backend.usage,
      reserve: async (p, period, count, limit) => {
        // The first block waits until the limit has been lowered.
        if (landBlock === undefined) await new Promise<void>((res) => (landBlock = res));
        return backend.usage.reserve(p, period, count, limit);
      },
      release: backend.usage.release.bind(backend.usage),
      used: backend.usage.used.bind(backend.usage),
    };
    const leases = new AllowanceLeases(slow, 64);
    const first = leases.take('prj_i', '2026-11', 1, 1_000_000);
    await expect.poll(() => landBlock !== undefined).toBe(true);
    const lowered = leases.take('prj_i', '2026-11', 1, 2);
    landBlock!();
    expect(await first).toBe(true);
    expect(await lowered).toBe(true);
    // Two taken, the limit reached: the block reserved under the old limit is not handed out.
    expect(await leases.take('prj_i', '2026-11', 1, 2)).toBe(false);
    await leases.releaseAll();
    await expect.poll(() => backend.usage.used('prj_i', '2026-11')).toBe(2);
  });
});

/** The usage store, recording the size of every block reserved through it. */
function countingReservations(usage: UsageStore): { counting: UsageStore; sizes: number[] } {
  const sizes: number[] = [];
  const counting: UsageStore = {
    reserve: (p, period, count, limit) => (sizes.push(count), usage.reserve(p, period, count, limit)),
    release: usage.release.bind(usage),
    used: usage.used.bind(usage),
  };
  return { counting, sizes };
}
