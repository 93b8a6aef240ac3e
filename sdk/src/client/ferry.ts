import type { CallOptions, FerryOptions, Usage, WithRequestId } from '../types.js';
import { Budgets } from './budgets.js';
import { BulkActions } from './bulk-actions.js';
import { checkMaxRetries, checkTimeoutMs, HttpClient } from './http.js';
import { Requests } from './requests.js';
import { withRequestId } from './results.js';
import { Schedules } from './schedules.js';
import { StatsResource } from './stats.js';

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_RETRIES = 2;

/**
 * A client of the Ferry JSON HTTP API. Every method resolves with the envelope's `data` (carrying the call's
 * `requestId`) and rejects with a `FerryError`: a `FerryApiError` subclass when Ferry answered with an error,
 * `FerryConnectionError`, `FerryTimeoutError` or `FerryAbortError` when it did not answer.
 *
 * Network failures, timeouts, 429, 502, 503 and 504 are retried up to `maxRetries` times, with exponential backoff
 * and full jitter, or after the wait `Retry-After` asks for. Creates always carry an idempotency key, so a retry
 * never creates twice.
 *
 * @example
 * const ferry = new Ferry({ baseUrl: 'https://ferry.example.com', apiKey: process.env.FERRY_API_KEY! });
 * const accepted = await ferry.requests.create({ url: 'https://hooks.example.com/in', body: { order: 42 } });
 */
export class Ferry {
  /** Delivery requests: send, create, batch, get, attempts, cancel, replay, list. */
  readonly requests: Requests;
  /** Recurring schedules: create, list, get, update, pause, resume, trigger, backfill, delete, preview. */
  readonly schedules: Schedules;
  /** Queues, as flow control sees them: list, get, put (rate and concurrency limits), pause, resume. */
  readonly queues: Budgets;
  /** Flow keys, which requests name in `flow_keys`: list, get, put, pause, resume, as queues. */
  readonly flowKeys: Budgets;
  /** Bulk cancel and bulk replay by IDs or by a filter of the request list: create, dryRun, get, list, cancel. */
  readonly bulkActions: BulkActions;
  /** The overview: counts per minute over the last 24 hours, and the backlog by queue. */
  readonly stats: StatsResource;
  readonly #http: HttpClient;

  constructor(options: FerryOptions) {
    if (typeof options?.baseUrl !== 'string' || !/^https?:\/\//i.test(options.baseUrl)) {
      throw new TypeError('Ferry: baseUrl must be an http or https URL, such as https://ferry.example.com.');
    }
    if (typeof options.apiKey !== 'string' || options.apiKey === '') throw new TypeError('Ferry: apiKey is required.');
    const http = new HttpClient({
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      timeoutMs: checkTimeoutMs(options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      maxRetries: checkMaxRetries(options.maxRetries ?? DEFAULT_MAX_RETRIES),
      // Looked up at each call, not bound once, so a fetch patched in later (instrumentation) is the one used.
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    });
    this.#http = http;
    this.requests = new Requests(http);
    this.schedules = new Schedules(http);
    this.queues = new Budgets(http, '/queues');
    this.flowKeys = new Budgets(http, '/flow-keys');
    this.bulkActions = new BulkActions(http);
    this.stats = new StatsResource(http);
  }

  /**
   * How much of its allowances the key's project has used: requests counted this UTC month against the monthly
   * allowance (with the period's start and end, when the count starts again), and schedules against the schedule
   * allowance.
   *
   * @example
   * const { used, allowance, period_end } = await ferry.usage();
   */
  async usage(options?: CallOptions): Promise<WithRequestId<Usage>> {
    const { data, requestId } = await this.#http.call({ method: 'GET', path: '/usage', options });
    return withRequestId(data as Usage, requestId);
  }
}
