import type { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { StorageUnavailable } from '../../ports/errors.js';
import { startWorkerThread } from '../worker-thread.js';
import { openConnection, type Connection } from './connection.js';
import { asStorageUnavailable, toPortError, writeErrorFromData } from './errors.js';
import { migrate } from './migrations.js';
import type { WriteArgs, WriteOpName, WriteResult } from './write-ops.js';
import type { GroupReply, ToWriter, WriterData } from './writer-protocol.js';

export interface EmbeddedDatabaseOptions {
  /** The SQLite file; parent directories are created. Not `:memory:`: both threads must open the same database. */
  readonly path: string;
  /** How long a statement waits for another process's lock before failing. Default 5000 ms. */
  readonly busyTimeoutMs?: number;
  /** Most writes committed together in one transaction. Default 512. */
  readonly maxGroupSize?: number;
  /** Most writes waiting for a commit; beyond it writes fail fast with StorageUnavailable. Default 10,000. */
  readonly maxPendingWrites?: number;
  /** Most pages (of 4 KiB by default) writes may grow the file to; writes beyond fail with StorageUnavailable. */
  readonly maxPageCount?: number;
}

interface Settler {
  readonly resolve: (value: never) => void;
  readonly reject: (err: unknown) => void;
}

/**
 * The embedded SQLite file, read on this thread and written by a writer thread. Writes are named ops (see
 * write-ops.ts) with plain-data arguments; the ops queued in one turn go to the writer as one message, and the
 * writer commits what reached it together, so one fsync covers many callers. A write's promise settles only after
 * its COMMIT returned, i.e. once it is on disk.
 *
 * Reads run synchronously on this thread's own connection. In WAL mode each read sees the last commit before it
 * started, so a read issued after a write resolved sees that write, and never a half-applied group.
 */
export class EmbeddedDatabase {
  private readonly conn: Connection;
  private readonly worker: Worker;
  private readonly exited: Promise<void>;
  private readonly maxPendingWrites: number;
  /** Ops not yet handed to the writer, flat as [name, args, …]. */
  private outbox: unknown[] = [];
  private outboxSettlers: Settler[] = [];
  /** Ops handed to the writer, in the order it answers them; settled entries before `head` are cleared. */
  private inFlight: Array<Settler | undefined> = [];
  private head = 0;
  private flushScheduled = false;
  private closing = false;
  private closed: Promise<void> | undefined;
  /** Set once the writer thread is gone or out of step; every later write fails with it. */
  private failure: StorageUnavailable | null = null;
  private drainedWaiters: Array<() => void> = [];
  private groups = 0;

  constructor(options: EmbeddedDatabaseOptions) {
    if (options.path === ':memory:' || options.path === '') throw new Error('Embedded storage needs a file path.');
    this.maxPendingWrites = options.maxPendingWrites ?? 10_000;
    const data: WriterData = {
      path: options.path,
      busyTimeoutMs: options.busyTimeoutMs ?? 5000,
      maxPageCount: options.maxPageCount ?? null,
      maxGroupSize: options.maxGroupSize ?? 512,
    };
    // The cap is the writer's business; this connection still has to create the schema.
    this.conn = openConnection({ ...data, maxPageCount: null });
    try {
      migrate(this.conn.db);
      // Every write belongs to the writer thread: one here would take the lock and wait for fsync on the event loop.
      this.conn.db.pragma('query_only = ON');
      this.worker = startWriter(data);
    } catch (err) {
      this.conn.close();
      throw asStorageUnavailable(err, `open of ${options.path}`);
    }
    // Only writes in flight keep the process alive, as they would without a thread.
    this.worker.unref();
    this.worker.on('message', (reply: GroupReply) => this.settle(reply));
    this.worker.on('error', (err) => this.fail(err));
    // A reply that cannot be read would leave the later replies matched to the wrong writes.
    this.worker.on('messageerror', (err) => {
      this.fail(err);
      this.worker.postMessage('close' satisfies ToWriter);
    });
    this.exited = new Promise((resolve) => {
      this.worker.once('exit', (code) => {
        this.fail(new Error(`exit code ${code}`));
        resolve();
      });
    });
  }

  /** Queues op `name` for the writer thread and resolves with its result once committed. */
  write<N extends WriteOpName>(name: N, args: WriteArgs<N>): Promise<WriteResult<N>> {
    if (this.closing) return Promise.reject(new StorageUnavailable('Embedded storage is closing.'));
    if (this.failure !== null) return Promise.reject(this.failure);
    if (this.outboxSettlers.length + this.inFlight.length - this.head >= this.maxPendingWrites) {
      return Promise.reject(new StorageUnavailable(`More than ${this.maxPendingWrites} writes are waiting for a commit.`));
    }
    return new Promise<WriteResult<N>>((resolve, reject) => {
      this.outbox.push(name, args);
      this.outboxSettlers.push({ resolve: resolve as (value: never) => void, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(this.flushOutbox);
      }
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

  /** A prepared statement of the reading connection; see Connection. */
  statement(sql: string): Database.Statement {
    return this.conn.statement(sql);
  }

  rawStatement(sql: string): Database.Statement {
    return this.conn.rawStatement(sql);
  }

  /** Group transactions the writer has answered so far. */
  get groupCount(): number {
    return this.groups;
  }

  /**
   * Commits every queued write, then stops the writer thread and closes both connections. Writes queued after this
   * call are refused.
   */
  close(): Promise<void> {
    this.closed ??= this.shutdown();
    return this.closed;
  }

  private async shutdown(): Promise<void> {
    this.closing = true;
    if (this.flushScheduled || this.outboxSettlers.length > 0 || this.head < this.inFlight.length) {
      await new Promise<void>((resolve) => this.drainedWaiters.push(resolve));
    }
    // Posting to a thread that is gone does nothing, and its exit already happened.
    this.worker.ref();
    this.worker.postMessage('close' satisfies ToWriter);
    await this.exited;
    this.conn.close();
  }

  // All ops queued in this turn go as one message: posting and waking the writer once, not per write.
  private readonly flushOutbox = (): void => {
    this.flushScheduled = false;
    const batch = this.outbox;
    const settlers = this.outboxSettlers;
    this.outbox = [];
    this.outboxSettlers = [];
    if (settlers.length > 0) {
      try {
        this.worker.postMessage(batch satisfies ToWriter);
        if (this.head === this.inFlight.length) this.worker.ref();
        for (const settler of settlers) this.inFlight.push(settler);
      } catch (err) {
        // Arguments that cannot be cloned: nothing of the batch reached the writer.
        const error = asStorageUnavailable(err, 'hand-over to the writer thread');
        for (const settler of settlers) settler.reject(error);
      }
    }
    this.afterSettled();
  };

  private settle(reply: GroupReply): void {
    // After a failure every write was rejected already; what the writer still answers belongs to none.
    if (this.failure !== null) return;
    this.groups += 1;
    const { results, failures } = reply;
    let nextFailure = 0;
    for (let i = 0; i < results.length; i++) {
      const settler = this.inFlight[this.head]!;
      this.inFlight[this.head++] = undefined;
      const failure = failures[nextFailure];
      if (failure !== undefined && failure[0] === i) {
        nextFailure += 1;
        settler.reject(writeErrorFromData(failure[1]));
      } else {
        settler.resolve(results[i] as never);
      }
    }
    this.afterSettled();
  }

  /** Every write still waiting fails, and so does every later one. */
  private fail(cause: unknown): void {
    const reason = cause instanceof Error ? cause.message : String(cause);
    this.failure ??= new StorageUnavailable(`The embedded writer thread stopped (${reason}).`, { cause });
    const waiting = [...this.inFlight.slice(this.head), ...this.outboxSettlers];
    this.inFlight = [];
    this.head = 0;
    this.outbox = [];
    this.outboxSettlers = [];
    for (const settler of waiting) settler?.reject(this.failure);
    this.afterSettled();
  }

  private afterSettled(): void {
    if (this.head === this.inFlight.length) {
      if (this.head > 0) {
        this.inFlight = [];
        this.head = 0;
        if (!this.closing) this.worker.unref();
      }
    } else if (this.head > 1024 && this.head * 2 > this.inFlight.length) {
      this.inFlight = this.inFlight.slice(this.head);
      this.head = 0;
    }
    if (this.head === this.inFlight.length && this.outboxSettlers.length === 0 && !this.flushScheduled) {
      const waiters = this.drainedWaiters;
      this.drainedWaiters = [];
      for (const waiter of waiters) waiter();
    }
  }
}

function startWriter(data: WriterData): Worker {
  return startWorkerThread(import.meta.url, 'writer-thread', data);
}
