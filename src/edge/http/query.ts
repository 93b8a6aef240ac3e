import type { DescField } from '@bufbuild/protobuf';
import { FerryError } from '../../domain/errors.js';
import { scalarFromText } from './text-scalar.js';

/** Binds a raw query string (without `?`) into a request message. */
export type QueryBinder = (query: string, target: Record<string, unknown>) => void;

const PLUS = /\+/g;

/**
 * Compiles the query binding of a route. Only declared names are accepted and each at most once: a repeated
 * parameter would otherwise have to pick a winner silently.
 */
export function compileQuery(fields: ReadonlyMap<string, DescField>): QueryBinder {
  const slots = new Map<string, { field: DescField; bit: number }>();
  let bit = 1;
  for (const [name, field] of fields) {
    slots.set(name, { field, bit });
    bit *= 2;
  }
  return (query, target) => {
    let seen = 0;
    let start = 0;
    while (start <= query.length) {
      let end = query.indexOf('&', start);
      if (end === -1) end = query.length;
      if (end > start) {
        const eq = query.indexOf('=', start);
        const split = eq === -1 || eq > end ? end : eq;
        const name = decode(query.slice(start, split), undefined);
        const slot = slots.get(name);
        if (slot === undefined) throw new FerryError('UNKNOWN_FIELD', `Unknown query parameter "${name}".`, name);
        if ((seen & slot.bit) !== 0) throw new FerryError('INVALID_FIELD', `Query parameter "${name}" is repeated.`, name);
        seen |= slot.bit;
        const value = split === end ? '' : decode(query.slice(split + 1, end), name);
        target[slot.field.localName] = scalarFromText(slot.field, value, name);
      }
      start = end + 1;
    }
  };
}

function decode(text: string, name: string | undefined): string {
  if (!text.includes('%') && !text.includes('+')) return text;
  try {
    return decodeURIComponent(text.replace(PLUS, ' '));
  } catch {
    const at = name ?? text;
    throw new FerryError('INVALID_FIELD', `Query parameter "${at}" is not valid percent-encoding.`, at);
  }
}
