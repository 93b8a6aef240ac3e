import type { Clock } from '../../../domain/clock.js';

/**
 * Keys seen lately: each is kept for `keepMs` after it was added, and at most `max` of them, the oldest forgotten
 * first, so memory stays bounded whatever arrives.
 */
export class RecentKeys {
  private readonly until = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    private readonly keepMs: number,
    private readonly max: number,
  ) {}

  add(key: string): void {
    const now = this.clock.now();
    this.until.delete(key);
    this.until.set(key, now + this.keepMs);
    for (const [k, until] of this.until) {
      if (until > now && this.until.size <= this.max) break;
      this.until.delete(k);
    }
  }

  has(key: string): boolean {
    return (this.until.get(key) ?? 0) > this.clock.now();
  }
}
