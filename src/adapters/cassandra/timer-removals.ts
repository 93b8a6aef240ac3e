import type { InFlight } from './request-pool.js';
import type { CassandraSession, Statement } from './session.js';
import { bucketOf, type Timer, type TimerTable } from './timers.js';

/** Deletions gathered before they are written: a count that fills a batch, or a short wait. */
const FLUSH_AT = 64;
const FLUSH_AFTER_MS = 5;

/**
 * Timer deletions, gathered for a few milliseconds and written per timer partition, one unlogged batch (one
 * mutation) each, instead of one message per deletion. A timer is only a hint: a deletion that lands a little
 * later, or never after a crash, leaves a stale timer that claims already skip and drop.
 */
export class TimerRemovals {
  private readonly waiting = new Map<string, Statement[]>();
  private count = 0;
  private timer: NodeJS.Timeout | null = null;
  private closing = false;

  constructor(
    private readonly session: CassandraSession,
    private readonly timers: TimerTable,
    private readonly inFlight: InFlight,
  ) {}

  /** Deletes `t` as of `asOf` (see `deletionTime`), soon. */
  remove(t: Timer, asOf: number): void {
    const key = `${t.shard}/${bucketOf(t.dueAt)}`;
    const partition = this.waiting.get(key);
    const statement = this.timers.removeStatement(t, asOf);
    if (partition === undefined) this.waiting.set(key, [statement]);
    else partition.push(statement);
    this.count++;
    if (this.closing || this.count >= FLUSH_AT) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), FLUSH_AFTER_MS);
  }

  /** Writes what is waiting now, and from now on every deletion at once (the store is closing). */
  close(): void {
    this.closing = true;
    this.flush();
  }

  private flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const partitions = [...this.waiting.values()];
    this.waiting.clear();
    this.count = 0;
    for (const statements of partitions) this.inFlight.background(() => this.session.writeTogether(statements, 'removing timers'));
  }
}
