import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';

/**
 * Copies the embedded database to `destination` while a server may be running on it: SQLite's online backup
 * reads a consistent snapshot (in WAL mode, the last commit before the copy started, plus what commits during it,
 * page by page) without stopping writers, which a plain file copy of a database and its write-ahead log cannot
 * promise. The copy is a complete database that `FERRY_DATA_DIR` can point at.
 */
export async function backupEmbeddedDatabase(source: string, destination: string): Promise<{ pages: number }> {
  if (!existsSync(source)) throw new Error(`There is no database at ${source}.`);
  if (existsSync(destination)) throw new Error(`${destination} already exists; a backup never overwrites a file.`);
  const db = new Database(source, { readonly: true, fileMustExist: true });
  try {
    const { totalPages } = await db.backup(destination);
    return { pages: totalPages };
  } finally {
    db.close();
  }
}
