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
}

export type ClaimResult = { readonly claimed: true } | { readonly claimed: false; readonly existing: IdempotencyRecord };

export interface IdempotencyClaim {
  readonly projectId: string;
  readonly key: string;
  readonly fingerprint: string;
  readonly claimedAt: number;
  readonly expiresAt: number;
}

/** Conditional writes over idempotency records; every write resolves once durable. */
export interface IdempotencyStore {
  /**
   * Claims every key, or none: when any key is held by an unexpired record (complete or in progress), nothing is
   * claimed and the results say which records exist. Expired records count as absent.
   */
  claimAll(claims: readonly IdempotencyClaim[], now: number): Promise<ClaimResult[]>;
  /** Takes over a claim whose holder has not completed it since `staleBefore`; false when someone else did. */
  takeOver(claim: IdempotencyClaim, staleBefore: number): Promise<boolean>;
  /** Stores the outcome of claimed keys. */
  completeAll(projectId: string, outcomes: ReadonlyArray<{ key: string; outcome: string }>): Promise<void>;
  /** Drops claims that did not lead to an outcome, so the keys can be used again. */
  releaseAll(projectId: string, keys: readonly string[]): Promise<void>;
  /** The unexpired record, or null. */
  get(projectId: string, key: string, now: number): Promise<IdempotencyRecord | null>;
}
