import type { HeaderEntry } from '../../domain/request.js';
import type { PauseReason, RunOutcome, SchedulePatch, ScheduleStatus, StoredSchedule } from '../../domain/schedule/schedule.js';
import { timingWithDefaults, type Timing, type TimingRecord } from '../../domain/schedule/timing.js';
import { callbacksColumn, callbacksFromColumn, flowKeysColumn, flowKeysFromColumn } from '../request-json-columns.js';
import { metadataColumn, metadataFromColumn, policyColumn, policyFromColumn, runsColumn, runsFromColumn } from '../schedule-json-columns.js';
import { DEFAULT_QUEUE, DEFAULT_TIMEOUT_SECONDS } from '../../domain/validation/index.js';
import { plainBytes } from './bytes.js';

// Rows cross the driver as positional values, as requests do (see request-rows.ts).

/**
 * The schedules whose timer is set, spelled as in the partial index `schedules_due` so that queries can use it:
 * SQLite picks a partial index only when the query's WHERE implies the index's.
 */
export const TIMER_SET_SQL = "status = 'active' AND next_run_at IS NOT NULL";

/** Columns read back into a schedule, in the order of `ScheduleValues`. */
const READ_COLUMNS = [
  'id', 'project_id', 'name', 'timing', 'status', 'url', 'headers', 'body', 'retry', 'next_run_at', 'last_run_at',
  'last_run_outcome', 'created_at', 'updated_at', 'version', 'previous_run_at', 'previous_run_outcome', 'flow_keys',
  'callbacks', 'queue', 'timeout_seconds', 'metadata', 'policy', 'pause_reason', 'runs',
] as const;

/** A `schedules` row read in raw mode with `SCHEDULE_SELECT_LIST`. */
type ScheduleValues = [
  id: string, project_id: string, name: string, timing: string, status: string, url: string, headers: string,
  body: Uint8Array | null, retry: number, next_run_at: number | null, last_run_at: number | null,
  last_run_outcome: string | null, created_at: number, updated_at: number, version: number,
  previous_run_at: number | null, previous_run_outcome: string | null, flow_keys: string | null,
  callbacks: string | null, queue: string | null, timeout_seconds: number | null, metadata: string | null,
  policy: string | null, pause_reason: string | null, runs: string | null,
];

type BindValue = string | number | Uint8Array | null;

/** For SELECT and RETURNING of statements whose rows go through `scheduleFromValues`, prepared in raw mode. */
export const SCHEDULE_SELECT_LIST = READ_COLUMNS.join(', ');

export const INSERT_SCHEDULE = `INSERT INTO schedules (${SCHEDULE_SELECT_LIST})
  VALUES (${READ_COLUMNS.map(() => '?').join(', ')})`;

/** The values `INSERT_SCHEDULE` binds for `s`. */
export function scheduleInsertValues(s: StoredSchedule): BindValue[] {
  const r = s.request;
  return [
    s.id, s.projectId, s.name, timingJson(s.timing), s.status, r.url, JSON.stringify(r.headers), r.body, r.retry,
    s.nextRunAt, s.lastRunAt, s.lastRunOutcome, s.createdAt, s.updatedAt, s.version, s.previousRunAt, s.previousRunOutcome,
    flowKeysColumn(r.flowKeys ?? []), callbacksColumn(r.callbacks), r.queue, r.timeoutSeconds, metadataColumn(r.metadata),
    policyColumn(s.policy), s.pauseReason, runsColumn(s.runs),
  ];
}

export function scheduleFromValues(v: unknown): StoredSchedule {
  const row = v as ScheduleValues;
  return {
    id: row[0],
    projectId: row[1],
    name: row[2],
    timing: timingWithDefaults(JSON.parse(row[3]) as TimingRecord),
    status: row[4] as ScheduleStatus,
    pauseReason: row[23] as PauseReason | null,
    policy: policyFromColumn(row[22]),
    request: {
      url: row[5],
      headers: JSON.parse(row[6]) as HeaderEntry[],
      body: plainBytes(row[7]),
      retry: row[8],
      flowKeys: flowKeysFromColumn(row[17]),
      callbacks: callbacksFromColumn(row[18]),
      queue: row[19] ?? DEFAULT_QUEUE,
      timeoutSeconds: row[20] ?? DEFAULT_TIMEOUT_SECONDS,
      metadata: metadataFromColumn(row[21]),
    },
    runs: runsFromColumn(row[24]),
    nextRunAt: row[9],
    lastRunAt: row[10],
    lastRunOutcome: row[11] as RunOutcome | null,
    createdAt: row[12],
    updatedAt: row[13],
    version: row[14],
    previousRunAt: row[15],
    previousRunOutcome: row[16] as RunOutcome | null,
  };
}

/**
 * The `SET` assignments (each followed by a comma) and their values for the fields `patch` gives. Fields are taken
 * in a fixed order, so each patch shape is one cached statement.
 */
export function schedulePatchAssignments(patch: SchedulePatch): { sets: string; values: BindValue[] } {
  let sets = '';
  const values: BindValue[] = [];
  const set = (column: string, value: BindValue) => {
    sets += `${column} = ?, `;
    values.push(value);
  };
  if (patch.name !== undefined) set('name', patch.name);
  if (patch.timing !== undefined) set('timing', timingJson(patch.timing));
  if (patch.status !== undefined) set('status', patch.status);
  if (patch.request !== undefined) {
    // The request is one field of the schedule: it is replaced whole, never merged.
    set('url', patch.request.url);
    set('headers', JSON.stringify(patch.request.headers));
    set('body', patch.request.body);
    set('retry', patch.request.retry);
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
  return { sets, values };
}

/**
 * Only the fields of the timing's kind are written: whatever else the object carries is not part of a schedule.
 * Timings written before `dst`, `startsAt` (cron) and `endsAt` read back with their defaults (`timingWithDefaults`).
 */
function timingJson(t: Timing): string {
  return t.type === 'cron'
    ? JSON.stringify({ type: t.type, expression: t.expression, timezone: t.timezone, dst: { gap: t.dst.gap, overlap: t.dst.overlap }, startsAt: t.startsAt, endsAt: t.endsAt })
    : JSON.stringify({ type: t.type, everySeconds: t.everySeconds, startsAt: t.startsAt, firstRunAt: t.firstRunAt, endsAt: t.endsAt });
}
