import type { ListQuery } from './validation/list-query.js';

/** What a bulk action does to each request it matched. */
export const BULK_ACTION_KINDS = ['cancel', 'replay'] as const;
export type BulkActionKind = (typeof BULK_ACTION_KINDS)[number];

/** `running` until every matched request was looked at (`completed`) or the action was cancelled (`cancelled`). */
export type BulkActionState = 'running' | 'completed' | 'cancelled';

/**
 * Why a matched request was left alone: `not_found` (an ID not in the project), `ended` (a cancel of a request that
 * already succeeded or failed), `active` (a replay of a request not yet ended), `already_cancelled` (a cancel of a
 * cancelled request), `invalid_definition` (a replay of a request whose stored definition no longer passes the
 * rules a new request must pass, as a single replay refuses it).
 */
export const SKIP_REASONS = ['not_found', 'ended', 'active', 'already_cancelled', 'invalid_definition'] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];
export type SkipCounts = Readonly<Record<SkipReason, number>>;

/** How many bulk actions a project runs at once: one more is refused (`BULK_ACTIONS_LIMIT`). */
export const MAX_RUNNING_BULK_ACTIONS = 3;
/** The most IDs one bulk action names. */
export const MAX_BULK_IDS = 1000;

/** A filter of the request list, as a bulk action keeps it: `GET /requests`' filters, without paging. */
export type BulkFilter = Omit<ListQuery, 'limit' | 'cursor'>;

/**
 * The requests a bulk action acts on, fixed when it is created. IDs are kept as given (deduplicated). A filter is
 * kept with `before`: only requests created before the action are matched, so requests created later (the action's
 * own replays among them) are never touched, and the list walked by cursor in list order stays the one counted.
 */
export type BulkSelection =
  | { readonly kind: 'ids'; readonly ids: readonly string[] }
  | { readonly kind: 'filter'; readonly filter: BulkFilter; readonly before: number };

/**
 * How far the action got, as stored after each batch: the index of the next ID, or the list position of the last
 * request looked at (the walk goes on strictly after it). Null before the first batch.
 */
export type BulkPosition = { readonly index: number } | { readonly createdAt: number; readonly id: string } | null;

export interface BulkAction {
  readonly id: string;
  readonly projectId: string;
  readonly action: BulkActionKind;
  readonly state: BulkActionState;
  readonly selection: BulkSelection;
  /** How many requests the selection held when the action was created. */
  readonly matched: number;
  /** Requests cancelled or replayed. */
  readonly done: number;
  readonly skipped: SkipCounts;
  readonly position: BulkPosition;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly completedAt: number | null;
  /** Moves on with every stored change; a change is stored only over the version it was made from. */
  readonly version: number;
}

export function noSkips(): Record<SkipReason, number> {
  return { not_found: 0, ended: 0, active: 0, already_cancelled: 0, invalid_definition: 0 };
}

/** The key of the replay a bulk action makes of one request: a redo of the batch finds it instead of a second. */
export function bulkReplayKey(bulkId: string, requestId: string): string {
  return `${bulkId}/${requestId}`;
}
