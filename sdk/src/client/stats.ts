import type { CallOptions, Stats, WithRequestId } from '../types.js';
import type { HttpClient } from './http.js';
import { withRequestId } from './results.js';

/** The overview of the key's project: counts per minute over the last 24 hours, and its backlog by queue now. */
export class StatsResource {
  readonly #http: HttpClient;

  /** @internal Built by `Ferry`. */
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /**
   * Counts per UTC minute (accepted, delivered, failed, retried, callbacks) of the minutes with any, their totals
   * and failure rate, and the queues with requests waiting or under way, longest-waiting first.
   *
   * @example
   * const { totals, failure_rate, backlog } = await ferry.stats.get();
   */
  async get(options?: CallOptions): Promise<WithRequestId<Stats>> {
    const { data, requestId } = await this.#http.call({ method: 'GET', path: '/stats', options });
    return withRequestId(data as Stats, requestId);
  }
}
