import type {
  Acceptance, Attempt, BatchItem, CallOptions, CancelResult, CreateOptions, ListRequestsQuery, RawBody, RequestDetail,
  RequestInput, RequestList, RequestSummary, SendOptions, WithRequestId,
} from '../types.js';
import type { HttpCall, HttpClient } from './http.js';
import { PagePromise } from './pagination.js';
import { withRequestId } from './results.js';

/** The requests of the key's project: accept them for delivery, read them, cancel and replay them. */
export class Requests {
  readonly #http: HttpClient;

  /** @internal Built by `Ferry`. */
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /**
   * Accepts `body` for delivery to `url` exactly as given (`POST /send`). Resolves once Ferry has stored it durably,
   * not once it is delivered.
   *
   * @example
   * await ferry.requests.send('https://hooks.example.com/in', JSON.stringify({ order: 42 }), { contentType: 'application/json', retry: 3 });
   */
  async send(url: string, body?: RawBody, options: SendOptions = {}): Promise<WithRequestId<Acceptance>> {
    const { contentType, forwardHeaders, flowKeys, idempotencyKey, timeoutMs, signal, maxRetries, ...query } = options;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(forwardHeaders ?? {})) headers[`X-Forward-${name}`] = value;
    if (flowKeys !== undefined && flowKeys.length > 0) headers['Flow-Keys'] = flowKeys.join(',');
    return this.#data<Acceptance>({
      method: 'POST',
      path: '/send',
      query: { ...query, url },
      raw: { body, contentType },
      headers,
      idempotent: { key: idempotencyKey },
      options: { timeoutMs, signal, maxRetries },
    });
  }

  /** Accepts a structured request (`POST /requests`); its JSON `body` is delivered as `application/json`. */
  async create(input: RequestInput, options: CreateOptions = {}): Promise<WithRequestId<Acceptance>> {
    return this.#data<Acceptance>({ method: 'POST', path: '/requests', json: input, idempotent: { key: options.idempotencyKey }, options });
  }

  /** Accepts 1 to 100 requests all together or not at all; the acceptances come in submitted order. */
  async batch(items: BatchItem[], options: CreateOptions = {}): Promise<WithRequestId<Acceptance[]>> {
    const { data, requestId } = await this.#http.call({
      method: 'POST',
      path: '/requests/batch',
      json: { requests: items },
      idempotent: { key: options.idempotencyKey },
      options,
    });
    return withRequestId((data as { requests: Acceptance[] }).requests, requestId);
  }

  /** One request with its completed attempts; missing, foreign and expired IDs are all `NotFoundError`. */
  async get(id: string, options?: CallOptions): Promise<WithRequestId<RequestDetail>> {
    return this.#data<RequestDetail>({ method: 'GET', path: `/requests/${encodeURIComponent(id)}`, options });
  }

  /** The completed attempts of one request, oldest first; empty until the first attempt completes. */
  async attempts(id: string, options?: CallOptions): Promise<WithRequestId<Attempt[]>> {
    return this.#data<Attempt[]>({ method: 'GET', path: `/requests/${encodeURIComponent(id)}/attempts`, options });
  }

  /** Stops a request that has not completed; `status` tells whether it was already cancelled. */
  async cancel(id: string, options?: CallOptions): Promise<WithRequestId<CancelResult>> {
    return this.#data<CancelResult>({ method: 'POST', path: `/requests/${encodeURIComponent(id)}/cancel`, options });
  }

  /** Creates a new request from a completed or cancelled one, with a fresh attempt budget. */
  async replay(id: string, options: CreateOptions = {}): Promise<WithRequestId<Acceptance>> {
    return this.#data<Acceptance>({
      method: 'POST',
      path: `/requests/${encodeURIComponent(id)}/replay`,
      idempotent: { key: options.idempotencyKey },
      options,
    });
  }

  /**
   * Lists the project's requests, newest first. `await` it for one page (`items`, `next_cursor` and the retention
   * facts); `for await` over it for every matching request, page after page with the same filters.
   */
  list(query: ListRequestsQuery = {}, options?: CallOptions): PagePromise<RequestSummary, WithRequestId<RequestList>> {
    return new PagePromise(
      (cursor) => this.#data<RequestList>({ method: 'GET', path: '/requests', query: { ...query, cursor }, options }),
      query.cursor,
    );
  }

  async #data<T extends object>(call: HttpCall): Promise<WithRequestId<T>> {
    const { data, requestId } = await this.#http.call(call);
    return withRequestId(data as T, requestId);
  }
}
