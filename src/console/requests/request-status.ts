/**
 * A request's statuses as the API names them, split the way the request page needs: an active request can still be
 * cancelled, an ended one can be replayed, and neither applies to the other (the API answers 409). These mirror
 * `REQUEST_STATUSES` of `src/domain/request.ts` and the status sets of `src/domain/request-lifecycle/`, which the
 * console (a bundle of its own) may not import; a unit test keeps them equal.
 */
export const ACTIVE_STATUSES = ['scheduled', 'queued', 'delivering'] as const;
export const ENDED_STATUSES = ['succeeded', 'failed', 'cancelled'] as const;

/** Every status, in the order a request moves through them. */
export const STATUSES = [...ACTIVE_STATUSES, ...ENDED_STATUSES] as const;

const ACTIVE: ReadonlySet<string> = new Set(ACTIVE_STATUSES);
const ENDED: ReadonlySet<string> = new Set(ENDED_STATUSES);

/** Whether the request can change no more (and so no longer needs reading again). */
export function hasEnded(status: string | null): boolean {
  return status !== null && ENDED.has(status);
}

/**
 * Whether Cancel is offered: while the request is scheduled, queued or delivering. A request already cancelled is
 * not offered it again (the API would only say it already is), nor one that succeeded or failed (409).
 */
export function canCancel(status: string | null): boolean {
  return status !== null && ACTIVE.has(status);
}

/** Whether Replay is offered: only once the request has ended; an active one answers 409 `REQUEST_ACTIVE`. */
export function canReplay(status: string | null): boolean {
  return hasEnded(status);
}
