import type {
  Acceptance, BackfillRange, BackfillResult, CallOptions, CreateOptions, Deleted, ListSchedulesQuery, PreviewOptions,
  Schedule, ScheduleInput, ScheduleList, ScheduleSummary, ScheduleUpdate, Timing, WithRequestId,
} from '../types.js';
import type { HttpCall, HttpClient } from './http.js';
import { PagePromise } from './pagination.js';
import { withRequestId } from './results.js';

/** The recurring schedules of the key's project; each occurrence creates an ordinary request. */
export class Schedules {
  readonly #http: HttpClient;

  /** @internal Built by `Ferry`. */
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /** Creates an active schedule; the same idempotency key and definition answer the same schedule. */
  async create(input: ScheduleInput, options: CreateOptions = {}): Promise<WithRequestId<ScheduleSummary>> {
    return this.#data<ScheduleSummary>({ method: 'POST', path: '/schedules', json: input, idempotent: { key: options.idempotencyKey }, options });
  }

  /**
   * Lists the project's schedules, newest first. Without `limit` or `cursor` the one page holds every schedule;
   * with them, `await` gives one page and `for await` walks every page.
   */
  list(query: ListSchedulesQuery = {}, options?: CallOptions): PagePromise<ScheduleSummary, WithRequestId<ScheduleList>> {
    return new PagePromise(async (cursor) => {
      const { data, meta, requestId } = await this.#http.call({ method: 'GET', path: '/schedules', query: { ...query, cursor }, options });
      const nextCursor = (meta as { next_cursor?: string | null } | null)?.next_cursor ?? null;
      return withRequestId({ items: data as ScheduleSummary[], next_cursor: nextCursor }, requestId);
    }, query.cursor);
  }

  /** One schedule with its request definition (header values redacted). */
  async get(id: string, options?: CallOptions): Promise<WithRequestId<Schedule>> {
    return this.#data<Schedule>({ method: 'GET', path: path(id), options });
  }

  /** Changes the name, timing or request of a schedule; the next occurrence uses the new definition. */
  async update(id: string, changes: ScheduleUpdate, options?: CallOptions): Promise<WithRequestId<ScheduleSummary>> {
    return this.#data<ScheduleSummary>({ method: 'PATCH', path: path(id), json: changes, options });
  }

  /** Stops a schedule from firing; pausing a paused schedule changes nothing. */
  async pause(id: string, options?: CallOptions): Promise<WithRequestId<ScheduleSummary>> {
    return this.#data<ScheduleSummary>({ method: 'POST', path: `${path(id)}/pause`, options });
  }

  /** Lets a paused schedule fire again from its next occurrence after now. */
  async resume(id: string, options?: CallOptions): Promise<WithRequestId<ScheduleSummary>> {
    return this.#data<ScheduleSummary>({ method: 'POST', path: `${path(id)}/resume`, options });
  }

  /**
   * Creates one occurrence's request now, outside the timing, also while paused; the same idempotency key answers
   * the same request. A conflict (`SCHEDULE_ENDED`, `SCHEDULE_OVERLAP`) throws `ConflictError`.
   */
  async trigger(id: string, options: CreateOptions = {}): Promise<WithRequestId<Acceptance>> {
    return this.#data<Acceptance>({ method: 'POST', path: `${path(id)}/trigger`, idempotent: { key: options.idempotencyKey }, options });
  }

  /**
   * Creates, due now, a request for each of the timing's instants in `[from, to)` (at most 1,000, `to` not in the
   * future). Each instant is created once for the schedule however often it is backfilled; `occurrences` counts
   * those this call created. Triggers and backfills do not count toward `max_runs`.
   */
  async backfill(id: string, range: BackfillRange, options: CreateOptions = {}): Promise<WithRequestId<BackfillResult>> {
    return this.#data<BackfillResult>({ method: 'POST', path: `${path(id)}/backfill`, json: range, idempotent: { key: options.idempotencyKey }, options });
  }

  /** Removes a schedule and cancels its future occurrences; requests it already created stay. */
  async delete(id: string, options?: CallOptions): Promise<Deleted> {
    const { requestId } = await this.#http.call({ method: 'DELETE', path: path(id), options });
    return { requestId };
  }

  /** The next occurrences of a timing, strictly after `after` (now), by the rules that fire schedules; nothing is stored. */
  async preview(timing: Timing, options: PreviewOptions = {}): Promise<WithRequestId<string[]>> {
    const { after, count, ...callOptions } = options;
    const { data, requestId } = await this.#http.call({
      method: 'POST',
      path: '/schedules/preview',
      json: { timing, after, count },
      options: callOptions,
    });
    return withRequestId((data as { run_times: string[] }).run_times, requestId);
  }

  async #data<T extends object>(call: HttpCall): Promise<WithRequestId<T>> {
    const { data, requestId } = await this.#http.call(call);
    return withRequestId(data as T, requestId);
  }
}

const path = (id: string) => `/schedules/${encodeURIComponent(id)}`;
