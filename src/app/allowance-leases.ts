import type { UsageStore } from '../ports/usage.js';

const MAX_POOLS = 10_000;

interface Pool {
  available: number;
  refill: Promise<void> | null;
}

/**
 * Hands out a project's monthly allowance from blocks reserved durably in advance, so the accept path makes one
 * durable write per request (the insert) instead of two. Every unit handed out was reserved with a conditional
 * write first, so concurrent calls and processes never overspend. Near the limit, where a whole block no longer
 * fits, each call reserves exactly what it needs. Unused units go back to the store on shutdown; a crash leaves
 * at most one block per project and month counted as used.
 */
export class AllowanceLeases {
  private readonly pools = new Map<string, Pool>();

  constructor(
    private readonly usage: UsageStore,
    private readonly blockSize = 64,
  ) {}

  /** Takes `count` units of the period's allowance; false when the limit does not allow them. */
  async take(projectId: string, period: string, count: number, limit: number): Promise<boolean> {
    const pool = this.pool(projectId, period);
    for (;;) {
      if (pool.available >= count) {
        pool.available -= count;
        return true;
      }
      if (pool.refill !== null) {
        await pool.refill;
        continue;
      }
      const block = Math.max(count, this.blockSize);
      let granted = false;
      pool.refill = this.usage.reserve(projectId, period, block, limit).then(
        (ok) => {
          granted = ok;
          if (ok) pool.available += block;
        },
        () => undefined,
      );
      try {
        await pool.refill;
      } finally {
        pool.refill = null;
      }
      // A whole block no longer fits: reserve exactly this call's units, or refuse.
      if (!granted) return this.usage.reserve(projectId, period, count, limit);
    }
  }

  /** Returns units taken for requests that were not accepted after all. */
  giveBack(projectId: string, period: string, count: number): void {
    this.pool(projectId, period).available += count;
  }

  /** Releases every unused unit to the store (on shutdown). */
  async releaseAll(): Promise<void> {
    const pools = [...this.pools.entries()];
    this.pools.clear();
    await Promise.all(pools.map(([key, pool]) => this.release(key, pool)));
  }

  private pool(projectId: string, period: string): Pool {
    const key = `${projectId}\u0000${period}`;
    let pool = this.pools.get(key);
    if (pool === undefined) {
      if (this.pools.size >= MAX_POOLS) this.evictOldest();
      pool = { available: 0, refill: null };
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
