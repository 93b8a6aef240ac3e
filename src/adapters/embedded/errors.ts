import Database from 'better-sqlite3';
import { StorageUnavailable } from '../../ports/errors.js';

/**
 * Primary result codes that say the storage itself failed (locked by another process, disk full, I/O error,
 * corruption), as opposed to a query or constraint mistake. Extended codes such as `SQLITE_IOERR_FSYNC` share
 * their primary code's prefix.
 */
const UNAVAILABLE_CODES = [
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_IOERR',
  'SQLITE_FULL',
  'SQLITE_CANTOPEN',
  'SQLITE_READONLY',
  'SQLITE_CORRUPT',
  'SQLITE_NOTADB',
  'SQLITE_NOMEM',
  'SQLITE_PROTOCOL',
  'SQLITE_INTERRUPT',
  'SQLITE_PERM',
  'SQLITE_NOLFS',
];

function isUnavailableCode(code: string): boolean {
  return UNAVAILABLE_CODES.some((c) => code === c || code.startsWith(`${c}_`));
}

/**
 * The one place where driver errors become port errors. Storage failures become `StorageUnavailable`; anything
 * else (a domain error thrown by an operation, a constraint violation that reveals a caller bug) passes through.
 */
export function toPortError(err: unknown, during: string): unknown {
  if (err instanceof StorageUnavailable) return err;
  if (err instanceof Database.SqliteError && isUnavailableCode(err.code)) {
    return new StorageUnavailable(`Embedded storage failed during ${during} (${err.code}).`, { cause: err });
  }
  // better-sqlite3 reports use of a closed connection as a TypeError without a result code.
  if (err instanceof TypeError && /database connection is not open/i.test(err.message)) {
    return new StorageUnavailable(`Embedded storage is closed (during ${during}).`, { cause: err });
  }
  return err;
}

/** Any error, driver or not, as the storage failure that dooms a whole group of writes. */
export function asStorageUnavailable(err: unknown, during: string): StorageUnavailable {
  const converted = toPortError(err, during);
  if (converted instanceof StorageUnavailable) return converted;
  return new StorageUnavailable(`Embedded storage failed during ${during}.`, { cause: err });
}
