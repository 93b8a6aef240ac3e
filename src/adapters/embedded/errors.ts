import Database from 'better-sqlite3';
import { StorageUnavailable } from '../../ports/errors.js';
import { VersionConflict } from '../../ports/requests.js';

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

/** A failed write as it crosses from the writer thread: error classes and causes do not survive a clone. */
export interface WriteErrorData {
  readonly kind: 'VersionConflict' | 'StorageUnavailable' | 'other';
  readonly message: string;
}

/** On the writer thread: the port error a write failed with, as plain data. */
export function writeErrorToData(err: unknown, during: string): WriteErrorData {
  const converted = toPortError(err, during);
  if (converted instanceof VersionConflict) return { kind: 'VersionConflict', message: converted.message };
  if (converted instanceof StorageUnavailable) return { kind: 'StorageUnavailable', message: converted.message };
  if (converted instanceof Error) {
    const code = (converted as { code?: unknown }).code;
    const detail = typeof code === 'string' ? `${converted.name} ${code}` : converted.name;
    return { kind: 'other', message: `${detail}: ${converted.message}` };
  }
  return { kind: 'other', message: String(converted) };
}

/**
 * On the main thread: the port error again. Anything but a version conflict or a storage failure (a constraint
 * violation, a bug in an op) can no longer be told apart from a storage fault here; it keeps its message.
 */
export function writeErrorFromData(data: WriteErrorData): Error {
  if (data.kind === 'VersionConflict') return new VersionConflict(data.message);
  if (data.kind === 'StorageUnavailable') return new StorageUnavailable(data.message);
  return new StorageUnavailable(`Embedded storage refused a write: ${data.message}`);
}
