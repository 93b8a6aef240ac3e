import type { UsageReport } from '../app/project-usage.js';
import type { ApiKeyRecord, Project } from '../domain/project.js';

// What the administration commands print, in the JSON API's spelling: snake_case fields, RFC 3339 UTC times.

const time = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function projectJson(p: Project): Record<string, unknown> {
  return {
    project_id: p.id,
    name: p.name,
    monthly_allowance: p.monthlyAllowance,
    schedule_allowance: p.scheduleAllowance,
    retention_days: p.retentionDays,
    capture_response_bodies: p.captureResponseBodies,
    created_at: time(p.createdAt),
  };
}

/** A key as the operator may see it: never its secret or its hash. */
export function keyJson(k: ApiKeyRecord): Record<string, unknown> {
  return { key_id: k.keyId, created_at: time(k.createdAt), last_used_at: time(k.lastUsedAt), revoked_at: time(k.revokedAt) };
}

export function usageJson(u: UsageReport): Record<string, unknown> {
  return {
    period_start: time(u.periodStart),
    period_end: time(u.periodEnd),
    used: u.used,
    allowance: u.allowance,
    remaining: u.remaining,
    schedules: u.schedules,
    schedule_allowance: u.scheduleAllowance,
  };
}
