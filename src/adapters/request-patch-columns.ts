import type { RequestPatch } from '../ports/requests.js';

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
} as const satisfies Record<keyof Required<RequestPatch>, string>;

export const PATCH_FIELDS = Object.keys(PATCH_COLUMNS) as Array<keyof typeof PATCH_COLUMNS>;
