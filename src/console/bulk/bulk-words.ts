import type { BulkAction, BulkActionFilter } from '../../../sdk/src/types.js';
import { listQueryOf } from '../requests/list-query.js';

export type BulkKind = BulkAction['action'];
type Skipped = BulkAction['skipped'];

/** The most IDs one bulk action takes (`POST /bulk-actions`); more is refused with a 422. */
export const MAX_BULK_IDS = 1_000;

/**
 * The list's filters in the address as a bulk action's `filter`, with `fixed` on top (the failures view's status).
 * Values go as the list sends them, a code that is no number included, for the API to judge: what is counted and
 * acted on is what the list shows.
 */
export function bulkFilterOf(query: URLSearchParams, fixed: BulkActionFilter = {}): BulkActionFilter {
  const { cursor: _cursor, limit: _limit, ...filter } = listQueryOf(query);
  return { ...(filter as BulkActionFilter), ...fixed };
}

/** Whether the filter names anything: an empty one is refused by the API, which would not act on everything. */
export function isEmptyFilter(filter: BulkActionFilter): boolean {
  return Object.values(filter).every((v) => v === undefined || v === '');
}

/** The verb of an action: `replay` → "Replay". */
export function verbOf(kind: BulkKind): string {
  return kind === 'replay' ? 'Replay' : 'Cancel';
}

/** What an action did to a request: `replay` → "replayed". */
export function pastOf(kind: BulkKind): string {
  return kind === 'replay' ? 'replayed' : 'cancelled';
}

/** "1 request", "40 requests". */
export function requestsText(n: number): string {
  return `${n.toLocaleString('en-GB')} ${n === 1 ? 'request' : 'requests'}`;
}

/** The confirmation's sentence: "40 requests will be replayed". */
export function willText(kind: BulkKind, n: number): string {
  return `${requestsText(n)} will be ${pastOf(kind)}`;
}

const SKIP_WORDS: Record<string, string> = {
  not_found: 'not found',
  ended: 'already ended',
  active: 'not ended yet',
  already_cancelled: 'already cancelled',
  invalid_definition: 'definition no longer valid',
};

/** The requests an action left alone, by reason, in words: "2 not ended yet, 1 not found"; empty when none. */
export function skippedText(skipped: Skipped): string {
  return Object.entries(skipped)
    .filter(([, n]) => n > 0)
    .map(([reason, n]) => `${n.toLocaleString('en-GB')} ${SKIP_WORDS[reason] ?? reason.replace(/_/g, ' ')}`)
    .join(', ');
}

/** How many of the matched requests the action has been through, acted on or left alone. */
export function handledOf(action: Pick<BulkAction, 'done' | 'skipped'>): number {
  return action.done + Object.values(action.skipped).reduce((sum, n) => sum + n, 0);
}

/** The state in words, with the count: "Running: 12 of 40 replayed", "Completed: 40 of 40 replayed". */
export function progressText(action: Pick<BulkAction, 'action' | 'state' | 'matched' | 'done'>): string {
  const state = action.state === 'running' ? 'Running' : action.state === 'completed' ? 'Completed' : 'Cancelled';
  return `${state}: ${action.done.toLocaleString('en-GB')} of ${requestsText(action.matched)} ${pastOf(action.action)}`;
}
