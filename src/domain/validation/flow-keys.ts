import { FerryError, quoteInput } from '../errors.js';
import { FLOW_KEY, MAX_FLOW_KEYS } from '../flow/budgets.js';

const RULE = 'letters, digits, dots, hyphens, underscores or colons';

/** One flow key: a path segment (`/flow-keys/{key}`) or one item of a request's `flow_keys`. */
export function validateFlowKey(key: unknown, field = 'key'): string {
  if (typeof key !== 'string' || !FLOW_KEY.test(key)) {
    const shown = typeof key === 'string' ? ` ${quoteInput(key)}` : '';
    throw new FerryError('INVALID_FLOW_KEY', `The flow key${shown} must be 1 to 64 ${RULE}.`, field);
  }
  return key;
}

/**
 * A request's flow keys, in the order given: at most `MAX_FLOW_KEYS`, each valid, none twice (a key named twice
 * would count twice against its own budget). Absent means none.
 */
export function validateFlowKeys(keys: readonly unknown[] | undefined, field = 'flow_keys'): string[] {
  if (keys === undefined || keys === null) return [];
  if (!Array.isArray(keys)) throw new FerryError('INVALID_FLOW_KEY', 'flow_keys must be an array of strings.', field);
  if (keys.length > MAX_FLOW_KEYS) {
    throw new FerryError('INVALID_FLOW_KEY', `A request names at most ${MAX_FLOW_KEYS} flow keys; got ${keys.length}.`, field);
  }
  const seen = new Set<string>();
  return keys.map((key, i) => {
    const valid = validateFlowKey(key, `${field}[${i}]`);
    if (seen.has(valid)) {
      throw new FerryError('INVALID_FLOW_KEY', `The flow key ${quoteInput(valid)} is named more than once.`, `${field}[${i}]`);
    }
    seen.add(valid);
    return valid;
  });
}

/**
 * The `Flow-Keys` header of a quick send: keys separated by commas, spaces and tabs around each trimmed. An
 * absent header is no keys; an empty key (`a,,b`, a trailing comma, a blank header) is refused like any bad key.
 */
export function parseFlowKeysHeader(text: string | undefined, field = 'Flow-Keys'): string[] {
  if (text === undefined || text === null) return [];
  const keys = text.split(',').map((k) => k.replace(/^[ \t]+|[ \t]+$/g, ''));
  if (keys.length > MAX_FLOW_KEYS) {
    throw new FerryError('INVALID_FLOW_KEY', `A request names at most ${MAX_FLOW_KEYS} flow keys; got ${keys.length}.`, field);
  }
  const seen = new Set<string>();
  for (const key of keys) {
    if (!FLOW_KEY.test(key)) {
      throw new FerryError('INVALID_FLOW_KEY', `The flow key ${quoteInput(key)} must be 1 to 64 ${RULE}; separate keys with commas.`, field);
    }
    if (seen.has(key)) throw new FerryError('INVALID_FLOW_KEY', `The flow key ${quoteInput(key)} is named more than once.`, field);
    seen.add(key);
  }
  return keys;
}
