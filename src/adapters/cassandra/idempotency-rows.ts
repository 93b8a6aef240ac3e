import type { types } from 'cassandra-driver';
import type { IdempotencyRecord } from '../../ports/idempotency.js';
import { millis } from './session.js';

/**
 * The record a row holds at `now`, or null when there is none: no row, an expired record, or a row whose claim
 * columns the TTL already removed while a later-written outcome lives on.
 */
export function liveRecord(projectId: string, key: string, row: types.Row | null, now: number): IdempotencyRecord | null {
  if (row === null) return null;
  const fingerprint = (row.get('fingerprint') as string | null | undefined) ?? null;
  const claimedAt = millis(row.get('claimed_at'));
  const expiresAt = millis(row.get('expires_at'));
  if (fingerprint === null || claimedAt === null || expiresAt === null || expiresAt <= now) return null;
  const outcome = (row.get('outcome') as string | null | undefined) ?? null;
  return { projectId, key, fingerprint, outcome, claimedAt, expiresAt, plan: (row.get('plan') as string | null | undefined) ?? null };
}
