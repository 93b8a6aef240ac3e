import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { StorageUnavailable } from '../../ports/errors.js';
import { asStorageUnavailable, toPortError } from './errors.js';
import { migrate } from './migrations.js';

export interface EmbeddedDatabaseOptions {
  /** The SQLite file; parent directories are created. `:memory:` gives a private, non-durable database. */
  readonly path: string;
  /** How long a statement waits for another process's lock before failing. Default 5000 ms. */
  readonly busyTimeoutMs?: number;
  /** Most writes committed together in one transaction. Default 512. */
  readonly maxGroupSize?: number;
  /** Most writes waiting for a commit; beyond it writes fail fast with StorageUnavailable. Default 10,000. */
  readonly maxPendingWrites?: number;
}

interface PendingWrite {
  readonly fn: () => unknown;
  readonly resolve: (value: never) => void;
  readonly reject: (err: unknown) => void;
}

type Outcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown };

/**
 * One SQLite connection with group commit. Writes queue up and run together in one transaction on the next event
 * loop turn, so one fsync covers many callers; each runs inside its own savepoint, so a failing write undoes only
 * itself. A write's promise settles only after COMMIT returned, i.e. once it is on disk.
 *
 * better-sqlite3 is synchronous, so a whole group (BEGIN … COMMIT) runs without yielding: reads issued from
 * anywhere else never observe a half-applied group.
 */
export class EmbeddedDatabase {
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  private readonly maxGroupSize: number;
  private readonly maxPendingWrites: number;
  private pending: PendingWrite[] = [];
  private flushScheduled = false;
  private closing = false;
  private drainedWaiters: Array<() => void> = [];

  constructor(options: EmbeddedDatabaseOptions) {
    this.maxGroupSize = options.maxGroupSize ?? 512;
    this.maxPendingWrites = options.maxPendingWrites ?? 10_000;
    try {
      if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
      this.db = new Database(options.path, { timeout: options.busyTimeoutMs ?? 5000 });
    } catch (err) {
      throw asStorageUnavailable(err, `open of ${options.path}`);
    }
    try {
      this.db.pragma('journal_mode = WAL');
      // FULL makes COMMIT wait for the WAL fsync: a resolved write survives a crash of the process or the host.
      this.db.pragma('synchronous = FULL');
      this.db.pragma('foreign_keys = OFF');
      migrate(this.db);
    } catch (err) {
      this.db.close();
      throw asStorageUnavailable(err, `open of ${options.path}`);
    }
  }

  /**
   * Queues `fn` to run inside the next group transaction and resolves with its result once committed. `fn` must
   * be synchronous and touch only this database: it may run after the caller has moved on, and it may be undone.
   */
  write<T>(fn: () => T): Promise<T> {
    if (this.closing) return Promise.reject(new StorageUnavailable('Embedded storage is closing.'));
    if (this.pending.length >= this.maxPendingWrites) {
      return Promise.reject(new StorageUnavailable(`More than ${this.maxPendingWrites} writes are waiting for a commit.`));
    }
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ fn, resolve: resolve as (value: never) => void, reject });
      this.scheduleFlush();
    });
  }

  /** Runs a read now, on committed data, with driver errors converted. */
  read<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      throw toPortError(err, 'read');
    }
  }

  /** A prepared statement, cached by its text so dynamic queries are compiled once per shape. */
  statement(sql: string): Database.Statement {
    let stmt = this.statements.get(sql);
    if (stmt === undefined) {
      stmt = this.db.prepare(sql);
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  /** Commits every queued write, then closes the connection. Writes queued after this call are refused. */
  async close(): Promise<void> {
    this.closing = true;
    if (this.pending.length > 0 || this.flushScheduled) {
      await new Promise<void>((resolve) => this.drainedWaiters.push(resolve));
    }
    if (this.db.open) this.db.close();
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  /** Commits one group; a longer queue continues on the next turn so other I/O is served in between. */
  private flush(): void {
    const group = this.pending.length <= this.maxGroupSize ? this.pending : this.pending.slice(0, this.maxGroupSize);
    this.pending = this.pending.length <= this.maxGroupSize ? [] : this.pending.slice(this.maxGroupSize);
    if (this.pending.length > 0) this.scheduleFlush();

    let outcomes: Outcome[];
    try {
      outcomes = this.runGroup(group);
    } catch (err) {
      this.rollback();
      outcomes = failAll(group, asStorageUnavailable(err, 'commit'));
    }
    for (const [i, write] of group.entries()) {
      const outcome = outcomes[i]!;
      if (outcome.ok) write.resolve(outcome.value as never);
      else write.reject(outcome.error);
    }

    if (this.pending.length === 0 && !this.flushScheduled) {
      const waiters = this.drainedWaiters;
      this.drainedWaiters = [];
      for (const waiter of waiters) waiter();
    }
  }

  private runGroup(group: readonly PendingWrite[]): Outcome[] {
    try {
      this.statement('BEGIN IMMEDIATE').run();
    } catch (err) {
      return failAll(group, asStorageUnavailable(err, 'begin'));
    }
    const outcomes: Outcome[] = [];
    for (const write of group) {
      try {
        this.statement('SAVEPOINT write').run();
        const value = write.fn();
        if (isThenable(value)) {
          Promise.resolve(value).catch(() => undefined);
          throw new TypeError('A write function must be synchronous.');
        }
        this.statement('RELEASE write').run();
        outcomes.push({ ok: true, value });
      } catch (err) {
        // Some I/O errors make SQLite roll back the whole transaction; then every write of the group is lost.
        if (!this.db.inTransaction) return failAll(group, asStorageUnavailable(err, 'write'));
        try {
          this.statement('ROLLBACK TO write').run();
          this.statement('RELEASE write').run();
        } catch (undoErr) {
          this.rollback();
          return failAll(group, asStorageUnavailable(undoErr, 'savepoint rollback'));
        }
        outcomes.push({ ok: false, error: toPortError(err, 'write') });
      }
    }
    try {
      this.statement('COMMIT').run();
    } catch (err) {
      // Even writes that failed on their own are reported as unavailable: their failure may have depended on
      // earlier writes of the group that are now undone.
      this.rollback();
      return failAll(group, asStorageUnavailable(err, 'commit'));
    }
    return outcomes;
  }

  private rollback(): void {
    try {
      if (this.db.inTransaction) this.statement('ROLLBACK').run();
    } catch {
      // The connection is unusable; the next BEGIN reports it to the writers of the next group.
    }
  }
}

function failAll(group: readonly PendingWrite[], error: StorageUnavailable): Outcome[] {
  return group.map(() => ({ ok: false, error }));
}

function isThenable(value: unknown): boolean {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
