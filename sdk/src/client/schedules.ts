import type {
  Acceptance, BackfillRange, BackfillResult, CallOptions, CreateOptions, Deleted, ListSchedulesQuery, PreviewOptions, PreviewRun,
  PreviewTarget, Schedule, ScheduleInput, ScheduleList, ScheduleSummary, ScheduleUpdate, WithRequestId,
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

  /**
   * When the next occurrences after `after` (now) fire, by the rules that fire schedules; nothing is stored. Give a
   * timing, or `{ schedule_id }` for a saved schedule, whose times then include its jitter.
   */
  async preview(target: PreviewTarget, options: PreviewOptions = {}): Promise<WithRequestId<string[]>> {
    const { data, requestId } = await this.#preview(target, options);
    return withRequestId(data.run_times, requestId);
  }

  /**
   * The same occurrences as `preview`, each with when it fires (`at`), the occurrence of the timing it belongs to
   * (`instant`) and what daylight saving time did to it (`dst`: `none`, `gap_shifted`, `overlap_first`,
   * `overlap_second`).
   */
  async previewRuns(target: PreviewTarget, options: PreviewOptions = {}): Promise<WithRequestId<PreviewRun[]>> {
    const { data, requestId } = await this.#preview(target, options);
    return withRequestId(data.runs, requestId);
  }

  async #preview(target: PreviewTarget, options: PreviewOptions): Promise<{ data: { run_times: string[]; runs: PreviewRun[] }; requestId: string }> {
    const { after, count, ...callOptions } = options;
    const what = 'schedule_id' in target && typeof target.schedule_id === 'string' ? { schedule_id: target.schedule_id } : { timing: target };
    const { data, requestId } = await this.#http.call({ method: 'POST', path: '/schedules/preview', json: { ...what, after, count }, options: callOptions });
    return { data: data as { run_times: string[]; runs: PreviewRun[] }, requestId };
  }

  async #data<T extends object>(call: HttpCall): Promise<WithRequestId<T>> {
    const { data, requestId } = await this.#http.call(call);
    return withRequestId(data as T, requestId);
  }
}

const path = (id: string) => `/schedules/${encodeURIComponent(id)}`;
