import type { Clock } from '../domain/clock.js';
import { decodeCursor, encodeCursor } from '../domain/cursor.js';
import { FerryError, quoteInput } from '../domain/errors.js';
import { fingerprint } from '../domain/fingerprint.js';
import { isScheduleId } from '../domain/ids.js';
import type { Project } from '../domain/project.js';
import { jitterDelayMs } from '../domain/schedule/jitter.js';
import { runDetails, type RunDst } from '../domain/schedule/next-run.js';
import type { StoredSchedule } from '../domain/schedule/schedule.js';
import { validatePreview, validateScheduleListLimit, type PreviewInput } from '../domain/validation/index.js';
import type { ScheduleStore } from '../ports/schedules.js';
import type { RequestStore } from '../ports/requests.js';
import type { RequestStatus } from '../domain/request.js';
import { existsAt, scheduleAsOf } from '../domain/schedule/enqueued-ahead.js';

/** One previewed occurrence: when it fires (`at`), the instant of the timing it belongs to, and its DST label. */
export interface PreviewRun {
  readonly at: number;
  readonly instant: number;
  readonly dst: RunDst;
}

export interface SchedulePage {
  readonly items: StoredSchedule[];
  /** Set only when the call asked for a page; `next` null on the last one. */
  readonly page: { readonly next: string | null } | null;
}

/** Schedules read per storage call when the caller asked for all of them. */
const UNPAGED_READ = 1_000;

/** Schedule list cursors are bound to this, so a request list cursor is refused here and the other way round. */
const SCHEDULE_LIST = fingerprint('schedule-list', {});

/**
 * The read side of the schedule API, scoped to the caller's project, and the preview of a timing. Schedules read as
 * they are now (`scheduleAsOf`): an occurrence fired ahead of its instant is not their last run before then.
 */
export class ScheduleQueries {
  constructor(
    private readonly schedules: ScheduleStore,
    private readonly clock: Clock,
    private readonly cursorSecret: Uint8Array,
    /** Where the detail reads the statuses of its recent runs' requests. */
    private readonly requests: RequestStore | null = null,
  ) {}

  /** Every schedule, newest first; one page of them when `limit` or `cursor` is given. */
  async list(project: Project, input: { limit?: number; cursor?: string }): Promise<SchedulePage> {
    const paged = input.limit !== undefined || input.cursor !== undefined;
    const now = this.clock.now();
    if (!paged) return { items: (await this.all(project.id)).map((s) => scheduleAsOf(s, now)), page: null };
    const limit = validateScheduleListLimit(input.limit);
    const after = input.cursor === undefined ? undefined : decodeCursor(input.cursor, SCHEDULE_LIST, this.cursorSecret);
    const rows = await this.schedules.list({ projectId: project.id, afterId: after?.id, limit: limit + 1 });
    const items = rows.slice(0, limit);
    const last = items.at(-1);
    const next = rows.length > limit && last !== undefined ? encodeCursor({ createdAt: last.createdAt, id: last.id }, SCHEDULE_LIST, this.cursorSecret) : null;
    return { items: items.map((s) => scheduleAsOf(s, now)), page: { next } };
  }

  /** Every schedule of the project, read a bounded page at a time (the schedule allowance bounds the total). */
  private async all(projectId: string): Promise<StoredSchedule[]> {
    const out: StoredSchedule[] = [];
    for (;;) {
      const page = await this.schedules.list({ projectId, afterId: out.at(-1)?.id, limit: UNPAGED_READ });
      out.push(...page);
      if (page.length < UNPAGED_READ) return out;
    }
  }

  async get(project: Project, scheduleId: string): Promise<StoredSchedule> {
    return scheduleAsOf(await visibleSchedule(this.schedules, project, scheduleId), this.clock.now());
  }

  /** The schedule and the status of each of its recent runs' requests that is still kept (at most ten reads). */
  async detail(project: Project, scheduleId: string): Promise<{ schedule: StoredSchedule; statuses: Map<string, RequestStatus> }> {
    const now = this.clock.now();
    const schedule = await this.get(project, scheduleId);
    const statuses = new Map<string, RequestStatus>();
    if (this.requests === null) return { schedule, statuses };
    const ids = schedule.runs.recent.flatMap((r) => (r.requestId === null ? [] : [r.requestId]));
    const found = await Promise.all(ids.map((id) => this.requests!.get(project.id, id)));
    for (const r of found) if (r !== null && existsAt(r, now)) statuses.set(r.id, r.status);
    return { schedule, statuses };
  }

  /**
   * The next occurrences of a timing, or of a saved schedule of the project with its jitter applied, by exactly the
   * rules that fire schedules; nothing is stored.
   */
  async preview(project: Project, input: PreviewInput): Promise<PreviewRun[]> {
    const valid = validatePreview(input, this.clock.now());
    if (valid.timing !== null) return runDetails(valid.timing, valid.after, valid.count).map((r) => ({ at: r.instant, ...r }));
    const schedule = await visibleSchedule(this.schedules, project, valid.scheduleId);
    const jitterSeconds = schedule.policy.jitterSeconds;
    // One more than asked: each occurrence's jitter stays short of the one after it.
    const runs = runDetails(schedule.timing, valid.after, valid.count + 1);
    return runs.slice(0, valid.count).map((r, i) => ({
      at: r.instant + jitterDelayMs(schedule.id, r.instant, jitterSeconds, runs[i + 1]?.instant ?? null),
      instant: r.instant,
      dst: r.dst,
    }));
  }
}

/** The schedule when it exists in the project; a malformed ID and another project's schedule are the same 404. */
export async function visibleSchedule(schedules: ScheduleStore, project: Project, scheduleId: string): Promise<StoredSchedule> {
  const found = isScheduleId(scheduleId) ? await schedules.get(project.id, scheduleId) : null;
  if (found === null) throw new FerryError('NOT_FOUND', `No schedule ${quoteInput(scheduleId)} in this project.`);
  return found;
}
