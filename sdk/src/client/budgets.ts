import type { Budget, BudgetLimits, BudgetList, CallOptions, ListBudgetsQuery, WithRequestId } from '../types.js';
import type { HttpClient } from './http.js';
import { PagePromise } from './pagination.js';
import { withRequestId } from './results.js';

/**
 * The queues or the flow keys of the key's project: their rate and concurrency limits, their pause, and how each
 * stands now. Every valid name reads, configured or not: one never configured has no limits and is not paused. An
 * attempt starts only when its queue and every flow key of its request admit it; a request held back waits, it is
 * never refused.
 */
export class Budgets {
  readonly #http: HttpClient;
  readonly #path: string;

  /** @internal Built by `Ferry`, for `/queues` or `/flow-keys`. */
  constructor(http: HttpClient, path: '/queues' | '/flow-keys') {
    this.#http = http;
    this.#path = path;
  }

  /**
   * Lists them in name order (queues used or configured; flow keys configured or paused). `await` it for one page;
   * `for await` over it for every one, page after page.
   */
  list(query: ListBudgetsQuery = {}, options?: CallOptions): PagePromise<Budget, WithRequestId<BudgetList>> {
    return new PagePromise(async (cursor) => {
      const { data, requestId } = await this.#http.call({ method: 'GET', path: this.#path, query: { ...query, cursor }, options });
      return withRequestId(data as BudgetList, requestId);
    }, query.cursor);
  }

  /** One by name, with its limits and live state. */
  async get(name: string, options?: CallOptions): Promise<WithRequestId<Budget>> {
    return this.#data({ method: 'GET', path: this.#named(name), options });
  }

  /**
   * Replaces the whole configuration: a limit left out is no limit, `adaptive` is true unless set false, a rate's
   * `burst` is its `limit` unless given. The pause is kept.
   *
   * @example
   * await ferry.flowKeys.put('vendor:acme', { rate: { limit: 10, period: '1s' }, concurrency: 5 });
   */
  async put(name: string, limits: BudgetLimits, options?: CallOptions): Promise<WithRequestId<Budget>> {
    return this.#data({ method: 'PUT', path: this.#named(name), json: limits, options });
  }

  /** Stops new attempts from starting under it (attempts in flight finish); pausing a paused one is fine. */
  async pause(name: string, options?: CallOptions): Promise<WithRequestId<Budget>> {
    return this.#data({ method: 'POST', path: `${this.#named(name)}/pause`, options });
  }

  /** Lets attempts start under it again, where they left off. */
  async resume(name: string, options?: CallOptions): Promise<WithRequestId<Budget>> {
    return this.#data({ method: 'POST', path: `${this.#named(name)}/resume`, options });
  }

  #named(name: string): string {
    return `${this.#path}/${encodeURIComponent(name)}`;
  }

  async #data(call: Parameters<HttpClient['call']>[0]): Promise<WithRequestId<Budget>> {
    const { data, requestId } = await this.#http.call(call);
    return withRequestId(data as Budget, requestId);
  }
}
