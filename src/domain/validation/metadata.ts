import { FerryError } from '../errors.js';
import { MAX_METADATA_BYTES, MAX_METADATA_ENTRIES, MAX_METADATA_KEY_BYTES, MAX_METADATA_VALUE_BYTES, utf8Length } from './limits.js';
import { METADATA_KEY_PATTERN as KEY } from './patterns.js';

/** Returns a copy with own data properties only, so keys such as `__proto__` stay plain keys downstream. */
export function validateMetadata(m: Record<string, string>, at = 'metadata'): Record<string, string> {
  if (m === null || typeof m !== 'object' || Array.isArray(m)) {
    throw new FerryError('INVALID_METADATA', 'Metadata must be an object of string values.', at);
  }
  const entries = Object.entries(m);
  if (entries.length > MAX_METADATA_ENTRIES) {
    throw new FerryError('INVALID_METADATA', `At most ${MAX_METADATA_ENTRIES} metadata entries are allowed; got ${entries.length}.`, at);
  }
  let bytes = 0;
  for (const [key, value] of entries) {
    const field = `${at}.${key}`;
    if (!KEY.test(key) || key.length > MAX_METADATA_KEY_BYTES) {
      throw new FerryError('INVALID_METADATA', `Metadata keys must be 1 to ${MAX_METADATA_KEY_BYTES} letters, digits, dots, hyphens or underscores.`, key === '' ? at : field);
    }
    if (typeof value !== 'string') {
      throw new FerryError('INVALID_METADATA', 'Metadata values must be strings.', field);
    }
    const valueBytes = utf8Length(value);
    if (valueBytes > MAX_METADATA_VALUE_BYTES) {
      throw new FerryError('INVALID_METADATA', `The metadata value is ${valueBytes} bytes; at most ${MAX_METADATA_VALUE_BYTES} are allowed.`, field);
    }
    bytes += key.length + valueBytes;
  }
  if (bytes > MAX_METADATA_BYTES) {
    throw new FerryError('INVALID_METADATA', `Metadata keys and values total ${bytes} bytes; at most ${MAX_METADATA_BYTES} are allowed.`, at);
  }
  return Object.fromEntries(entries);
}
