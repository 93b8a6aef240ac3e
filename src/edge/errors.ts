import { FerryError } from '../domain/errors.js';
import { StorageUnavailable } from '../ports/errors.js';

/**
 * Every protocol reports failures from the one catalogue: anything that is not already a FerryError becomes
 * STORAGE_UNAVAILABLE (nothing was durably applied) or INTERNAL.
 */
export function toFerryError(err: unknown): FerryError {
  if (err instanceof FerryError) return err;
  if (err instanceof StorageUnavailable) {
    return new FerryError('STORAGE_UNAVAILABLE', 'The operation could not be durably applied; retry later.');
  }
  return new FerryError('INTERNAL', 'An unexpected error occurred.');
}
