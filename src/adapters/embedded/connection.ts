import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { asStorageUnavailable } from './errors.js';

/** What both threads need to open the file the same way; plain data, so it can be handed to the writer thread. */
export interface ConnectionOptions {
  readonly path: string;
  readonly busyTimeoutMs: number;
  /** Caps the file's growth through this connection; null for SQLite's default. */
  readonly maxPageCount: number | null;
}

/** Opens the file in WAL mode with durable commits; failures to open are storage failures. */
export function openConnection(options: ConnectionOptions): Connection {
  let db: Database.Database;
  try {
    mkdirSync(dirname(options.path), { recursive: true });
    db = new Database(options.path, { timeout: options.busyTimeoutMs });
  } catch (err) {
    throw asStorageUnavailable(err, `open of ${options.path}`);
  }
  try {
    db.pragma('journal_mode = WAL');
    // FULL makes COMMIT wait for the WAL fsync: a resolved write survives a crash of the process or the host.
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = OFF');
    if (options.maxPageCount !== null) db.pragma(`max_page_count = ${Math.trunc(options.maxPageCount)}`);
  } catch (err) {
    db.close();
    throw asStorageUnavailable(err, `open of ${options.path}`);
  }
  return new Connection(db);
}

/** A connection with its prepared statements, cached by text so dynamic queries are compiled once per shape. */
export class Connection {
  private readonly statements = new Map<string, Database.Statement>();
  private readonly rawStatements = new Map<string, Database.Statement>();

  constructor(readonly db: Database.Database) {}

  statement(sql: string): Database.Statement {
    let stmt = this.statements.get(sql);
    if (stmt === undefined) {
      stmt = this.db.prepare(sql);
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  /**
   * A statement that returns each row as an array of column values in SELECT order: the row mapping then reads
   * by position and the driver builds no keyed object per row. Kept apart from `statement` because raw mode
   * sticks to the statement object.
   */
  rawStatement(sql: string): Database.Statement {
    let stmt = this.rawStatements.get(sql);
    if (stmt === undefined) {
      stmt = this.db.prepare(sql).raw(true);
      this.rawStatements.set(sql, stmt);
    }
    return stmt;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
