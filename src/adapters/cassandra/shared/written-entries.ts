/** Keys remembered at most; beyond that the oldest are forgotten and simply written again. */
const MAX_KEYS = 50_000;

/**
 * Index entries (a project's day, a shard's timer bucket) this process has already written: each is the same row
 * for thousands of requests, and writing it once is enough while nothing deletes it. Only entries whose write
 * succeeded are remembered, so a skipped write never stands for one that failed.
 */
export class WrittenEntries {
  private readonly keys = new Set<string>();

  has(key: string): boolean {
    return this.keys.has(key);
  }

  add(key: string): void {
    if (this.keys.has(key)) return;
    if (this.keys.size >= MAX_KEYS) this.keys.delete(this.keys.values().next().value!);
    this.keys.add(key);
  }

  forget(key: string): void {
    this.keys.delete(key);
  }
}
