import type { Transition } from '../domain/request-lifecycle/index.js';
import type { RequestPatch, StoredRequest } from '../domain/request.js';
import { callbackIdsColumn, waitingForColumn } from './request-json-columns.js';

/**
 * Patchable request fields and their column names, the same in every backend's schema. The order is fixed so each
 * patch shape becomes one cached (prepared) statement.
 */
export const PATCH_COLUMNS = {
  status: 'status',
  dueAt: 'due_at',
  attemptCount: 'attempt_count',
  updatedAt: 'updated_at',
  startedAt: 'started_at',
  completedAt: 'completed_at',
  cancelledAt: 'cancelled_at',
  cancelRequestedAt: 'cancel_requested_at',
  waitingFor: 'waiting_for',
  lastStatusCode: 'last_status_code',
  callbackRequestIds: 'callback_request_ids',
} as const satisfies Record<keyof Required<RequestPatch>, string>;

export type PatchField = keyof typeof PATCH_COLUMNS;

export const PATCH_FIELDS = Object.keys(PATCH_COLUMNS) as PatchField[];

/**
 * A patchable field's value as both schemas hold it: `waitingFor` and `callbackRequestIds` as JSON text (null for
 * none), the rest as is.
 */
export function patchValue<F extends PatchField>(field: F, value: StoredRequest[F]): string | number | null {
  if (field === 'waitingFor') return waitingForColumn(value as StoredRequest['waitingFor']);
  if (field === 'callbackRequestIds') return callbackIdsColumn(value as StoredRequest['callbackRequestIds']);
  return value as string | number | null;
}

/**
 * A transition as SQL assignments (`column = ?`, and `column = COALESCE(column, ?)` for what it sets only where
 * unset) with their values in order, each ending in `, `; fields whose value is `undefined` are left out.
 */
export function transitionAssignments(t: Transition): { sql: string; values: Array<string | number | null> } {
  let sql = '';
  const values: Array<string | number | null> = [];
  for (const field of PATCH_FIELDS) {
    const value = t.set[field];
    const ifUnset = t.setIfUnset?.[field];
    if (value !== undefined) {
      sql += `${PATCH_COLUMNS[field]} = ?, `;
      values.push(patchValue(field, value));
    } else if (ifUnset !== undefined) {
      sql += `${PATCH_COLUMNS[field]} = COALESCE(${PATCH_COLUMNS[field]}, ?), `;
      values.push(patchValue(field, ifUnset));
    }
  }
  return { sql, values };
}

/** `('a', 'b')`: statuses as an SQL or CQL list of literals, for `status IN ...`. */
export function statusList(statuses: readonly string[]): string {
  return `(${statuses.map((s) => `'${s}'`).join(', ')})`;
}
