import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { asStorageUnavailable } from './errors.js';

/** Who holds a data directory, as its holder wrote it down. */
export interface DataDirHolder {
  readonly pid: number;
  readonly host: string;
  /** ISO time the holder took the directory. */
  readonly since: string;
}

/** A second `ferry serve` was pointed at a data directory that a running one already serves. */
export class DataDirInUse extends Error {
  override readonly name = 'DataDirInUse';

  constructor(
    readonly dataDir: string,
    readonly holder: DataDirHolder | null,
  ) {
    const by = holder === null ? 'another process' : `process ${holder.pid} on ${holder.host}, running since ${holder.since}`;
    super(`data directory ${dataDir} is already served by ${by}; one server per data directory`);
  }
}

export interface DataDirLock {
  /** Gives the directory up; once is enough, later calls do nothing. */
  release(): void;
}

const LOCK_FILE = 'serve.lock';
/** Read only to name the holder in DataDirInUse; the lock itself never depends on it. */
const HOLDER_FILE = 'serve.lock.holder';

/**
 * Takes the data directory for this process alone, for as long as it serves: two servers on one embedded
 * database would both claim and deliver the same attempts.
 *
 * The lock is an exclusive transaction held open on a small SQLite file of its own (`locking_mode=EXCLUSIVE`).
 * SQLite holds it with an OS file lock, which the OS drops the moment the process ends however it ends, so a
 * crashed or killed server never leaves a stale lock behind, and a pid file's guessing (is that pid still ours?)
 * is not needed. Administration commands open only the database file, whose own locking lets them write beside
 * the server. Like any SQLite lock it relies on the file system's locks, so the data directory must be local.
 */
export function lockDataDir(dataDir: string, now: number): DataDirLock {
  let db: Database.Database | undefined;
  try {
    mkdirSync(dataDir, { recursive: true });
    // No busy wait: a held lock is an answer, not a moment to wait out.
    db = new Database(join(dataDir, LOCK_FILE), { timeout: 0 });
    // Nothing is ever written: a journal in memory keeps the directory free of a `-journal` file.
    db.pragma('journal_mode = MEMORY');
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    db?.close();
    if (err instanceof Database.SqliteError && (err.code === 'SQLITE_BUSY' || err.code === 'SQLITE_LOCKED')) {
      throw new DataDirInUse(dataDir, readHolder(dataDir));
    }
    throw asStorageUnavailable(err, `locking of ${dataDir}`);
  }
  const held = db;
  writeHolder(dataDir, { pid: process.pid, host: hostname(), since: new Date(now).toISOString() });
  return {
    release() {
      if (!held.open) return;
      // The note goes first: once the lock is free, the note in place may already be the next holder's.
      rmSync(join(dataDir, HOLDER_FILE), { force: true });
      held.close();
    },
  };
}

function writeHolder(dataDir: string, holder: DataDirHolder): void {
  // Written whole and renamed into place, so a reader never sees half a note.
  const temporary = join(dataDir, `${HOLDER_FILE}.${process.pid}`);
  writeFileSync(temporary, `${JSON.stringify(holder)}\n`);
  renameSync(temporary, join(dataDir, HOLDER_FILE));
}

function readHolder(dataDir: string): DataDirHolder | null {
  try {
    const note = JSON.parse(readFileSync(join(dataDir, HOLDER_FILE), 'utf8')) as Partial<DataDirHolder>;
    if (typeof note.pid !== 'number' || typeof note.host !== 'string' || typeof note.since !== 'string') return null;
    return { pid: note.pid, host: note.host, since: note.since };
  } catch {
    // Not written yet (the holder has just taken the lock) or unreadable: the message then names no process.
    return null;
  }
}
