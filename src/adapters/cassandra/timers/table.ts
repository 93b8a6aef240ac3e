import { millis, type CassandraSession, type Statement } from '../session.js';
import { WrittenEntries } from '../shared/written-entries.js';
import { EMPTY_BUCKET_AGE_MS, type Timer, type TimerKind, type TimerPosition, type TimerStamps } from './timer.js';

/**
 * A bucket entry this process wrote is not written again while its bucket ended less than this long ago: no scan
 * drops it before `EMPTY_BUCKET_AGE_MS`, which leaves five minutes for clocks that differ. Past that, every timer
 * written into the bucket writes its entry too.
 */
const ENTRY_TRUSTED_MS = EMPTY_BUCKET_AGE_MS - 5 * 60_000;

/** Reads and writes of one kind's timer table and its bucket entries. */
export class TimerTable<T extends Timer> {
  private readonly listed = new WrittenEntries();
  private readonly insertTimer: string;
  private readonly insertEntry: string;
  private readonly deleteTimer: string;
  private readonly deleteEntry: string;
  private readonly selectEntries: string;
  private readonly selectEarliest: string;
  private readonly selectDue: string;
  private readonly selectMarked: string | null;

  constructor(
    private readonly session: CassandraSession,
    readonly kind: TimerKind<T>,
    readonly stamps: TimerStamps,
  ) {
    const timers = session.table(kind.timers);
    const entries = session.table(kind.entries);
    const id = kind.idColumn;
    const columns = ['due_at', id, ...kind.columns].join(', ');
    const marks = kind.columns.map(() => ', ?').join('');
    this.insertTimer = `INSERT INTO ${timers} (shard, bucket, ${columns}) VALUES (?, ?, ?, ?${marks}) USING TIMESTAMP ?`;
    this.insertEntry = `INSERT INTO ${entries} (shard, bucket) VALUES (?, ?) USING TIMESTAMP ?`;
    this.deleteTimer = `DELETE FROM ${timers} USING TIMESTAMP ? WHERE shard = ? AND bucket = ? AND due_at = ? AND ${id} = ?`;
    this.deleteEntry = `DELETE FROM ${entries} USING TIMESTAMP ? WHERE shard = ? AND bucket = ?`;
    this.selectEntries = `SELECT bucket FROM ${entries} WHERE shard = ? AND bucket > ? AND bucket <= ? LIMIT ?`;
    this.selectEarliest = `SELECT bucket, ${columns} FROM ${timers} WHERE shard = ? AND bucket IN ? PER PARTITION LIMIT 1`;
    // Both bounds in tuple form: CQL does not mix single- and multi-column restrictions of clustering columns.
    this.selectDue = `SELECT ${columns} FROM ${timers}
      WHERE shard = ? AND bucket = ? AND (due_at, ${id}) > (?, ?) AND (due_at) <= (?) LIMIT ?`;
    // Filtering within one partition: reads that partition only, and sends back just the marked timers.
    this.selectMarked =
      kind.marker === undefined
        ? null
        : `SELECT ${columns} FROM ${timers}
      WHERE shard = ? AND bucket = ? AND (due_at, ${id}) > (?, ?) AND ${kind.marker} = true LIMIT ? ALLOW FILTERING`;
  }

  /**
   * The rows of new timers, all at one stamp: each timer, and the entry of each of their buckets once, unless
   * this process wrote it lately (see `ENTRY_TRUSTED_MS`): the same row many times would only weigh on a batch.
   */
  statements(timers: readonly T[], now: number): Statement[] {
    const at = this.stamps.next();
    const statements: Statement[] = [];
    const entries = new Set<string>();
    for (const t of timers) {
      const bucket = this.kind.buckets.of(t.dueAt);
      statements.push({ query: this.insertTimer, params: [t.shard, bucket, t.dueAt, t.id, ...this.kind.values(t), at] });
      const key = `${t.shard}/${bucket}`;
      const trusted = this.listed.has(key) && this.kind.buckets.start(bucket + 1) > now - ENTRY_TRUSTED_MS;
      if (!entries.has(key) && !trusted) statements.push({ query: this.insertEntry, params: [t.shard, bucket, at] });
      entries.add(key);
    }
    return statements;
  }

  /** Remembers the bucket entries of timers whose writes have succeeded. */
  written(timers: readonly T[]): void {
    for (const t of timers) this.listed.add(`${t.shard}/${this.kind.buckets.of(t.dueAt)}`);
  }

  /** The deletion of a timer as of `asOf`, a stamp: a later write of the same row survives it. */
  removeStatement(t: Timer, asOf: number): Statement {
    return { query: this.deleteTimer, params: [asOf, t.shard, this.kind.buckets.of(t.dueAt), t.dueAt, t.id] };
  }

  /** Drops a bucket's entry as of `asOf`: a timer written into the bucket after that lists it again. */
  async forgetEntry(shard: number, bucket: number, asOf: number, during: string): Promise<void> {
    this.listed.forget(`${shard}/${bucket}`);
    await this.session.execute(this.deleteEntry, [asOf, shard, bucket], during, { idempotent: true });
  }

  /** Listed buckets of a shard after `after` and up to `upTo`, oldest first. */
  async entries(shard: number, after: number, upTo: number, limit: number, during: string): Promise<number[]> {
    const rs = await this.session.read(this.selectEntries, [shard, after, upTo, limit], during);
    return rs.rows.map((row) => millis(row['bucket'])!);
  }

  /** The earliest timer of each of `buckets` that holds any: one query for all of them. */
  async earliest(shard: number, buckets: readonly number[], during: string): Promise<Map<number, T>> {
    const rs = await this.session.read(this.selectEarliest, [shard, buckets], during);
    return new Map(rs.rows.map((row) => [millis(row['bucket'])!, this.fromRow(shard, row)]));
  }

  /** Timers of one bucket due by `dueBy`, after `after` in (due time, ID) order. */
  async due(shard: number, bucket: number, after: TimerPosition, dueBy: number, limit: number, during: string): Promise<T[]> {
    const rs = await this.session.read(this.selectDue, [shard, bucket, after.dueAt, after.id, dueBy, limit], during);
    return rs.rows.map((row) => this.fromRow(shard, row));
  }

  /** Marked timers of one bucket (see `TimerKind.marker`), after `after` in (due time, ID) order. */
  async marked(shard: number, bucket: number, after: TimerPosition, limit: number, during: string): Promise<T[]> {
    if (this.selectMarked === null) return [];
    const rs = await this.session.read(this.selectMarked, [shard, bucket, after.dueAt, after.id, limit], during);
    return rs.rows.map((row) => this.fromRow(shard, row));
  }

  private fromRow(shard: number, row: Record<string, unknown>): T {
    return this.kind.fromRow({ shard, dueAt: millis(row['due_at'])!, id: row[this.kind.idColumn] as string }, row);
  }
}
