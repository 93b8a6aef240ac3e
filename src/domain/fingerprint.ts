import { createHash, type Hash } from 'node:crypto';

/**
 * Idempotency compares inputs by fingerprint. Every value is written with a type tag and, for variable-length
 * parts, a length, so no two different inputs share a serialisation; object keys are sorted so key order, which
 * JSON does not give meaning to, never changes the result.
 */

function feed(hash: Hash, value: unknown): void {
  if (value === null) {
    hash.update('n');
    return;
  }
  switch (typeof value) {
    case 'boolean':
      hash.update(value ? 'T' : 'F');
      return;
    case 'number':
      hash.update(`d${String(value)};`);
      return;
    case 'bigint':
      hash.update(`i${value.toString()};`);
      return;
    case 'string': {
      const bytes = Buffer.from(value, 'utf8');
      hash.update(`s${bytes.length}:`);
      hash.update(bytes);
      return;
    }
    case 'undefined':
      // Only reachable inside arrays, where a position cannot simply be dropped.
      hash.update('u');
      return;
    case 'object':
      break;
    default:
      throw new TypeError(`Cannot fingerprint a value of type ${typeof value}`);
  }
  if (value instanceof Uint8Array) {
    hash.update(`b${value.byteLength}:`);
    hash.update(value);
  } else if (Array.isArray(value)) {
    hash.update(`a${value.length}:`);
    for (const item of value) feed(hash, item);
  } else if (value instanceof Date) {
    hash.update(`t${value.getTime()};`);
  } else {
    const keys = Object.keys(value)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort();
    hash.update(`o${keys.length}:`);
    for (const key of keys) {
      feed(hash, key);
      feed(hash, (value as Record<string, unknown>)[key]);
    }
  }
}

/** SHA-256 hex of `operation` and `value`; the operation keeps equal inputs of different calls apart. */
export function fingerprint(operation: string, value: unknown): string {
  const hash = createHash('sha256');
  feed(hash, operation);
  feed(hash, value);
  return hash.digest('hex');
}
