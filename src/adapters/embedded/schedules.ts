import type { ScheduleRequest, StoredSchedule } from '../../domain/schedule/schedule.js';
import type { ShardScope } from '../../ports/requests.js';
import type { ScheduleListQuery, SchedulePatch, ScheduleStore } from '../../ports/schedules.js';
import type { EmbeddedDatabase } from './database.js';
import { SCHEDULE_SELECT_LIST, TIMER_SET_SQL, scheduleFromValues } from './schedule-rows.js';

const GET = `SELECT ${SCHEDULE_SELECT_LIST} FROM schedules WHERE id = ? AND project_id = ?`;
const LIST_FIRST = `SELECT ${SCHEDULE_SELECT_LIST} FROM schedules WHERE project_id = ? ORDER BY id DESC LIMIT ?`;
const LIST_AFTER = `SELECT ${SCHEDULE_SELECT_LIST} FROM schedules WHERE project_id = ? AND id < ? ORDER BY id DESC LIMIT ?`;
const DUE = `SELECT ${SCHEDULE_SELECT_LIST} FROM schedules WHERE ${TIMER_SET_SQL} AND next_run_at <= ?
  ORDER BY next_run_at, id LIMIT ?`;
// Answered from the first entry of `schedules_due` alone: the index covers next_run_at.
const NEXT_DUE = `SELECT MIN(next_run_at) FROM schedules WHERE ${TIMER_SET_SQL}`;

/**
 * Schedules in the embedded file. A schedule's timer is its indexed `next_run_at` (see the partial index
 * `schedules_due`), so every write moves the timer with the row and `due`/`nextDueAt` are one index range read.
 * Shard scopes are accepted and ignored: one process fires everything this file holds.
 */
export class EmbeddedScheduleStore implements ScheduleStore {
  constructor(private readonly db: EmbeddedDatabase) {}

  async insert(schedule: StoredSchedule): Promise<void> {
    const request = tightRequest(schedule.request);
    await this.db.write('insertSchedule', request === schedule.request ? schedule : { ...schedule, request });
  }

  async get(projectId: string, id: string): Promise<StoredSchedule | null> {
    const row = this.db.read(() => this.db.rawStatement(GET).get(id, projectId));
    return row === undefined ? null : scheduleFromValues(row);
  }

  async list(q: ScheduleListQuery): Promise<StoredSchedule[]> {
    // SQLite reads a negative LIMIT as no limit at all.
    if (q.limit <= 0) return [];
    const rows = this.db.read(() =>
      q.afterId === undefined
        ? this.db.rawStatement(LIST_FIRST).all(q.projectId, q.limit)
        : this.db.rawStatement(LIST_AFTER).all(q.projectId, q.afterId, q.limit),
    );
    return rows.map(scheduleFromValues);
  }

  update(projectId: string, id: string, expectedVersion: number, patch: SchedulePatch): Promise<StoredSchedule> {
    const request = patch.request === undefined ? undefined : tightRequest(patch.request);
    const sent = request === patch.request ? patch : { ...patch, request };
    return this.db.write('updateSchedule', { projectId, id, expectedVersion, patch: sent });
  }

  delete(projectId: string, id: string): Promise<boolean> {
    return this.db.write('deleteSchedule', { projectId, id });
  }

  async due(now: number, limit: number, _shards?: ShardScope): Promise<StoredSchedule[]> {
    if (limit <= 0) return [];
    const rows = this.db.read(() => this.db.rawStatement(DUE).all(now, limit));
    return rows.map(scheduleFromValues);
  }

  async nextDueAt(_shards?: ShardScope): Promise<number | null> {
    return this.db.read(() => this.db.statement(NEXT_DUE).pluck().get() as number | null);
  }
}

/** A clone copies a typed array's whole buffer: a body that is a view into a larger one goes as its own copy. */
function tightRequest(request: ScheduleRequest): ScheduleRequest {
  const body = request.body;
  if (body === null || body.byteLength === body.buffer.byteLength) return request;
  return { ...request, body: new Uint8Array(body) };
}
