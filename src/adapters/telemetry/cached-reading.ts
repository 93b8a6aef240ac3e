import type { Clock } from '../../domain/clock.js';

/** A reading is reused for at least this long: scrapes come every 15–60 s, and what is read changes as fast as it likes. */
const DEFAULT_MAX_AGE_MS = 10_000;
/** A reading that took longer than this share of the time since the last one spaces the next one out. */
const MAX_SHARE_OF_TIME = 0.02;

/**
 * The latest reading of something a gauge shows, read again only when it is older than `maxAgeMs`, and then by
 * one read however many scrapes ask at once, so scrapes cannot load storage: a reading that took 100 ms is reused
 * for at least 5 s (`MAX_SHARE_OF_TIME`), whatever `maxAgeMs` says. A failed read keeps the previous reading.
 */
export class CachedReading<T> {
  private last: { value: T; at: number; costMs: number } | null = null;
  private reading: Promise<T | null> | null = null;
  /** What is read has changed: the next `get` reads again unless the last reading was costly. */
  private stale = false;

  constructor(
    private readonly read: () => Promise<T>,
    private readonly clock: Clock,
    private readonly maxAgeMs = DEFAULT_MAX_AGE_MS,
  ) {}

  /** Says that what is read has changed, so the next `get` need not wait out `maxAgeMs` (the cost still spaces it). */
  refreshSoon(): void {
    this.stale = true;
  }

  get(): Promise<T | null> {
    // A reading under way is newer than the last one: every scrape that asks meanwhile waits for it.
    if (this.reading !== null) return this.reading;
    const last = this.last;
    const now = this.clock.now();
    const spacing = last === null ? 0 : Math.max(this.stale ? 0 : this.maxAgeMs, last.costMs / MAX_SHARE_OF_TIME);
    if (last !== null && now - last.at < spacing) return Promise.resolve(last.value);
    this.stale = false;
    this.reading = this.read().then(
      (value) => {
        const at = this.clock.now();
        this.last = { value, at, costMs: at - now };
        this.reading = null;
        return value;
      },
      () => {
        this.reading = null;
        return this.last?.value ?? null;
      },
    );
    return this.reading;
  }
}
