import type { UsageStore } from '../ports/usage.js';

const MAX_POOLS = 10_000;
/** Blocks grow up to this size, and to no more than this share of the limit. */
const MAX_BLOCK = 4096;
const MAX_BLOCK_SHARE_OF_LIMIT = 1 / 64;

interface Pool {
  available: number;
  /** The size of the next block; it doubles whenever takers had to wait for one. */
  block: number;
  refill: Promise<void> | null;
  /** A taker waited for the refill under way, so the block has already grown for it. */
  grown: boolean;
  /** A whole block was refused: the limit is near, so no block is reserved ahead any more this period. */
  nearLimit: boolean;
  /** The limit the units in the pool were reserved under. */
  limit: number;
}

/**
 * Hands out a project's monthly allowance from blocks reserved durably in advance, so the accept path makes one
 * durable write per request (the insert) instead of two. Every unit handed out was reserved with a conditional
 * write first, so concurrent calls and processes never overspend. Near the limit, where a whole block no longer
 * fits, each call reserves exactly what it needs. Unused units go back to the store on shutdown; a crash leaves
 * at most two blocks per project and month counted as used (the current one and the next, being reserved).
 *
 * The next block is reserved once half of the current one is used, so a steady stream of requests does not wait
 * for the reservation. Blocks start at `blockSize` and double whenever takers still had to wait (the stream used
 * half a block faster than one conditional write), up to `MAX_BLOCK` and 1/64 of the limit.
 *
 * An operator may change the limit (`ferry project update`). A lower one applies at once: what the pool holds was
 * reserved under the old one, so it goes back to the store and the next call reserves under the new one. A higher
 * one lets blocks be reserved ahead again.
 */
export class AllowanceLeases {
  private readonly pools = new Map<string, Pool>();

  constructor(
    private readonly usage: UsageStore,
    private readonly blockSize = 64,
  ) {}

  /** Takes `count` units of the period's allowance; false when the limit does not allow them. */
  async take(projectId: string, period: string, count: number, limit: number): Promise<boolean> {
    const pool = this.pool(projectId, period, limit);
    if (limit !== pool.limit) this.limitChanged(pool, projectId, period, limit);
    for (;;) {
      if (pool.available >= count) {
        pool.available -= count;
        if (pool.available * 2 < pool.block && pool.refill === null && !pool.nearLimit) {
          void this.refill(pool, projectId, period, pool.block, limit);
        }
        return true;
      }
      if (pool.refill !== null) {
        if (!pool.grown) {
          pool.grown = true;
          pool.block = Math.max(pool.block, Math.min(pool.block * 2, MAX_BLOCK, Math.floor(limit * MAX_BLOCK_SHARE_OF_LIMIT)));
        }
        await pool.refill;
        continue;
      }
      if (pool.nearLimit) return this.usage.reserve(projectId, period, count, limit);
      const granted = await this.refill(pool, projectId, period, Math.max(count, pool.block), limit);
      // A whole block no longer fits: reserve exactly this call's units, or refuse.
      if (!granted) return this.usage.reserve(projectId, period, count, limit);
    }
  }

  private limitChanged(pool: Pool, projectId: string, period: string, limit: number): void {
    const lowered = limit < pool.limit;
    pool.limit = limit;
    pool.nearLimit = false;
    if (!lowered || pool.available === 0) return;
    const units = pool.available;
    pool.available = 0;
    // Should the release fail, the units stay counted as used: never the other way round.
    void this.usage.release(projectId, period, units).catch(() => undefined);
  }

  /** Reserves a block into the pool; false when it was refused or could not be reserved. Never rejects. */
  private async refill(pool: Pool, projectId: string, period: string, block: number, limit: number): Promise<boolean> {
    let granted = false;
    pool.refill = this.usage.reserve(projectId, period, block, limit).then(
      async (ok) => {
        if (ok && pool.limit < limit) {
          // The limit was lowered while this block was being reserved under the old one: it goes back.
          await this.usage.release(projectId, period, block).catch(() => undefined);
          return;
        }
        granted = ok;
        if (ok) pool.available += block;
        // Only a refused block of the usual size says the limit is near; a large batch may just not fit.
        else if (block <= pool.block) pool.nearLimit = true;
      },
      () => undefined,
    );
    try {
      await pool.refill;
    } finally {
      pool.refill = null;
      pool.grown = false;
    }
    return granted;
  }

  /** Returns units taken for requests that were not accepted after all. */
  giveBack(projectId: string, period: string, count: number): void {
    const pool = this.pools.get(poolKey(projectId, period));
    if (pool !== undefined) pool.available += count;
    // Its pool is gone (evicted): the units go back to the store, as the pool's would have.
    else void this.usage.release(projectId, period, count).catch(() => undefined);
  }

  /** Units of the period this process reserved but has not handed out: counted as used in storage, not yet used. */
  unused(projectId: string, period: string): number {
    return this.pools.get(poolKey(projectId, period))?.available ?? 0;
  }

  /** Releases every unused unit to the store (on shutdown). */
  async releaseAll(): Promise<void> {
    const pools = [...this.pools.entries()];
    this.pools.clear();
    // A block reserved ahead lands in its pool; wait for it, or its units would stay counted as used.
    await Promise.all(pools.map(([, pool]) => pool.refill));
    await Promise.all(pools.map(([key, pool]) => this.release(key, pool)));
  }

  private pool(projectId: string, period: string, limit: number): Pool {
    const key = poolKey(projectId, period);
    let pool = this.pools.get(key);
    if (pool === undefined) {
      if (this.pools.size >= MAX_POOLS) this.evictOldest();
      pool = { available: 0, block: this.blockSize, refill: null, grown: false, nearLimit: false, limit };
      this.pools.set(key, pool);
    }
    return pool;
  }

  private evictOldest(): void {
    const [key, pool] = this.pools.entries().next().value!;
    this.pools.delete(key);
    void this.release(key, pool).catch(() => undefined);
  }

  private async release(key: string, pool: Pool): Promise<void> {
    if (pool.available <= 0) return;
    const [projectId, period] = key.split('\u0000') as [string, string];
    const units = pool.available;
    pool.available = 0;
    await this.usage.release(projectId, period, units);
  }
}

function poolKey(projectId: string, period: string): string {
  return `${projectId}\u0000${period}`;
}
