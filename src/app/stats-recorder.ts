import type { Clock, TimerHandle } from '../domain/clock.js';
import { CALLBACK_SOURCE, MINUTE_MS, addCounts, minuteOf, zeroCounts, type StatCounts } from '../domain/stats.js';
import type { MinuteTotals, StatsStore } from '../ports/stats.js';

/**
 * How often counts go to storage: a write per interval for every project counted in it, never one per request.
 * It is also how far behind the stored counts may be (see `unflushed` for this process's own).
 */
export const STATS_FLUSH_MS = 5_000;
/**
 * (project, minute) entries held at once. A busy process holds two or three minutes of the projects it serves;
 * past this a flush starts early, and counts of new entries beyond twice this are dropped (and reported) rather
 * than held without bound while storage does not answer.
 */
export const MAX_ENTRIES = 20_000;

/** How a request ended, or that an attempt was followed by another, as the delivery engine reports it. */
export type AttemptEnding = 'delivered' | 'failed' | 'retried';

interface Entry {
  readonly projectId: string;
  readonly minute: number;
  readonly counts: StatCounts;
  /** Counted since its totals were last handed to storage. */
  dirty: boolean;
}

export interface StatsRecorderOptions {
  readonly flushMs?: number;
  readonly maxEntries?: number;
  /** Told of a flush that failed (it is tried again at the next one) and of counts dropped at the bound. */
  readonly onProblem?: (what: string, detail: Record<string, unknown>) => void;
}

/**
 * Counts what happens to a process's requests per project and minute in memory, and writes this process's totals
 * in batches (every `STATS_FLUSH_MS`, early when many entries are held, and on stop). A minute's entry is kept until
 * the minute is over and its totals are stored; a failed write keeps the entries to be written again.
 */
export class StatsRecorder {
  private readonly entries = new Map<string, Entry>();
  private readonly flushMs: number;
  private readonly maxEntries: number;
  private timer: TimerHandle | null = null;
  private flushing: Promise<void> | null = null;
  private dropped = 0;
  private stopped = false;

  constructor(
    private readonly store: StatsStore,
    private readonly clock: Clock,
    /** This process's name among those that write totals; unique per start. */
    readonly processId: string,
    private readonly o: StatsRecorderOptions = {},
  ) {
    this.flushMs = o.flushMs ?? STATS_FLUSH_MS;
    this.maxEntries = o.maxEntries ?? MAX_ENTRIES;
  }

  start(): void {
    this.arm();
  }

  /** Requests just accepted (stored), of any source; those with the source `callback` count as callbacks too. */
  accepted(requests: ReadonlyArray<{ readonly projectId: string; readonly source: string }>): void {
    for (const r of requests) {
      const counts = this.countsOf(r.projectId);
      if (counts === null) continue;
      counts.accepted++;
      if (r.source === CALLBACK_SOURCE) counts.callbacks++;
    }
  }

  /** An attempt that ended its request (`delivered`, `failed`) or was followed by a retry (`retried`). */
  attemptEnded(projectId: string, ending: AttemptEnding): void {
    const counts = this.countsOf(projectId);
    if (counts !== null) counts[ending]++;
  }

  /** This process's totals of the project not yet known to be stored, by minute (a stored one may be among them). */
  held(projectId: string): Map<number, StatCounts> {
    const held = new Map<number, StatCounts>();
    for (const e of this.entries.values()) {
      if (e.projectId === projectId) held.set(e.minute, { ...e.counts });
    }
    return held;
  }

  /** Writes every entry counted since its last write; one flush at a time, so older totals never land last. */
  flush(): Promise<void> {
    const run = (this.flushing ?? Promise.resolve()).then(() => this.writeDirty());
    const settled = run.finally(() => {
      if (this.flushing === settled) this.flushing = null;
    });
    this.flushing = settled;
    return settled;
  }

  /** Stops the timer and writes what is held; counts made later are still held (and written by a later flush). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
    await this.flush();
  }

  private countsOf(projectId: string): StatCounts | null {
    const minute = minuteOf(this.clock.now());
    const key = `${projectId}\u0000${minute}`;
    let entry = this.entries.get(key);
    if (entry === undefined) {
      if (this.entries.size >= this.maxEntries * 2) {
        this.dropped++;
        return null;
      }
      entry = { projectId, minute, counts: zeroCounts(), dirty: false };
      this.entries.set(key, entry);
      if (this.entries.size === this.maxEntries) void this.flush();
    }
    entry.dirty = true;
    return entry.counts;
  }

  private async writeDirty(): Promise<void> {
    const rows: MinuteTotals[] = [];
    const written: Entry[] = [];
    for (const e of this.entries.values()) {
      if (!e.dirty) continue;
      rows.push({ projectId: e.projectId, minute: e.minute, counts: { ...e.counts } });
      written.push(e);
      e.dirty = false;
    }
    if (this.dropped > 0) {
      this.o.onProblem?.('stats counts dropped: too many projects counted at once', { dropped: this.dropped });
      this.dropped = 0;
    }
    if (rows.length > 0) {
      try {
        await this.store.putTotals(this.processId, rows, this.clock.now());
      } catch (err) {
        for (const e of written) e.dirty = true;
        this.o.onProblem?.('stats not stored, tried again at the next flush', { error: String(err), entries: rows.length });
        return;
      }
    }
    // A minute that is over and stored gets no more counts here: storage answers for it from now on.
    const current = minuteOf(this.clock.now());
    for (const [key, e] of this.entries) {
      if (!e.dirty && e.minute + MINUTE_MS <= current) this.entries.delete(key);
    }
  }

  private arm(): void {
    if (this.stopped) return;
    this.timer = this.clock.setTimer(() => {
      void this.flush().finally(() => this.arm());
    }, this.flushMs);
  }
}

/** Sums counts into a map by minute. */
export function addByMinute(into: Map<number, StatCounts>, minute: number, counts: Readonly<StatCounts>): void {
  let sum = into.get(minute);
  if (sum === undefined) {
    sum = zeroCounts();
    into.set(minute, sum);
  }
  addCounts(sum, counts);
}
