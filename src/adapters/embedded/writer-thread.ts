// The embedded backend's only writer: runs the group commit of the main thread's writes on a connection of its
// own, so neither the statements nor the fsync of COMMIT hold up the main thread's event loop.
import { parentPort, workerData } from 'node:worker_threads';
import { openConnection } from './connection.js';
import { asStorageUnavailable, writeErrorToData } from './errors.js';
import { excerptPacks } from './excerpt-packs.js';
import type { GroupReply, ToWriter, WriterData } from './writer-protocol.js';
import { writeOps, type WriteOpName } from './write-ops.js';

if (parentPort === null) throw new Error('The embedded writer runs only as a worker thread.');
const port = parentPort;
const options = workerData as WriterData;
// The main thread applied the migrations before starting this thread: the schema is there.
const conn = openConnection(options);
// A write run in a savepoint (see runGroup) copies every page it changes into the statement journal first. Past
// 64 KiB SQLite spills that journal to a temporary file, and from then on every copy is a pwrite: a third of this
// thread's time under load when every write had one. In memory, a group's journal is a few MB at most.
conn.db.pragma('temp_store = MEMORY');
const begin = conn.statement('BEGIN IMMEDIATE');
const savepoint = conn.statement('SAVEPOINT write');
const release = conn.statement('RELEASE write');
const undo = conn.statement('ROLLBACK TO write');
const commit = conn.statement('COMMIT');
const packs = excerptPacks(conn);

/** Flat [op name, args, …] in arrival order. */
let queue: unknown[] = [];
let flushScheduled = false;
let closing = false;

port.on('message', (message: ToWriter) => {
  if (message === 'close') closing = true;
  else if (queue.length === 0) queue = message;
  else for (const item of message) queue.push(item);
  scheduleFlush();
});

// Everything that arrived before the next check phase forms one group, so one fsync covers many writes; messages
// that arrive during a commit wait in the port and form the next group.
function scheduleFlush(): void {
  if (flushScheduled) return;
  flushScheduled = true;
  setImmediate(flush);
}

/** Commits one group; a longer queue continues on the next turn so messages are taken in between. */
function flush(): void {
  flushScheduled = false;
  const take = Math.min(queue.length, options.maxGroupSize * 2);
  const group = take === queue.length ? queue : queue.slice(0, take);
  queue = take === queue.length ? [] : queue.slice(take);
  if (group.length > 0) port.postMessage(runGroup(group));
  if (queue.length > 0) scheduleFlush();
  else if (closing) {
    conn.close();
    port.close();
  }
}

/**
 * Commits a group in one transaction. The writes run one after another without savepoints: most groups hold no
 * write that throws, and a savepoint per write cost two statements and a copy of every page the write touched. When
 * one does throw, the whole group is rolled back and run again with a savepoint around each write, so the one that
 * threw undoes only itself. Writes are functions of the database and their arguments, so the second run is the
 * run the first would have been.
 */
function runGroup(group: unknown[]): GroupReply {
  const count = group.length / 2;
  const fast = runWrites(group, count, false);
  if (fast !== 'retry') return fast;
  const isolated = runWrites(group, count, true);
  // With savepoints a write that throws is undone alone and never asks for another run.
  return isolated === 'retry' ? failAll(count, new Error('a write threw outside its savepoint'), 'write') : isolated;
}

function runWrites(group: unknown[], count: number, isolated: boolean): GroupReply | 'retry' {
  try {
    begin.run();
    packs.startGroup();
  } catch (err) {
    rollback();
    return failAll(count, err, 'begin');
  }
  const results: unknown[] = new Array<unknown>(count).fill(null);
  const failures: Array<readonly [number, ReturnType<typeof writeErrorToData>]> = [];
  for (let i = 0; i < count; i++) {
    try {
      if (isolated) savepoint.run();
      results[i] = runOp(group[2 * i] as WriteOpName, group[2 * i + 1]);
      if (isolated) release.run();
    } catch (err) {
      // Some I/O errors make SQLite roll back the whole transaction; then every write of the group is lost.
      if (!conn.db.inTransaction) return failAll(count, err, 'write');
      if (!isolated) {
        rollback();
        return conn.db.inTransaction ? failAll(count, err, 'rollback') : 'retry';
      }
      try {
        undo.run();
        release.run();
      } catch (undoErr) {
        rollback();
        return failAll(count, undoErr, 'savepoint rollback');
      }
      failures.push([i, writeErrorToData(err, 'write')]);
    }
  }
  try {
    packs.finishGroup();
    commit.run();
    packs.committed();
  } catch (err) {
    // Even writes that failed on their own are reported as unavailable: their failure may have depended on
    // earlier writes of the group that are now undone.
    rollback();
    return failAll(count, err, 'commit');
  }
  return { results, failures };
}

function runOp(name: WriteOpName, args: unknown): unknown {
  if (!Object.hasOwn(writeOps, name)) throw new TypeError(`No write op is called ${String(name)}.`);
  return (writeOps[name] as (db: typeof conn, args: unknown) => unknown)(conn, args);
}

function failAll(count: number, err: unknown, during: string): GroupReply {
  const error = writeErrorToData(asStorageUnavailable(err, during), during);
  return { results: new Array<unknown>(count).fill(null), failures: Array.from({ length: count }, (_, i) => [i, error] as const) };
}

function rollback(): void {
  try {
    if (conn.db.inTransaction) conn.statement('ROLLBACK').run();
  } catch {
    // The connection is unusable; the next BEGIN reports it to the writes of the next group.
  }
}
