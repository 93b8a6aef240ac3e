import { types } from 'cassandra-driver';
import type { Clock } from '../../../domain/clock.js';
import type { AttemptRecord, StoredRequest } from '../../../domain/request.js';
import { StorageUnavailable } from '../../../ports/errors.js';
import { expiringIndexRows } from './list-indexes.js';
import { ATTEMPT_COLUMNS, LIST_ENTRY_COLUMNS, REQUEST_BATCHES, REQUEST_COLUMNS, attemptValues, listEntryValues, requestValues, type RequestRows } from './rows.js';
import { PATCH_COLUMNS } from '../../request-patch-columns.js';
import { blob, timestampValue, type CassandraSession, type Statement } from '../session.js';
import { WriteCoalescer, type CoalescerLimits } from '../shared/write-coalescer.js';

/** A request's rewrite: its partition, its list entry and the entry's index rows. */
export interface Rewrite {
  readonly statements: readonly Statement[];
  readonly bytes: number;
}

/** Rewrites under way at once: nobody waits for them, so few are enough. */
const EXPIRY_WRITES: CoalescerLimits = { ...REQUEST_BATCHES, writesAtOnce: 4 };

/** Cassandra refuses TTLs beyond 20 years. */
const MAX_TTL_SECONDS = 20 * 365 * 86_400;
const DAY_MS = 86_400_000;
/** Projects whose retention is remembered. */
const MAX_REMEMBERED_PROJECTS = 10_000;
/**
 * How long a project's retention is remembered: `ferry project update` may change it, and requests that end after
 * that (give or take this long) get the new time to live.
 */
const RETENTION_MEMORY_MS = 5 * 60_000;

/**
 * Retention through TTL: when a request ends, its cells are written again with a time to live that runs out when
 * the project's retention would hide it anyway (creation + retention days), so Cassandra deletes finished history
 * by itself. Until then the cutoff hides it. What remains after expiry is an empty row marker per attempt, which
 * every reader already treats as no request. A rewrite that fails (or is refused while too many wait) is made
 * again when a claim finds the request's timer, which is kept until then (see `RequestChanges.ended`).
 */
export class RequestExpiry {
  private readonly retentionDays = new Map<string, { readonly days: number; readonly until: number }>();
  private readonly selectRetention: string;
  private readonly insertListEntry: string;
  private readonly updateRequest: string;
  private readonly updateAttempt: string;
  /**
   * The rewrites of requests that ended at about the same time share one unlogged batch: nobody waits for them,
   * and list entries of one project and day land as one mutation.
   */
  private readonly writes = new WriteCoalescer<Rewrite>(
    (group) => this.session.batch(group.flatMap((w) => w.statements), 'expiring requests', { logged: false }).then(() => undefined),
    (w) => w.bytes,
    EXPIRY_WRITES,
    () => new StorageUnavailable('Cassandra is not keeping up with expiring requests.'),
  );

  constructor(
    private readonly session: CassandraSession,
    private readonly rows: RequestRows,
    private readonly clock: Clock,
  ) {
    this.selectRetention = `SELECT retention_days FROM ${session.table('projects')} WHERE id = ?`;
    this.insertListEntry = `INSERT INTO ${session.table('requests_by_project')} (${LIST_ENTRY_COLUMNS.join(', ')})
        VALUES (${LIST_ENTRY_COLUMNS.map(() => '?').join(', ')}) USING TTL ? AND TIMESTAMP ?`;
    const requests = session.table('requests');
    this.updateRequest = `UPDATE ${requests} USING TTL ? AND TIMESTAMP ? SET ${[...REQUEST_COLUMNS.filter((c) => c !== 'id'), 'cancel_asked_at', 'body'].map((c) => `${c} = ?`).join(', ')} WHERE id = ?`;
    this.updateAttempt = `UPDATE ${requests} USING TTL ? AND TIMESTAMP ? SET ${ATTEMPT_COLUMNS.slice(1).map((c) => `${c} = ?`).join(', ')} WHERE id = ? AND attempt_number = ?`;
  }

  /**
   * `stamp` is an owner timestamp above the change that ended the request: the rewritten cells must win over
   * those they rewrite. `last` is the attempt that ended the request, if one did: when it was the first, there is
   * nothing to read.
   */
  async expire(r: StoredRequest, stamp: bigint, last: AttemptRecord | null = null): Promise<void> {
    const ttl = await this.ttlOf(r);
    if (ttl === null) return;
    const attempts = last?.attemptNumber === 1 ? [last] : await this.rows.attempts(r.projectId, r.id, 'expiring a request');
    await this.writes.submit(this.rewrite(r, stamp, ttl, attempts));
  }

  /**
   * The write that ends `r` with its time to live set at once, in place of the change and its later rewrite: null
   * when it would need a read first (attempts before `last`) or the project is gone, and the caller then writes the
   * change and calls `expire`. The change's own cells are in it, nulls included, at the change's `stamp`.
   */
  async endingWrite(r: StoredRequest, stamp: bigint, last: AttemptRecord | null): Promise<Rewrite | null> {
    const attempts = last === null ? (r.attemptCount === 0 ? [] : null) : last.attemptNumber === 1 ? [last] : null;
    if (attempts === null) return null;
    const ttl = await this.ttlOf(r);
    return ttl === null ? null : this.rewrite(r, stamp, ttl, attempts);
  }

  /** Seconds until creation + the project's retention; null when the project is gone. */
  private async ttlOf(r: StoredRequest): Promise<number | null> {
    const days = await this.retentionOf(r.projectId);
    if (days === null) return null;
    return Math.min(MAX_TTL_SECONDS, Math.max(1, Math.ceil((r.createdAt + days * DAY_MS - this.clock.now()) / 1000)));
  }

  /** Every cell of the request, its attempts and its list entry again, with `ttl`, at `stamp`. */
  private rewrite(r: StoredRequest, stamp: bigint, ttl: number, attempts: readonly AttemptRecord[]): Rewrite {
    const t = timestampValue(stamp);
    // A cancel asked for by others is the deliverer's `cancelRequestedAt`; its own cell expires with the rest. Left
    // unset when there was none: a null written here would be a tombstone above any cancel written later.
    const asked = r.cancelRequestedAt ?? types.unset;
    const partition: Statement[] = [
      {
        query: this.updateRequest,
        params: [ttl, t, ...endedRequestValues(r), asked, r.body === null ? types.unset : blob(r.body), r.id],
      },
      ...attempts.map((a) => ({
        query: this.updateAttempt,
        params: [ttl, t, ...attemptValues(a).slice(2), r.id, a.attemptNumber],
      })),
    ];
    const listEntry: Statement = {
      query: this.insertListEntry,
      // Every column: a cell not written again with the TTL would keep the entry alive after the rest expired. An
      // entry written before entries carried the schedule, queue and flow keys gets them here. At the owner's
      // stamp, as the attempts' status codes were written (`listEntryStatusCode`): above every one of them.
      params: [...listEntryValues(r), ttl, t],
    };
    // The entry's index rows likewise, under the request's current code: a row an attempt moved away stays deleted.
    const indexRows = expiringIndexRows(this.session, r, ttl, stamp);
    return { statements: [...partition, listEntry, ...indexRows], bytes: r.body?.byteLength ?? 0 };
  }

  private async retentionOf(projectId: string): Promise<number | null> {
    const now = this.clock.now();
    const known = this.retentionDays.get(projectId);
    if (known !== undefined && known.until > now) return known.days;
    const row = (await this.session.read(this.selectRetention, [projectId], 'reading a retention period')).first();
    const days = (row?.['retention_days'] as number | null | undefined) ?? null;
    if (days === null) return null;
    if (this.retentionDays.size >= MAX_REMEMBERED_PROJECTS) this.retentionDays.clear();
    this.retentionDays.set(projectId, { days, until: now + RETENTION_MEMORY_MS });
    return days;
  }
}

/**
 * The values of `REQUEST_COLUMNS` after `id`. The state an owner changes is written as it is, nulls as nulls, so a
 * rewrite that also carries a change leaves nothing of an earlier state; the rest is left unset where null.
 */
function endedRequestValues(r: StoredRequest): unknown[] {
  const values = requestValues(r).slice(1);
  return REQUEST_COLUMNS.slice(1).map((c, i) => (CHANGING.has(c) && values[i] === types.unset ? null : values[i]));
}

const CHANGING = new Set<string>(Object.values(PATCH_COLUMNS));
