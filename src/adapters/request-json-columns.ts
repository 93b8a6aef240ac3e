import type { WaitingFor } from '../domain/flow/budgets.js';

// Request fields both backends keep as JSON text, in columns of the same name: neither SQLite nor the CQL the
// requests table uses has a type for them, and neither is ever queried by its parts.

/** `flow_keys`: NULL for none, as most requests have, so they cost nothing to write or read. */
export function flowKeysColumn(keys: readonly string[]): string | null {
  return keys.length === 0 ? null : JSON.stringify(keys);
}

export function flowKeysFromColumn(text: string | null | undefined): readonly string[] {
  return text === null || text === undefined ? [] : (JSON.parse(text) as string[]);
}

/** `waiting_for`: NULL while no budget holds the request back. */
export function waitingForColumn(w: WaitingFor | null): string | null {
  return w === null ? null : JSON.stringify(w);
}

export function waitingForFromColumn(text: string | null | undefined): WaitingFor | null {
  return text === null || text === undefined ? null : (JSON.parse(text) as WaitingFor);
}
