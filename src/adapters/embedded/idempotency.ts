import type { ClaimResult, IdempotencyClaim, IdempotencyRecord, IdempotencyStore } from '../../ports/idempotency.js';
import type { EmbeddedDatabase } from './database.js';
import { SELECT_LIVE_IDEMPOTENCY, idempotencyFromValues } from './write-ops.js';

export class EmbeddedIdempotencyStore implements IdempotencyStore {
  constructor(private readonly db: EmbeddedDatabase) {}

  async claimAll(claims: readonly IdempotencyClaim[], now: number): Promise<ClaimResult[]> {
    if (new Set(claims.map((c) => `${c.projectId}\n${c.key}`)).size !== claims.length) {
      throw new Error('An idempotency key appears twice in one claim.');
    }
    if (claims.length === 0) return [];
    return this.db.write('claimIdempotency', { claims, now });
  }

  takeOver(claim: IdempotencyClaim, staleBefore: number): Promise<boolean> {
    return this.db.write('takeOverIdempotency', { claim, staleBefore });
  }

  async completeAll(projectId: string, outcomes: ReadonlyArray<{ key: string; outcome: string }>): Promise<void> {
    if (outcomes.length === 0) return;
    await this.db.write('completeIdempotency', { projectId, outcomes });
  }

  async releaseAll(projectId: string, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.db.write('releaseIdempotency', { projectId, keys });
  }

  async abandonAll(projectId: string, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.db.write('abandonIdempotency', { projectId, keys });
  }

  async get(projectId: string, key: string, now: number): Promise<IdempotencyRecord | null> {
    const row = this.db.read(() => this.db.rawStatement(SELECT_LIVE_IDEMPOTENCY).get(projectId, key, now));
    return row === undefined ? null : idempotencyFromValues(row);
  }

  /**
   * Housekeeping outside the port: deletes up to `limit` records that expired at or before `now` and returns how
   * many. The bound keeps one purge from holding the write lock for long; call again while it returns `limit`.
   */
  purgeExpired(now: number, limit = 10_000): Promise<number> {
    return this.db.write('purgeIdempotency', { now, limit });
  }
}
