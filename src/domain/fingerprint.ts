import { createHash, type Hash } from 'node:crypto';

/**
 * Idempotency compares inputs by fingerprint. Every value is written with a type tag and, for variable-length
 * parts, a length, so no two different inputs share a serialisation; object keys are sorted so key order, which
 * JSON does not give meaning to, never changes the result.
 */

/**
 * Writes the canonical form into `out`: text parts are gathered in `out.text` and reach the hash together, because
 * one update per value costs more than the hashing itself; bytes go in as they are, after the text before them.
 */
interface Canonical {
  readonly hash: Hash;
  text: string;
}

function feed(out: Canonical, value: unknown): void {
  if (value === null) {
    out.text += 'n';
    return;
  }
  switch (typeof value) {
    case 'boolean':
      out.text += value ? 'T' : 'F';
      return;
    case 'number':
      out.text += `d${String(value)};`;
      return;
    case 'bigint':
      out.text += `i${value.toString()};`;
      return;
    case 'string':
      // The length is of the UTF-8 bytes, which is what the hash gets.
      out.text += `s${Buffer.byteLength(value, 'utf8')}:${value}`;
      return;
    case 'undefined':
      // Only reachable inside arrays, where a position cannot simply be dropped.
      out.text += 'u';
      return;
    case 'object':
      break;
    default:
      throw new TypeError(`Cannot fingerprint a value of type ${typeof value}`);
  }
  if (value instanceof Uint8Array) {
    out.hash.update(`${out.text}b${value.byteLength}:`);
    out.text = '';
    out.hash.update(value);
  } else if (Array.isArray(value)) {
    out.text += `a${value.length}:`;
    for (const item of value) feed(out, item);
  } else if (value instanceof Date) {
    out.text += `t${value.getTime()};`;
  } else {
    const keys = Object.keys(value)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort();
    out.text += `o${keys.length}:`;
    for (const key of keys) {
      feed(out, key);
      feed(out, (value as Record<string, unknown>)[key]);
    }
  }
}

/** SHA-256 hex of `operation` and `value`; the operation keeps equal inputs of different calls apart. */
export function fingerprint(operation: string, value: unknown): string {
  const out: Canonical = { hash: createHash('sha256'), text: '' };
  feed(out, operation);
  feed(out, value);
  return out.hash.update(out.text).digest('hex');
}
