import type { Clock } from '../domain/clock.js';
import { FerryError } from '../domain/errors.js';
import type { IdempotencyClaim, IdempotencyStore } from '../ports/idempotency.js';

export interface KeyedCall {
  readonly key: string;
  readonly fingerprint: string;
  /** The input field that carried the key, for error reports. */
  readonly field: string;
}

/**
 * A claimed key, or the outcome stored for it. `resumed` is the plan of an earlier holder whose claim this call
 * took over: that holder may have done part of the work, which this call then finishes instead of repeating.
 */
export type Acquired = { readonly claimed: true; readonly resumed: string | null } | { readonly claimed: false; readonly outcome: string };

export interface GuardTimings {
  /** How long idempotency records are kept. */
  readonly ttlMs: number;
  /** A claim not completed within this time is presumed abandoned by a crashed holder and may be taken over. */
  readonly leaseMs: number;
  /** How long a duplicate call waits for the first one to finish before answering 409. */
  readonly waitMs: number;
  readonly pollMs: number;
}

export const DEFAULT_GUARD_TIMINGS: GuardTimings = { ttlMs: 24 * 3600_000, leaseMs: 30_000, waitMs: 10_000, pollMs: 15 };

/**
 * Turns the conditional writes of the idempotency port into the API's rules: the first call with a key does the
 * work, a repeat with the same input gets the stored outcome (waiting while the first is still running), and a
 * repeat with different input is a conflict. Concurrent duplicates never both do the work.
 */
export class IdempotencyGuard {
  constructor(
    private readonly store: IdempotencyStore,
    private readonly clock: Clock,
    private readonly timings: GuardTimings = DEFAULT_GUARD_TIMINGS,
  ) {}

  /**
   * Claims every key or resolves it to its stored outcome; throws 409s for conflicts. `plans[i]` is what the call
   * with `calls[i]` will create, recorded with its claim.
   */
  async acquire(projectId: string, calls: readonly KeyedCall[], plans: readonly string[]): Promise<Acquired[]> {
    const results: Array<Acquired | undefined> = calls.map(() => undefined);
    const tookOver: string[] = [];
    const deadline = this.clock.now() + this.timings.waitMs;
    try {
      for (;;) {
        const open = calls.flatMap((c, i) => (results[i] === undefined ? [i] : []));
        if (open.length === 0) return results as Acquired[];
        const now = this.clock.now();
        const claims = open.map((i) => this.claimOf(projectId, calls[i]!, plans[i]!, now));
        const answers = await this.store.claimAll(claims, now);
        if (answers.every((a) => a.claimed)) {
          for (const i of open) results[i] = { claimed: true, resumed: null };
          continue;
        }
        let waiting = false;
        for (const [n, answer] of answers.entries()) {
          if (answer.claimed) continue;
          const i = open[n]!;
          const call = calls[i]!;
          const existing = answer.existing;
          if (existing.fingerprint !== call.fingerprint) throw reused(call);
          if (existing.outcome !== null) {
            results[i] = { claimed: false, outcome: existing.outcome };
          } else if (existing.claimedAt < now - this.timings.leaseMs) {
            // The plan stays the first holder's: its requests may exist already.
            const claim = { ...claims[n]!, plan: existing.plan ?? claims[n]!.plan };
            if (await this.store.takeOver(claim, now - this.timings.leaseMs)) {
              results[i] = { claimed: true, resumed: existing.plan };
              tookOver.push(call.key);
            }
          } else {
            waiting = true;
          }
        }
        if (waiting) {
          if (this.clock.now() >= deadline) throw inUse(calls);
          await this.clock.sleep(this.timings.pollMs);
        }
      }
    } catch (err) {
      // A claim taken over carries a plan that may have been carried out in part: it stays for the next call.
      if (tookOver.length > 0) await this.store.abandonAll(projectId, tookOver).catch(() => undefined);
      throw err;
    }
  }

  complete(projectId: string, outcomes: ReadonlyArray<{ key: string; outcome: string }>): Promise<void> {
    return outcomes.length === 0 ? Promise.resolve() : this.store.completeAll(projectId, outcomes);
  }

  /** Frees keys whose call failed before it could have created anything. */
  release(projectId: string, keys: readonly string[]): Promise<void> {
    return keys.length === 0 ? Promise.resolve() : this.store.releaseAll(projectId, keys);
  }

  /** Hands keys whose call failed after it may have created something to the next call with them, at once. */
  abandon(projectId: string, keys: readonly string[]): Promise<void> {
    return keys.length === 0 ? Promise.resolve() : this.store.abandonAll(projectId, keys);
  }

  private claimOf(projectId: string, call: KeyedCall, plan: string, now: number): IdempotencyClaim {
    return { projectId, key: call.key, fingerprint: call.fingerprint, claimedAt: now, expiresAt: now + this.timings.ttlMs, plan };
  }
}

function reused(call: KeyedCall): FerryError {
  return new FerryError(
    'IDEMPOTENCY_KEY_REUSED',
    'This idempotency key was already used with different input; use a new key for a different request.',
    call.field,
  );
}

function inUse(calls: readonly KeyedCall[]): FerryError {
  return new FerryError(
    'IDEMPOTENCY_KEY_IN_USE',
    'A call with this idempotency key is still in progress; retry shortly.',
    calls[0]?.field,
  );
}
