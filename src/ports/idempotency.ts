/**
 * An idempotency record: a project-scoped key, the fingerprint of the input first seen with it, and the outcome
 * once the call completed. Records expire 24 hours after creation.
 */
export interface IdempotencyRecord {
  readonly projectId: string;
  readonly key: string;
  /** Hash of the operation and its normalised input. */
  readonly fingerprint: string;
  /** JSON of the outcome; null while the first call is still in progress. */
  readonly outcome: string | null;
  /** When the current holder claimed the key; a stale claim can be taken over. */
  readonly claimedAt: number;
  readonly expiresAt: number;
  /** What the holder set out to create (opaque to the store); whoever takes the claim over finishes that work. */
  readonly plan: string | null;
}

export type ClaimResult = { readonly claimed: true } | { readonly claimed: false; readonly existing: IdempotencyRecord };

export interface IdempotencyClaim {
  readonly projectId: string;
  readonly key: string;
  readonly fingerprint: string;
  readonly claimedAt: number;
  readonly expiresAt: number;
  readonly plan: string | null;
}

/** Conditional writes over idempotency records; every write resolves once durable. */
export interface IdempotencyStore {
  /**
   * Claims every key, or none: when any key is held by an unexpired record (complete or in progress), nothing is
   * claimed and the results say which records exist. Expired records count as absent and are replaced.
   *
   * The results are aligned with `claims`. A held key reports `{ claimed: false, existing }`; a free key reports
   * `{ claimed: true }`, so the keys were claimed exactly when every result says `claimed`. Keys must be unique
   * within one call. Of concurrent calls for the same key, at most one claims it.
   */
  claimAll(claims: readonly IdempotencyClaim[], now: number): Promise<ClaimResult[]>;
  /**
   * Takes over a claim whose holder has not completed it since `staleBefore` (outcome still null and
   * `claimedAt < staleBefore`), re-stamping it with `claim` (its plan included); false when the record is gone,
   * completed, or was claimed or taken over since.
   */
  takeOver(claim: IdempotencyClaim, staleBefore: number): Promise<boolean>;
  /** Stores the outcome of claimed keys. The first outcome stored for a record is kept, so replays never change. */
  completeAll(projectId: string, outcomes: ReadonlyArray<{ key: string; outcome: string }>): Promise<void>;
  /** Drops claims that did not lead to an outcome, so the keys can be used again. */
  releaseAll(projectId: string, keys: readonly string[]): Promise<void>;
  /**
   * Leaves claims without an outcome, and their plans, open to take-over at once (`claimedAt` 0): their work may
   * have been done in part, so the next call with the key finishes it instead of starting again.
   */
  abandonAll(projectId: string, keys: readonly string[]): Promise<void>;
  /** The unexpired record, or null. */
  get(projectId: string, key: string, now: number): Promise<IdempotencyRecord | null>;
}
