import { StorageUnavailable } from '../../ports/errors.js';
import type { types } from 'cassandra-driver';
import type { ClaimResult, IdempotencyClaim, IdempotencyRecord, IdempotencyStore } from '../../ports/idempotency.js';
import { isUncertainConditionalWrite } from './errors.js';
import { applied, CONSISTENCY, millis, type CassandraSession } from './session.js';

/** Rounds of claim and replace for one key before giving up: each lost round means another claim took effect. */
const MAX_CLAIM_ROUNDS = 8;

/**
 * Idempotency records, one partition per (project, key), written only with conditional statements so Paxos orders
 * every change of a key. Expiry is decided by `expires_at` against the caller's `now`; the table's 24-hour TTL only
 * cleans up, and what it leaves half gone (a row whose claim expired before its outcome) counts as expired.
 */
export class CassandraIdempotencyStore implements IdempotencyStore {
  private readonly q: ReturnType<typeof statements>;

  constructor(private readonly session: CassandraSession) {
    this.q = statements(session.table('idempotency_keys'));
  }

  async claimAll(claims: readonly IdempotencyClaim[], now: number): Promise<ClaimResult[]> {
    if (new Set(claims.map((c) => `${c.projectId}\n${c.key}`)).size !== claims.length) {
      throw new Error('An idempotency key appears twice in one claim.');
    }
    const settled = await Promise.allSettled(claims.map((c) => this.claimOne(c, now)));
    const claimedHere = claims.filter((_, i) => settled[i]!.status === 'fulfilled' && settled[i]!.value === null);
    const failure = settled.find((s) => s.status === 'rejected');
    if (failure !== undefined) {
      // A claim whose write timed out may have been applied all the same; it goes stale and is taken over later.
      await this.undo(claimedHere).catch(() => undefined);
      throw failure.reason;
    }
    const held = settled.map((s) => (s as PromiseFulfilledResult<IdempotencyRecord | null>).value);
    // Each key was claimed on its own, so the ones taken while another key was held are given back: all or none.
    if (held.some((r) => r !== null)) await this.undo(claimedHere);
    return held.map((existing): ClaimResult => (existing === null ? { claimed: true } : { claimed: false, existing }));
  }

  async takeOver(claim: IdempotencyClaim, staleBefore: number): Promise<boolean> {
    const c = claim;
    const rs = await this.session.execute(
      this.q.takeOver,
      [c.fingerprint, c.claimedAt, c.expiresAt, c.plan, c.projectId, c.key, staleBefore],
      'taking over an idempotency claim',
    );
    return applied(rs);
  }

  async completeAll(projectId: string, outcomes: ReadonlyArray<{ key: string; outcome: string }>): Promise<void> {
    await Promise.all(outcomes.map((o) => this.complete(projectId, o.key, o.outcome)));
  }

  /** Stores one outcome; an uncertain write is settled by a serial read, and made once more if it did not land. */
  private async complete(projectId: string, key: string, outcome: string): Promise<void> {
    const during = 'storing an idempotency outcome';
    try {
      await this.session.execute(this.q.complete, [outcome, projectId, key], during);
    } catch (err) {
      if (!isUncertainConditionalWrite(err)) throw err;
      const rs = await this.session.execute(this.q.select, [projectId, key], `settling ${during}`, { idempotent: true, consistency: CONSISTENCY.serial });
      if (rs.first()?.get('outcome') === outcome) return;
      await this.session.execute(this.q.complete, [outcome, projectId, key], during);
    }
  }

  async releaseAll(projectId: string, keys: readonly string[]): Promise<void> {
    await Promise.all(keys.map((key) => this.session.execute(this.q.release, [projectId, key], 'releasing an idempotency claim')));
  }

  async abandonAll(projectId: string, keys: readonly string[]): Promise<void> {
    await Promise.all(keys.map((key) => this.session.execute(this.q.abandon, [0, projectId, key], 'abandoning an idempotency claim')));
  }

  async get(projectId: string, key: string, now: number): Promise<IdempotencyRecord | null> {
    const rs = await this.session.read(this.q.select, [projectId, key], 'reading an idempotency record');
    return liveRecord(projectId, key, rs.first(), now);
  }

  /** Claims one key: null when this call now holds it, otherwise the unexpired record holding it. */
  private async claimOne(c: IdempotencyClaim, now: number): Promise<IdempotencyRecord | null> {
    for (let round = 0; round < MAX_CLAIM_ROUNDS; round++) {
      const inserted = await this.settled(c, this.q.insert, [c.projectId, c.key, c.fingerprint, c.claimedAt, c.expiresAt, c.plan], 'claiming an idempotency key');
      if (inserted === 'landed') return null;
      if (inserted === 'not landed') continue;
      if (applied(inserted)) return null;
      const seen = inserted.first();
      const holder = liveRecord(c.projectId, c.key, seen, now);
      if (holder !== null) return holder;
      // Only the expiry seen is compared: of the calls replacing the same expired record, one wins.
      const replaced = await this.settled(
        c,
        this.q.replaceExpired,
        [c.fingerprint, c.claimedAt, c.expiresAt, c.plan, c.projectId, c.key, seen?.get('expires_at') ?? null],
        'claiming an expired idempotency key',
      );
      if (replaced === 'landed' || (replaced !== 'not landed' && applied(replaced))) return null;
    }
    throw new StorageUnavailable(`Idempotency key ${JSON.stringify(c.key)} changed hands too often to be claimed; retry.`);
  }

  /**
   * Runs a conditional write of claim `c`. When its outcome is uncertain (the coordinator was lost or stopped
   * answering mid-write), a serial read settles it instead of failing the call: the row holding exactly this claim
   * (its fingerprint and claim time, no outcome) means the write landed; anything else, that it did not.
   */
  private async settled(c: IdempotencyClaim, query: string, params: unknown[], during: string): Promise<types.ResultSet | 'landed' | 'not landed'> {
    try {
      return await this.session.execute(query, params, during);
    } catch (err) {
      if (!isUncertainConditionalWrite(err)) throw err;
      const rs = await this.session.execute(this.q.select, [c.projectId, c.key], `settling ${during}`, { idempotent: true, consistency: CONSISTENCY.serial });
      const row = rs.first();
      const ours = row !== null && row.get('fingerprint') === c.fingerprint && millis(row.get('claimed_at')) === c.claimedAt && row.get('outcome') == null;
      return ours ? 'landed' : 'not landed';
    }
  }

  /** Deletes claims this call made, each only while it is still exactly this call's unfinished claim. */
  private async undo(claims: readonly IdempotencyClaim[]): Promise<void> {
    await Promise.all(
      claims.map((c) =>
        this.session.execute(this.q.undo, [c.projectId, c.key, c.fingerprint, c.claimedAt], 'giving back an idempotency claim'),
      ),
    );
  }
}

function statements(table: string) {
  const key = 'WHERE project_id = ? AND key = ?';
  return {
    select: `SELECT fingerprint, outcome, claimed_at, expires_at, plan FROM ${table} ${key}`,
    insert: `INSERT INTO ${table} (project_id, key, fingerprint, claimed_at, expires_at, plan) VALUES (?, ?, ?, ?, ?, ?) IF NOT EXISTS`,
    replaceExpired: `UPDATE ${table} SET fingerprint = ?, outcome = null, claimed_at = ?, expires_at = ?, plan = ? ${key} IF expires_at = ?`,
    takeOver: `UPDATE ${table} SET fingerprint = ?, claimed_at = ?, expires_at = ?, plan = ? ${key} IF outcome = null AND claimed_at < ?`,
    abandon: `UPDATE ${table} SET claimed_at = ? ${key} IF outcome = null AND claimed_at != null`,
    // An update creates the row it names, so the condition also asks for a claim to exist.
    complete: `UPDATE ${table} SET outcome = ? ${key} IF outcome = null AND claimed_at != null`,
    // The same second condition keeps a release of a key never claimed from writing a tombstone.
    release: `DELETE FROM ${table} ${key} IF outcome = null AND claimed_at != null`,
    undo: `DELETE FROM ${table} ${key} IF fingerprint = ? AND claimed_at = ? AND outcome = null`,
  };
}

/**
 * The record a row holds at `now`, or null when there is none: no row, an expired record, or a row whose claim
 * columns the TTL already removed while a later-written outcome lives on.
 */
function liveRecord(projectId: string, key: string, row: types.Row | null, now: number): IdempotencyRecord | null {
  if (row === null) return null;
  const fingerprint = (row.get('fingerprint') as string | null | undefined) ?? null;
  const claimedAt = millis(row.get('claimed_at'));
  const expiresAt = millis(row.get('expires_at'));
  if (fingerprint === null || claimedAt === null || expiresAt === null || expiresAt <= now) return null;
  const outcome = (row.get('outcome') as string | null | undefined) ?? null;
  return { projectId, key, fingerprint, outcome, claimedAt, expiresAt, plan: (row.get('plan') as string | null | undefined) ?? null };
}
