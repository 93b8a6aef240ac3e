import { isTerminal, type RequestPatch, type StoredRequest } from './request.js';

/** What a cancel call does to a request in a given state, following the API's state table. */
export type CancelDecision =
  /** Nothing is in flight: the request becomes `cancelled` at once. */
  | { readonly kind: 'cancel_now'; readonly patch: RequestPatch }
  /** An attempt is in flight: the cancel is recorded and the attempt's end settles the request. */
  | { readonly kind: 'cancel_after_attempt'; readonly patch: RequestPatch | null }
  | { readonly kind: 'already_cancelled' }
  | { readonly kind: 'completed' };

export function decideCancel(r: StoredRequest, now: number): CancelDecision {
  switch (r.status) {
    case 'cancelled':
      return { kind: 'already_cancelled' };
    case 'succeeded':
    case 'failed':
      return { kind: 'completed' };
    case 'scheduled':
    case 'queued':
      return { kind: 'cancel_now', patch: { status: 'cancelled', cancelledAt: now, dueAt: null, updatedAt: now } };
    case 'delivering':
      return {
        kind: 'cancel_after_attempt',
        patch: r.cancelRequestedAt === null ? { cancelRequestedAt: now, updatedAt: now } : null,
      };
  }
}

/** Only requests that can no longer change may be replayed. */
export function canReplay(r: StoredRequest): boolean {
  return isTerminal(r.status);
}

/** A terminal request created before the project's retention cutoff is no longer visible. */
export function isHiddenByRetention(r: StoredRequest, cutoff: number): boolean {
  return isTerminal(r.status) && r.createdAt < cutoff;
}

export function retentionCutoff(now: number, retentionDays: number): number {
  return now - retentionDays * 86_400_000;
}
