import { BULK_ACTION_KINDS, MAX_BULK_IDS, type BulkActionKind, type BulkFilter } from '../bulk-action.js';
import { FerryError } from '../errors.js';
import { validateListQuery, type ListQueryInput } from './list-query.js';

/** A bulk action's filter as given: the filters of `GET /requests`, with the types of its query parameters. */
export type BulkFilterInput = Omit<ListQueryInput, 'cursor' | 'limit'>;

export interface BulkActionInput {
  /** `cancel` or `replay`; undefined when absent. */
  action?: string;
  /** Undefined when absent; present (even empty) when given. */
  ids?: readonly string[];
  filter?: BulkFilterInput;
}

export type ValidBulkSelection = { readonly kind: 'ids'; readonly ids: readonly string[] } | { readonly kind: 'filter'; readonly filter: BulkFilter };

export interface ValidBulkAction {
  readonly action: BulkActionKind;
  readonly selection: ValidBulkSelection;
}

/**
 * A bulk action names its requests by IDs (1 to 1,000, duplicates counted once) or by a filter of the request
 * list, never both. The filter goes through the list's own validation, so every filter of `GET /requests` is one
 * here with the same rules and field names; an empty filter would act on every request of the project, and is
 * refused.
 */
export function validateBulkAction(input: BulkActionInput, now: number): ValidBulkAction {
  if (input.action === undefined) throw new FerryError('MISSING_FIELD', 'action is required: cancel or replay.', 'action');
  if (!(BULK_ACTION_KINDS as readonly string[]).includes(input.action)) {
    throw new FerryError('INVALID_FIELD', `action must be one of ${BULK_ACTION_KINDS.join(', ')}.`, 'action');
  }
  const action = input.action as BulkActionKind;
  if (input.ids !== undefined && input.filter !== undefined) {
    throw new FerryError('INVALID_FIELD', 'Give either ids or filter, not both.', 'filter');
  }
  if (input.ids !== undefined) {
    if (input.ids.length === 0 || input.ids.length > MAX_BULK_IDS) {
      throw new FerryError('INVALID_FIELD', `ids must hold 1 to ${MAX_BULK_IDS} request IDs.`, 'ids');
    }
    for (const [i, id] of input.ids.entries()) {
      if (typeof id !== 'string' || id.length === 0) throw new FerryError('INVALID_FIELD', 'Each ID must be a non-empty string.', `ids[${i}]`);
    }
    return { action, selection: { kind: 'ids', ids: [...new Set(input.ids)] } };
  }
  if (input.filter === undefined) throw new FerryError('MISSING_FIELD', 'Give ids or filter: the requests to act on.', 'filter');
  let filter: BulkFilter;
  try {
    const { limit: _limit, cursor: _cursor, ...rest } = validateListQuery(input.filter, now);
    filter = rest;
  } catch (err) {
    throw err instanceof FerryError ? err.under('filter') : err;
  }
  if (Object.keys(filter).length === 0) {
    throw new FerryError('INVALID_FILTER', 'filter must name at least one condition; an empty filter would match every request.', 'filter');
  }
  return { action, selection: { kind: 'filter', filter } };
}
