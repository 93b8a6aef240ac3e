import { types } from 'cassandra-driver';
import type { HeaderEntry } from '../../../domain/request.js';
import type { PauseReason, RunOutcome, SchedulePatch, ScheduleStatus, StoredSchedule } from '../../../domain/schedule/schedule.js';
import { timingWithDefaults, type Timing, type TimingRecord } from '../../../domain/schedule/timing.js';
import { callbacksColumn, callbacksFromColumn, flowKeysColumn, flowKeysFromColumn } from '../../request-json-columns.js';
import { metadataColumn, metadataFromColumn, policyColumn, policyFromColumn, runsColumn, runsFromColumn } from '../../schedule-json-columns.js';
import { DEFAULT_QUEUE, DEFAULT_TIMEOUT_SECONDS } from '../../../domain/validation/index.js';
import { blob, millis, type CassandraSession, type Statement } from '../session.js';

/** The columns read back into a schedule, in the order `insert` binds them. */
const COLUMNS = [
  'id', 'project_id', 'name', 'timing', 'status', 'url', 'headers', 'body', 'retry', 'next_run_at', 'last_run_at',
  'last_run_outcome', 'created_at', 'updated_at', 'version', 'previous_run_at', 'previous_run_outcome', 'flow_keys',
  'callbacks', 'queue', 'timeout_seconds', 'metadata', 'policy', 'pause_reason', 'runs',
] as const;

/** A schedule as read, with the write that made its version (see `change_id` in the schema). */
export interface ScheduleRow {
  readonly schedule: StoredSchedule;
  readonly changeId: string | null;
}

/** Statements and row mapping of `schedules` and `schedules_by_project`. */
export class ScheduleRows {
  private readonly select: string;
  private readonly insertRow: string;
  private readonly deleteRow: string;
  private readonly insertEntry: string;
  private readonly deleteEntry: string;
  private readonly listFirst: string;
  private readonly listAfter: string;

  constructor(private readonly session: CassandraSession) {
    const schedules = session.table('schedules');
    const byProject = session.table('schedules_by_project');
    this.select = `SELECT ${COLUMNS.join(', ')}, change_id FROM ${schedules} WHERE id = ?`;
    this.insertRow = `INSERT INTO ${schedules} (${COLUMNS.join(', ')}, change_id)
      VALUES (${COLUMNS.map(() => '?').join(', ')}, ?) IF NOT EXISTS`;
    // The project in the condition: a schedule of another project, or none, is left alone and reported missing.
    this.deleteRow = `DELETE FROM ${schedules} WHERE id = ? IF project_id = ?`;
    this.insertEntry = `INSERT INTO ${byProject} (project_id, id) VALUES (?, ?)`;
    this.deleteEntry = `DELETE FROM ${byProject} WHERE project_id = ? AND id = ?`;
    this.listFirst = `SELECT id FROM ${byProject} WHERE project_id = ? LIMIT ?`;
    this.listAfter = `SELECT id FROM ${byProject} WHERE project_id = ? AND id < ? LIMIT ?`;
  }

  /** The schedule with this ID in any project, or null; `consistency` SERIAL settles a write under way. */
  async read(id: string, during: string, consistency?: number): Promise<ScheduleRow | null> {
    const rs =
      consistency === undefined
        ? await this.session.read(this.select, [id], during)
        : await this.session.execute(this.select, [id], during, { idempotent: true, consistency });
    const row = rs.first();
    return row === null || row['project_id'] === null ? null : { schedule: scheduleFromRow(row), changeId: row['change_id'] as string | null };
  }

  /** IDs of a project's list entries, newest first, before `beforeId` when given. */
  async listIds(projectId: string, beforeId: string | undefined, limit: number, during: string): Promise<string[]> {
    const rs =
      beforeId === undefined
        ? await this.session.read(this.listFirst, [projectId, limit], during)
        : await this.session.read(this.listAfter, [projectId, beforeId, limit], during);
    return rs.rows.map((row) => row['id'] as string);
  }

  /** A new schedule's row, written only if no row has its ID. Absent values stay unset: no tombstones. */
  insert(s: StoredSchedule, changeId: string): Statement {
    const r = s.request;
    const values = [
      s.id, s.projectId, s.name, timingText(s.timing), s.status, r.url, headersText(r.headers), bodyValue(r.body), r.retry,
      s.nextRunAt, s.lastRunAt, s.lastRunOutcome, s.createdAt, s.updatedAt, s.version, s.previousRunAt, s.previousRunOutcome,
      flowKeysColumn(r.flowKeys ?? []), callbacksColumn(r.callbacks), r.queue, r.timeoutSeconds, metadataColumn(r.metadata),
      policyColumn(s.policy), s.pauseReason, runsColumn(s.runs),
    ];
    return { query: this.insertRow, params: [...values.map((v) => v ?? types.unset), changeId] };
  }

  /**
   * The conditional change of `patch` (only the keys it gives, in a fixed order so each patch shape is one prepared
   * statement), applied only while the stored version is `expectedVersion`.
   */
  update(id: string, expectedVersion: number, patch: SchedulePatch, changeId: string): Statement {
    const sets: string[] = [];
    const values: unknown[] = [];
    const set = (column: string, value: unknown) => {
      sets.push(`${column} = ?`);
      values.push(value);
    };
    if (patch.name !== undefined) set('name', patch.name);
    if (patch.timing !== undefined) set('timing', timingText(patch.timing));
    if (patch.status !== undefined) set('status', patch.status);
    if (patch.request !== undefined) {
      set('url', patch.request.url);
      set('headers', headersText(patch.request.headers));
      set('body', bodyValue(patch.request.body));
      set('retry', patch.request.retry);
      // Replaced whole with the request: no keys clears the cell (schedule changes are rare, so is this tombstone).
      set('flow_keys', flowKeysColumn(patch.request.flowKeys ?? []));
      set('callbacks', callbacksColumn(patch.request.callbacks));
      set('queue', patch.request.queue);
      set('timeout_seconds', patch.request.timeoutSeconds);
      set('metadata', metadataColumn(patch.request.metadata));
    }
    if (patch.policy !== undefined) set('policy', policyColumn(patch.policy));
    if (patch.pauseReason !== undefined) set('pause_reason', patch.pauseReason);
    if (patch.runs !== undefined) set('runs', runsColumn(patch.runs));
    if (patch.nextRunAt !== undefined) set('next_run_at', patch.nextRunAt);
    if (patch.lastRunAt !== undefined) set('last_run_at', patch.lastRunAt);
    if (patch.lastRunOutcome !== undefined) set('last_run_outcome', patch.lastRunOutcome);
    if (patch.previousRunAt !== undefined) set('previous_run_at', patch.previousRunAt);
    if (patch.previousRunOutcome !== undefined) set('previous_run_outcome', patch.previousRunOutcome);
    if (patch.updatedAt !== undefined) set('updated_at', patch.updatedAt);
    set('version', expectedVersion + 1);
    set('change_id', changeId);
    return {
      query: `UPDATE ${this.session.table('schedules')} SET ${sets.join(', ')} WHERE id = ? IF version = ?`,
      params: [...values, id, expectedVersion],
    };
  }

  delete(projectId: string, id: string): Statement {
    return { query: this.deleteRow, params: [id, projectId] };
  }

  listEntry(s: Pick<StoredSchedule, 'projectId' | 'id'>): Statement {
    return { query: this.insertEntry, params: [s.projectId, s.id] };
  }

  removeListEntry(projectId: string, id: string): Statement {
    return { query: this.deleteEntry, params: [projectId, id] };
  }
}

/** The schedule after `patch`: keys whose value is `undefined` change nothing. */
export function patched(current: StoredSchedule, patch: SchedulePatch): StoredSchedule {
  const given = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as SchedulePatch;
  return { ...current, ...given, version: current.version + 1 };
}

function scheduleFromRow(row: types.Row): StoredSchedule {
  const body = row['body'] as Buffer | null;
  return {
    id: row['id'] as string,
    projectId: row['project_id'] as string,
    name: row['name'] as string,
    timing: timingFromText(row['timing'] as string),
    status: row['status'] as ScheduleStatus,
    pauseReason: (row['pause_reason'] as PauseReason | null) ?? null,
    policy: policyFromColumn(row['policy'] as string | null),
    runs: runsFromColumn(row['runs'] as string | null),
    request: {
      url: row['url'] as string,
      headers: JSON.parse(row['headers'] as string) as HeaderEntry[],
      // A copy: a view would keep the driver's whole response frame alive and is a Buffer, not a plain array.
      body: body === null ? null : new Uint8Array(body),
      retry: row['retry'] as number,
      flowKeys: flowKeysFromColumn(row['flow_keys'] as string | null),
      callbacks: callbacksFromColumn(row['callbacks'] as string | null),
      queue: (row['queue'] as string | null) ?? DEFAULT_QUEUE,
      timeoutSeconds: (row['timeout_seconds'] as number | null) ?? DEFAULT_TIMEOUT_SECONDS,
      metadata: metadataFromColumn(row['metadata'] as string | null),
    },
    nextRunAt: millis(row['next_run_at']),
    lastRunAt: millis(row['last_run_at']),
    lastRunOutcome: row['last_run_outcome'] as RunOutcome | null,
    createdAt: millis(row['created_at'])!,
    updatedAt: millis(row['updated_at'])!,
    version: row['version'] as number,
    previousRunAt: millis(row['previous_run_at']),
    previousRunOutcome: (row['previous_run_outcome'] as RunOutcome | null) ?? null,
  };
}

/** Pairs keep the caller's order, spelling and repeated names exactly. */
function headersText(headers: readonly HeaderEntry[]): string {
  return JSON.stringify(headers);
}

/** A view of the same bytes, as the driver takes a blob; an empty body stays empty, distinct from none. */
function bodyValue(body: Uint8Array | null): Buffer | null {
  return body === null ? null : blob(body);
}

/**
 * Only the fields of the timing's own type are stored, under names fixed here rather than by whoever built it.
 * Timings written before `dst`, `startsAt` (cron) and `endsAt` read back with their defaults (`timingWithDefaults`).
 */
function timingText(t: Timing): string {
  return JSON.stringify(
    t.type === 'cron'
      ? { type: 'cron', expression: t.expression, timezone: t.timezone, dst: { gap: t.dst.gap, overlap: t.dst.overlap }, startsAt: t.startsAt, endsAt: t.endsAt }
      : { type: 'interval', everySeconds: t.everySeconds, startsAt: t.startsAt, firstRunAt: t.firstRunAt, endsAt: t.endsAt },
  );
}

function timingFromText(text: string): Timing {
  return timingWithDefaults(JSON.parse(text) as TimingRecord);
}
