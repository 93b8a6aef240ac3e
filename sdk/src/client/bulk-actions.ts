import type { BulkAction, BulkActionDryRun, BulkActionInput, BulkActionList, CallOptions, ListBulkActionsQuery, WithRequestId } from '../types.js';
import type { HttpClient } from './http.js';
import { PagePromise } from './pagination.js';
import { withRequestId } from './results.js';

/** Options of `bulkActions.create`. */
export interface BulkActionOptions extends CallOptions {
  /** The same key and input answer the same action for 24 hours; a random one is made when absent. */
  idempotencyKey?: string;
}

/**
 * Bulk cancel and bulk replay of the key's project: up to 1,000 requests by ID, or every request a filter of the
 * request list matches (only those created before the action). An action runs in the background and can be
 * watched with `get`; its replays are paced by the queues' and flow keys' limits like any request.
 */
export class BulkActions {
  readonly #http: HttpClient;

  /** @internal Built by `Ferry`. */
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /**
   * Starts a bulk action (`202`).
   *
   * @example
   * const action = await ferry.bulkActions.create({ action: 'replay', filter: { status: 'failed', queue: 'billing' } });
   */
  async create(input: BulkActionInput, options: BulkActionOptions = {}): Promise<WithRequestId<BulkAction>> {
    const { idempotencyKey, ...call } = options;
    const { data, requestId } = await this.#http.call({
      method: 'POST',
      path: '/bulk-actions',
      json: { ...input, dry_run: false },
      idempotent: { key: idempotencyKey },
      options: call,
    });
    return withRequestId(data as BulkAction, requestId);
  }

  /** Counts the requests an action with this input would match now, and changes nothing. */
  async dryRun(input: BulkActionInput, options?: CallOptions): Promise<WithRequestId<BulkActionDryRun>> {
    const { data, requestId } = await this.#http.call({ method: 'POST', path: '/bulk-actions', json: { ...input, dry_run: true }, options });
    return withRequestId(data as BulkActionDryRun, requestId);
  }

  /** One action with its progress: `matched`, `done`, `skipped` by reason, and its `state`. */
  async get(id: string, options?: CallOptions): Promise<WithRequestId<BulkAction>> {
    const { data, requestId } = await this.#http.call({ method: 'GET', path: `/bulk-actions/${encodeURIComponent(id)}`, options });
    return withRequestId(data as BulkAction, requestId);
  }

  /** The project's actions, newest first. `await` it for one page; `for await` over it for every one. */
  list(query: ListBulkActionsQuery = {}, options?: CallOptions): PagePromise<BulkAction, WithRequestId<BulkActionList>> {
    return new PagePromise(async (cursor) => {
      const { data, requestId } = await this.#http.call({ method: 'GET', path: '/bulk-actions', query: { ...query, cursor }, options });
      return withRequestId(data as BulkActionList, requestId);
    }, query.cursor);
  }

  /** Stops a running action; one that ended is answered as it is. */
  async cancel(id: string, options?: CallOptions): Promise<WithRequestId<BulkAction>> {
    const { data, requestId } = await this.#http.call({ method: 'POST', path: `/bulk-actions/${encodeURIComponent(id)}/cancel`, options });
    return withRequestId(data as BulkAction, requestId);
  }
}
