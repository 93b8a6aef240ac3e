import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { Api, type ApiResponse } from './api-client.js';
import { createProject } from './ferry-process.js';
import type { FerryFixture } from './fixture.js';

/** The timing object as the API returns it: every member present, the ones that do not apply `null`. */
export interface Timing {
  type: string;
  expression: string | null;
  timezone: string | null;
  every_seconds: number | null;
  starts_at: string | null;
  /** Cron timing only; answered for every cron timing. */
  dst: { gap: string; overlap: string } | null;
  ends_at: string | null;
}

/** One run of a preview: when it fires, the occurrence it belongs to, and what DST did to it. */
export interface PreviewRun {
  at: string;
  instant: string;
  dst: 'none' | 'gap_shifted' | 'overlap_first' | 'overlap_second';
}

export interface ScheduleSummary {
  id: string;
  name: string;
  timing: Timing;
  status: 'active' | 'paused' | 'ended';
  url: string;
  retry: number;
  next_run_at: string | null;
  last_run_at: string | null;
  last_run_outcome: 'enqueued' | 'skipped_usage_limit' | 'skipped_overlap' | null;
  created_at: string;
  updated_at: string;
  policy: { overlap: string; max_runs: number | null; jitter_seconds: number; pause_after_failures: number | null };
  pause_reason: 'user' | 'failures' | null;
}

export interface ScheduleDetail extends ScheduleSummary {
  request: {
    url: string;
    body: unknown;
    headers: Record<string, string>;
    retry: number;
    flow_keys: string[];
    callbacks: { on_success: string | null; on_failure: string | null } | null;
    queue: string;
    timeout: string;
    metadata: Record<string, string>;
  };
  run_counts: Record<'enqueued' | 'skipped_usage_limit' | 'skipped_overlap' | 'missed' | 'triggered' | 'backfilled', number>;
  recent_runs: Array<{ run_at: string; request_id: string | null; outcome: string; request_status: string | null }>;
}

/** The members of a schedule summary, and nothing else. */
export const SUMMARY_KEYS = [
  'id', 'name', 'timing', 'status', 'url', 'retry', 'next_run_at', 'last_run_at', 'last_run_outcome', 'created_at', 'updated_at',
  'policy', 'pause_reason',
].sort();

/** RFC 3339 in UTC, as every timestamp of the API. */
export const UTC_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** A cron timing as a caller gives it. */
export function cron(expression: string, timezone = 'UTC'): Record<string, unknown> {
  return { type: 'cron', expression, timezone };
}

/** An interval timing as a caller gives it; `starts_at` only when given. */
export function interval(everySeconds: number, startsAt?: string): Record<string, unknown> {
  return startsAt === undefined ? { type: 'interval', every_seconds: everySeconds } : { type: 'interval', every_seconds: everySeconds, starts_at: startsAt };
}

/**
 * The timing as the API echoes it: what was given, with the members that do not apply as `null`, and a cron
 * timing's DST policy (the default when none was given).
 */
export function echoed(timing: Record<string, unknown>): Timing {
  const dst = timing.type === 'cron' ? { gap: 'shift', overlap: 'first' } : null;
  return { type: '', expression: null, timezone: null, every_seconds: null, starts_at: null, dst, ends_at: null, ...timing } as Timing;
}

/** An RFC 3339 UTC timestamp for an instant, in the form the API writes. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** The instant of an RFC 3339 timestamp, failing the test for anything else. */
export function at(timestamp: string | null | undefined): number {
  expect(timestamp).toMatch(UTC_TIMESTAMP);
  return Date.parse(timestamp!);
}

/** A whole second at least `ms` from now: a `starts_at` that is surely still in the future when the call lands. */
export function secondsAhead(ms: number): string {
  return iso(Math.ceil((Date.now() + ms) / 1000) * 1000);
}

export function newKey(): string {
  return `sch-key-${randomUUID()}`;
}

/** The schedule API of one project, over real HTTP. */
export class Schedules {
  constructor(readonly api: Api) {}

  create(definition: unknown, key: string | null = newKey(), extraHeaders: Record<string, string> = {}): Promise<ApiResponse<ScheduleSummary>> {
    const headers = key === null ? { ...extraHeaders } : { 'idempotency-key': key, ...extraHeaders };
    return this.api.call<ScheduleSummary>('POST', '/schedules', { json: definition, headers });
  }

  /** Creates and insists on 201, for tests about what happens next. */
  async created(definition: unknown): Promise<ScheduleSummary> {
    const res = await this.create(definition);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data;
  }

  get(id: string): Promise<ApiResponse<ScheduleDetail>> {
    return this.api.call<ScheduleDetail>('GET', `/schedules/${id}`);
  }

  async detail(id: string): Promise<ScheduleDetail> {
    const res = await this.get(id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data;
  }

  list(query = ''): Promise<ApiResponse<ScheduleSummary[]>> {
    return this.api.call<ScheduleSummary[]>('GET', `/schedules${query ? `?${query}` : ''}`);
  }

  async ids(): Promise<string[]> {
    const res = await this.list();
    expect(res.status).toBe(200);
    return res.body.data.map((s) => s.id);
  }

  patch(id: string, json: unknown): Promise<ApiResponse<ScheduleSummary>> {
    return this.api.call<ScheduleSummary>('PATCH', `/schedules/${id}`, { json });
  }

  pause(id: string): Promise<ApiResponse<ScheduleSummary>> {
    return this.api.call<ScheduleSummary>('POST', `/schedules/${id}/pause`);
  }

  resume(id: string): Promise<ApiResponse<ScheduleSummary>> {
    return this.api.call<ScheduleSummary>('POST', `/schedules/${id}/resume`);
  }

  remove(id: string): Promise<ApiResponse<null>> {
    return this.api.call<null>('DELETE', `/schedules/${id}`);
  }

  preview(json: unknown): Promise<ApiResponse<{ run_times: string[]; runs: PreviewRun[] }>> {
    return this.api.call<{ run_times: string[]; runs: PreviewRun[] }>('POST', '/schedules/preview', { json });
  }

  /** The instants of a successful preview. */
  async runTimes(timing: unknown, after?: string, count?: number): Promise<number[]> {
    const res = await this.preview({ timing, ...(after === undefined ? {} : { after }), ...(count === undefined ? {} : { count }) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.run_times.map(at);
  }
}

/** A definition with only what create requires, for tests about something else. */
export function minimal(url: string, timing: Record<string, unknown> = cron('0 3 * * *')): Record<string, unknown> {
  return { name: 'nightly', timing, request: { url } };
}

/** Asserts a 4xx envelope with this status, code and (when given) field. */
export function expectError(res: ApiResponse<unknown>, status: number, code: string, field?: string | null): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.success).toBe(false);
  expect(res.body.error?.code, JSON.stringify(res.body.error)).toBe(code);
  if (field !== undefined) expect(res.body.error?.field, JSON.stringify(res.body.error)).toBe(field);
}

/** Another project on the fixture's server (with its own allowances), and its schedule API. */
export async function scheduleProject(
  f: FerryFixture,
  opts: { monthlyAllowance?: number; scheduleAllowance?: number } = {},
): Promise<{ api: Api; schedules: Schedules; projectId: string }> {
  const p = await createProject(f.ferry.dataDir, opts);
  const api = new Api(f.ferry.baseUrl, p.apiKey);
  return { api, schedules: new Schedules(api), projectId: p.projectId };
}
