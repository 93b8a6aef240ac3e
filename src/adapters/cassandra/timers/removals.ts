import type { Clock, TimerHandle } from '../../../domain/clock.js';
import { RecentKeys } from '../recent-keys.js';
import type { CassandraSession, Statement } from '../session.js';
import type { TimerTable } from './table.js';
import { timerKey, type Background, type Timer } from './timer.js';

/**
 * How long a timer whose deletion landed is still told `pending`: a scan reads a page of timers and takes from it
 * for a while, so a page read before the deletion can still hold it. Bounded by count, oldest forgotten first.
 */
const RECENTLY_REMOVED_MS = 15_000;
const MAX_RECENTLY_REMOVED = 50_000;

/** Deletions gathered before they are written: a count that fills a batch, or a short wait. */
const FLUSH_AT = 64;
const FLUSH_AFTER_MS = 5;

interface Waiting {
  readonly statement: Statement;
  readonly key: string;
}

/**
 * Timer deletions, gathered for a few milliseconds and written per timer partition, one unlogged batch (one
 * mutation) each, instead of one message per deletion. A timer is only a hint: a deletion that lands a little
 * later, or never after a crash, leaves a stale timer that readers already skip and drop.
 *
 * Until its deletion has landed, and for a short while after, a timer this process is removing is `pending`: a
 * claim may pass over it without reading what it stands for, which it would only find ended or moved on.
 */
export class TimerRemovals<T extends Timer> {
  private readonly waiting = new Map<string, Waiting[]>();
  private readonly removing = new Map<string, number>();
  /** Timers deleted lately, still pending (see `RECENTLY_REMOVED_MS`). */
  private readonly removed: RecentKeys;
  private count = 0;
  private timer: TimerHandle | null = null;
  private closing = false;

  constructor(
    private readonly session: CassandraSession,
    private readonly table: TimerTable<T>,
    private readonly background: Background,
    private readonly clock: Clock,
  ) {
    this.removed = new RecentKeys(clock, RECENTLY_REMOVED_MS, MAX_RECENTLY_REMOVED);
  }

  /** Deletes `t` as of `asOf` (a stamp, see `TimerStamps`), soon. */
  remove(t: Timer, asOf: number): void {
    const key = timerKey(t);
    this.hold(key);
    const partition = `${t.shard}/${this.table.kind.buckets.of(t.dueAt)}`;
    const entry = { statement: this.table.removeStatement(t, asOf), key };
    const waiting = this.waiting.get(partition);
    if (waiting === undefined) this.waiting.set(partition, [entry]);
    else waiting.push(entry);
    this.count++;
    if (this.closing || this.count >= FLUSH_AT) this.flush();
    else this.timer ??= this.clock.setTimer(() => this.flush(), FLUSH_AFTER_MS);
  }

  /** Deletes `t` once `first` has succeeded; `t` is pending meanwhile, and stays in place if `first` fails. */
  removeAfter(t: Timer, asOf: number, first: () => Promise<void>): void {
    const key = timerKey(t);
    this.hold(key);
    this.background(async () => {
      try {
        await first();
        this.remove(t, asOf);
      } finally {
        this.release(key);
      }
    });
  }

  /** True while `t` is being deleted by this process, and for a short while after (see `RECENTLY_REMOVED_MS`). */
  pending(t: Timer): boolean {
    const key = timerKey(t);
    return this.removing.has(key) || this.removed.has(key);
  }

  /** Writes what is waiting now, and from now on every deletion at once (the store is closing). */
  close(): void {
    this.closing = true;
    this.flush();
  }

  private flush(): void {
    this.timer?.cancel();
    this.timer = null;
    const partitions = [...this.waiting.values()];
    this.waiting.clear();
    this.count = 0;
    for (const entries of partitions) {
      this.background(async () => {
        try {
          await this.session.writeTogether(
            entries.map((e) => e.statement),
            `removing ${this.table.kind.noun}`,
          );
          for (const e of entries) this.removed.add(e.key);
        } finally {
          for (const e of entries) this.release(e.key);
        }
      });
    }
  }

  private hold(key: string): void {
    this.removing.set(key, (this.removing.get(key) ?? 0) + 1);
  }

  private release(key: string): void {
    const left = (this.removing.get(key) ?? 1) - 1;
    if (left <= 0) this.removing.delete(key);
    else this.removing.set(key, left);
  }
}
