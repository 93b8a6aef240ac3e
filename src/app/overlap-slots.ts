import type { Clock } from '../domain/clock.js';
import type { RequestStatus } from '../domain/request.js';
import { isActive } from '../domain/request-lifecycle/index.js';
import type { IdempotencyStore } from '../ports/idempotency.js';
import type { RequestStore } from '../ports/requests.js';

/** The right to start the one run that follows `after` (null: the schedule's first run), held by `starter`. */
export interface OverlapSlot {
  readonly scheduleId: string;
  readonly after: string | null;
  readonly starter: string;
}

/** A slot claimed and never filled (its holder died, or lost its storage) is free again after this long. */
export const SLOT_STALE_MS = 60_000;
/** Slot records live as long as idempotency records do; only the newest few of a schedule are ever looked at. */
const SLOT_TTL_MS = 24 * 60 * 60 * 1000;
/** Runs started after one another faster than the run state records them; more than this is a broken chain. */
const MAX_HOPS = 16;

/**
 * One run at a time for schedules whose overlap policy is `skip` or `buffer_one`. Checking that the previous run's
 * request has ended and then starting the next one are two steps, and two starters (the timer and a trigger, or two
 * triggers) could both pass the check before either's run is recorded. So each run after request P is started under
 * a claim of the key `overlap-after:P`, in the schedule's own namespace of the idempotency store: of concurrent
 * starters at most one claims it, and the claim's outcome names the run it started, which a later starter follows
 * (its run state may not show it yet) to the newest run and checks that one instead.
 *
 * A starter is named by what it starts (`occurrence:<instant>`, `trigger:<key>`), so a starter that runs again after
 * a crash or a conflict finds its own claim and goes on to the same, idempotent, creation.
 */
export class OverlapSlots {
  constructor(
    private readonly idempotency: IdempotencyStore,
    private readonly requestStatus: (projectId: string, requestId: string) => Promise<RequestStatus | null>,
    private readonly clock: Clock,
  ) {}

  /**
   * The slot after `previous` for `starter`, or null when a run is under way: `previous` itself, or a later one that
   * another starter began. The holder creates its run and then `fill`s the slot, or `release`s it when it created
   * nothing.
   */
  async take(projectId: string, scheduleId: string, previous: string | null, starter: string): Promise<OverlapSlot | null> {
    let after = previous;
    for (let hop = 0; hop < MAX_HOPS; hop++) {
      if (after !== null && (await this.active(projectId, after))) return null;
      const now = this.clock.now();
      const claim = { projectId: scheduleId, key: slotKey(after), fingerprint: starter, claimedAt: now, expiresAt: now + SLOT_TTL_MS, plan: null };
      const [result] = await this.idempotency.claimAll([claim], now);
      const slot = { scheduleId, after, starter };
      if (result!.claimed) return slot;
      const held = result!.existing;
      if (held.fingerprint === starter) return slot;
      if (held.outcome === null) {
        // Someone is starting the next run; unless it died doing so, that run is under way.
        return (await this.idempotency.takeOver(claim, now - SLOT_STALE_MS)) ? slot : null;
      }
      after = JSON.parse(held.outcome) as string;
    }
    return null;
  }

  /** The holder created `requestId`: the run after the slot's request is that one. */
  async fill(slot: OverlapSlot, requestId: string): Promise<void> {
    await this.idempotency.completeAll(slot.scheduleId, [{ key: slotKey(slot.after), outcome: JSON.stringify(requestId) }]);
  }

  /** The holder created no run: the slot is free for the next starter. */
  async release(slot: OverlapSlot): Promise<void> {
    await this.idempotency.releaseAll(slot.scheduleId, [slotKey(slot.after)]);
  }

  private async active(projectId: string, requestId: string): Promise<boolean> {
    const status = await this.requestStatus(projectId, requestId);
    return status !== null && isActive(status);
  }
}

function slotKey(after: string | null): string {
  return `overlap-after:${after ?? 'none'}`;
}

/** A request's status as `requests` stores it; null when it is gone. */
export function requestStatusIn(requests: RequestStore): (projectId: string, requestId: string) => Promise<RequestStatus | null> {
  return async (projectId, id) => (await requests.get(projectId, id))?.status ?? null;
}

/** The slots over a backend's stores: claims in its idempotency store, requests' states read from its request store. */
export function overlapSlotsOver(stores: { readonly idempotency: IdempotencyStore; readonly requests: RequestStore }, clock: Clock): OverlapSlots {
  return new OverlapSlots(stores.idempotency, requestStatusIn(stores.requests), clock);
}
