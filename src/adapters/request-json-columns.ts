import type { WaitingFor } from '../domain/flow/budgets.js';
import type { RequestCallbacks } from '../domain/request.js';

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

/** `callbacks`: NULL for none, as most requests have; else `{"on_success": …, "on_failure": …}`. */
export function callbacksColumn(c: RequestCallbacks | null | undefined): string | null {
  return c === null || c === undefined ? null : JSON.stringify({ on_success: c.onSuccess, on_failure: c.onFailure });
}

export function callbacksFromColumn(text: string | null | undefined): RequestCallbacks | null {
  if (text === null || text === undefined) return null;
  const c = JSON.parse(text) as { on_success: string | null; on_failure: string | null };
  return { onSuccess: c.on_success, onFailure: c.on_failure };
}

/** `callback_request_ids`: NULL until a callback is created, as for most requests for ever. */
export function callbackIdsColumn(ids: readonly string[]): string | null {
  return ids.length === 0 ? null : JSON.stringify(ids);
}

export function callbackIdsFromColumn(text: string | null | undefined): readonly string[] {
  return text === null || text === undefined ? [] : (JSON.parse(text) as string[]);
}
