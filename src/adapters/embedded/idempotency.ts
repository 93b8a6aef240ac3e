import type { ClaimResult, IdempotencyClaim, IdempotencyRecord, IdempotencyStore } from '../../ports/idempotency.js';
import type { EmbeddedDatabase } from './database.js';

interface IdempotencyRow {
  project_id: string;
  key: string;
  fingerprint: string;
  outcome: string | null;
  claimed_at: number;
  expires_at: number;
}

const SELECT_LIVE = 'SELECT * FROM idempotency WHERE project_id = ? AND key = ? AND expires_at > ?';

// Expired records are still in the table until purged; a claim replaces them in place.
const UPSERT_CLAIM = `INSERT INTO idempotency (project_id, key, fingerprint, outcome, claimed_at, expires_at)
  VALUES (@projectId, @key, @fingerprint, NULL, @claimedAt, @expiresAt)
  ON CONFLICT (project_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, outcome = NULL,
    claimed_at = excluded.claimed_at, expires_at = excluded.expires_at
  WHERE idempotency.expires_at <= @now`;

export class EmbeddedIdempotencyStore implements IdempotencyStore {
  constructor(private readonly db: EmbeddedDatabase) {}

  async claimAll(claims: readonly IdempotencyClaim[], now: number): Promise<ClaimResult[]> {
    if (new Set(claims.map((c) => `${c.projectId}\n${c.key}`)).size !== claims.length) {
      throw new Error('An idempotency key appears twice in one claim.');
    }
    if (claims.length === 0) return [];
    // Check and insert run in one write, so no other claim can come between them.
    return this.db.write(() => {
      const select = this.db.statement(SELECT_LIVE);
      const existing = claims.map((c) => select.get(c.projectId, c.key, now) as IdempotencyRow | undefined);
      if (existing.some((row) => row !== undefined)) {
        return existing.map((row): ClaimResult => (row === undefined ? { claimed: true } : { claimed: false, existing: recordFromRow(row) }));
      }
      const upsert = this.db.statement(UPSERT_CLAIM);
      for (const c of claims) upsert.run({ ...claimParams(c), now });
      return claims.map((): ClaimResult => ({ claimed: true }));
    });
  }

  takeOver(claim: IdempotencyClaim, staleBefore: number): Promise<boolean> {
    return this.db.write(() => {
      const result = this.db
        .statement(`UPDATE idempotency SET fingerprint = @fingerprint, claimed_at = @claimedAt, expires_at = @expiresAt
          WHERE project_id = @projectId AND key = @key AND outcome IS NULL AND claimed_at < @staleBefore`)
        .run({ ...claimParams(claim), staleBefore });
      return result.changes === 1;
    });
  }

  async completeAll(projectId: string, outcomes: ReadonlyArray<{ key: string; outcome: string }>): Promise<void> {
    if (outcomes.length === 0) return;
    await this.db.write(() => {
      const complete = this.db.statement(
        'UPDATE idempotency SET outcome = ? WHERE project_id = ? AND key = ? AND outcome IS NULL',
      );
      for (const o of outcomes) complete.run(o.outcome, projectId, o.key);
    });
  }

  async releaseAll(projectId: string, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.db.write(() => {
      const release = this.db.statement('DELETE FROM idempotency WHERE project_id = ? AND key = ? AND outcome IS NULL');
      for (const key of keys) release.run(projectId, key);
    });
  }

  async get(projectId: string, key: string, now: number): Promise<IdempotencyRecord | null> {
    const row = this.db.read(() => this.db.statement(SELECT_LIVE).get(projectId, key, now) as IdempotencyRow | undefined);
    return row === undefined ? null : recordFromRow(row);
  }

  /**
   * Housekeeping outside the port: deletes up to `limit` records that expired at or before `now` and returns how
   * many. The bound keeps one purge from holding the write lock for long; call again while it returns `limit`.
   */
  purgeExpired(now: number, limit = 10_000): Promise<number> {
    const sql = `DELETE FROM idempotency WHERE (project_id, key) IN
      (SELECT project_id, key FROM idempotency WHERE expires_at <= ? LIMIT ?)`;
    return this.db.write(() => this.db.statement(sql).run(now, limit).changes);
  }
}

function claimParams(c: IdempotencyClaim) {
  return { projectId: c.projectId, key: c.key, fingerprint: c.fingerprint, claimedAt: c.claimedAt, expiresAt: c.expiresAt };
}

function recordFromRow(row: IdempotencyRow): IdempotencyRecord {
  return {
    projectId: row.project_id,
    key: row.key,
    fingerprint: row.fingerprint,
    outcome: row.outcome,
    claimedAt: row.claimed_at,
    expiresAt: row.expires_at,
  };
}
