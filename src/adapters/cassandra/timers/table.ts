import { millis, type CassandraSession, type Statement } from '../session.js';
import { WrittenEntries } from '../shared/written-entries.js';
import { EMPTY_BUCKET_AGE_MS, type Timer, type TimerKind, type TimerPosition, type TimerStamps } from './timer.js';

/**
 * A bucket entry this process wrote is not written again while its bucket ended less than this long ago: no scan
 * drops it before `EMPTY_BUCKET_AGE_MS`, which leaves five minutes for clocks that differ. Past that, every timer
 * written into the bucket writes its entry too.
 */
const ENTRY_TRUSTED_MS = EMPTY_BUCKET_AGE_MS - 5 * 60_000;

/**
 * Shards whose bucket listings are read with one query at most. A scan lists every shard it owns with the same
 * bounds at once (an idle process does so every poll), and one read of several partitions costs the node and this
 * process far less than one read each; the bound keeps the answer (`limit` rows per shard, one page) small.
 */
const SHARDS_PER_LISTING = 32;

/** Listings asked for in one turn with the same bounds, waiting to be read together. */
interface ListingGroup {
  readonly after: number;
  readonly upTo: number;
  readonly limit: number;
  readonly during: string;
  readonly waiting: Map<number, Array<{ resolve: (buckets: number[]) => void; reject: (err: unknown) => void }>>;
}

/** Reads and writes of one kind's timer table and its bucket entries. */
export class TimerTable<T extends Timer> {
  private readonly listed = new WrittenEntries();
  private readonly listings = new Map<string, ListingGroup>();
  private readonly insertTimer: string;
  private readonly insertEntry: string;
  private readonly deleteTimer: string;
  private readonly deleteEntry: string;
  private readonly selectEntries: string;
  private readonly selectEntriesOfShards: string;
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
    this.selectEntriesOfShards = `SELECT shard, bucket FROM ${entries} WHERE shard IN ? AND bucket > ? AND bucket <= ? PER PARTITION LIMIT ?`;
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

  /**
   * Listed buckets of a shard after `after` and up to `upTo`, oldest first. Listings asked for in the same turn
   * with the same bounds are read together (see `SHARDS_PER_LISTING`).
   */
  entries(shard: number, after: number, upTo: number, limit: number, during: string): Promise<number[]> {
    const key = `${after}/${upTo}/${limit}/${during}`;
    let group = this.listings.get(key);
    if (group === undefined) {
      const created: ListingGroup = { after, upTo, limit, during, waiting: new Map() };
      this.listings.set(key, created);
      // After the current turn (not a wait): the scans of a poll ask for their shards' listings one after another.
      setImmediate(() => {
        this.listings.delete(key);
        void this.list(created);
      });
      group = created;
    }
    const waiting = group.waiting;
    return new Promise((resolve, reject) => {
      const callers = waiting.get(shard);
      if (callers === undefined) waiting.set(shard, [{ resolve, reject }]);
      else callers.push({ resolve, reject });
    });
  }

  private async list(group: ListingGroup): Promise<void> {
    const shards = [...group.waiting.keys()];
    for (let i = 0; i < shards.length; i += SHARDS_PER_LISTING) {
      const some = shards.slice(i, i + SHARDS_PER_LISTING);
      try {
        const found = await this.listingsOf(some, group);
        for (const shard of some) for (const c of group.waiting.get(shard)!) c.resolve(found.get(shard) ?? []);
      } catch (err) {
        for (const shard of some) for (const c of group.waiting.get(shard)!) c.reject(err);
      }
    }
  }

  private async listingsOf(shards: readonly number[], { after, upTo, limit, during }: ListingGroup): Promise<Map<number, number[]>> {
    if (shards.length === 1) {
      const rs = await this.session.read(this.selectEntries, [shards[0], after, upTo, limit], during);
      return new Map([[shards[0]!, rs.rows.map((row) => millis(row['bucket'])!)]]);
    }
    const rs = await this.session.read(this.selectEntriesOfShards, [shards, after, upTo, limit], during, shards.length * limit);
    const found = new Map<number, number[]>();
    // Each partition's rows come in clustering order, so each shard's buckets oldest first.
    for (const row of rs.rows) {
      const shard = row['shard'] as number;
      const buckets = found.get(shard);
      if (buckets === undefined) found.set(shard, [millis(row['bucket'])!]);
      else buckets.push(millis(row['bucket'])!);
    }
    return found;
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
