import type { Clock } from '../domain/clock.js';
import { FerryError } from '../domain/errors.js';
import type { IdempotencyClaim, IdempotencyStore } from '../ports/idempotency.js';

export interface KeyedCall {
  readonly key: string;
  readonly fingerprint: string;
  /** The input field that carried the key, for error reports. */
  readonly field: string;
}

export type Acquired = { readonly claimed: true } | { readonly claimed: false; readonly outcome: string };

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

  /** Claims every key or resolves it to its stored outcome; throws 409s for conflicts. */
  async acquire(projectId: string, calls: readonly KeyedCall[]): Promise<Acquired[]> {
    const results: Array<Acquired | undefined> = calls.map(() => undefined);
    const tookOver: string[] = [];
    const deadline = this.clock.now() + this.timings.waitMs;
    try {
      for (;;) {
        const open = calls.flatMap((c, i) => (results[i] === undefined ? [i] : []));
        if (open.length === 0) return results as Acquired[];
        const now = this.clock.now();
        const claims = open.map((i) => this.claimOf(projectId, calls[i]!, now));
        const answers = await this.store.claimAll(claims, now);
        if (answers.every((a) => a.claimed)) {
          for (const i of open) results[i] = { claimed: true };
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
            if (await this.store.takeOver(claims[n]!, now - this.timings.leaseMs)) {
              results[i] = { claimed: true };
              tookOver.push(call.key);
            }
          } else {
            waiting = true;
          }
        }
        if (waiting) {
          if (this.clock.now() >= deadline) throw inUse(calls);
          await sleep(this.timings.pollMs);
        }
      }
    } catch (err) {
      if (tookOver.length > 0) await this.store.releaseAll(projectId, tookOver).catch(() => undefined);
      throw err;
    }
  }

  complete(projectId: string, outcomes: ReadonlyArray<{ key: string; outcome: string }>): Promise<void> {
    return outcomes.length === 0 ? Promise.resolve() : this.store.completeAll(projectId, outcomes);
  }

  release(projectId: string, keys: readonly string[]): Promise<void> {
    return keys.length === 0 ? Promise.resolve() : this.store.releaseAll(projectId, keys);
  }

  private claimOf(projectId: string, call: KeyedCall, now: number): IdempotencyClaim {
    return { projectId, key: call.key, fingerprint: call.fingerprint, claimedAt: now, expiresAt: now + this.timings.ttlMs };
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

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
