import type { RequestStatus, StoredRequest } from '../request.js';

/** Statuses a request ends in: nothing changes it any more; only these are replayed, and retention hides them. */
export const TERMINAL_STATUSES: ReadonlySet<RequestStatus> = new Set(['succeeded', 'failed', 'cancelled']);

/**
 * Statuses of a request that has not ended. Each has a due time: of its first attempt, of a retry, or of the end of
 * a lease; a claim takes it then, and a cancel may be asked of it. In the order the embedded index `requests_due`
 * (migration 1) spells them, so that statements written from this list match the index's condition.
 */
export const ACTIVE_STATUSES: readonly RequestStatus[] = ['queued', 'scheduled', 'delivering'];

/** Waiting for an attempt: its first one (`scheduled` when it was delayed) or a retry (`queued`). */
export const WAITING_STATUSES: readonly RequestStatus[] = ['queued', 'scheduled'];

/** Claimed by a deliverer, its attempt in flight, until its lease (`dueAt`) runs out. */
export const LEASED_STATUS = 'delivering' satisfies RequestStatus;

export function isTerminal(status: RequestStatus): boolean {
  return TERMINAL_STATUSES.has(status);
}

export function isActive(status: RequestStatus): boolean {
  return !TERMINAL_STATUSES.has(status);
}

const WAITING: ReadonlySet<RequestStatus> = new Set(WAITING_STATUSES);

export function isWaiting(status: RequestStatus): boolean {
  return WAITING.has(status);
}

export function isLeased(status: RequestStatus): boolean {
  return status === LEASED_STATUS;
}

/** Only requests that can no longer change may be replayed. */
export function canReplay(r: Pick<StoredRequest, 'status'>): boolean {
  return isTerminal(r.status);
}

/** A terminal request created before the project's retention cutoff is no longer visible. */
export function isHiddenByRetention(r: Pick<StoredRequest, 'status' | 'createdAt'>, cutoff: number): boolean {
  return isTerminal(r.status) && r.createdAt < cutoff;
}

export function retentionCutoff(now: number, retentionDays: number): number {
  return now - retentionDays * 86_400_000;
}
