import { isTerminal, type AttemptRecord, type StoredRequest } from '../../domain/request.js';
import type { RequestPatch } from '../../ports/requests.js';
import { PATCH_COLUMNS, PATCH_FIELDS } from '../request-patch-columns.js';
import type { RequestExpiry } from './request-expiry.js';
import type { InFlight } from './request-pool.js';
import { isUncertainConditionalWrite } from './errors.js';
import type { RequestRows } from './request-rows.js';
import { CONSISTENCY, applied, type CassandraSession, type Statement } from './session.js';
import type { TimerRemovals } from './timer-removals.js';
import { timerChange, type Timer, type TimerTable } from './timers.js';

/** What a change writes besides its patch. */
export interface ChangeExtras {
  /** Writes to the same partition that land with the change or not at all. */
  readonly also?: Statement[];
  /** The attempt that `also` records, if any. */
  readonly attempt?: AttemptRecord | null;
  /** The version written; one more than `current.version` unless a held claim's version lies in between. */
  readonly version?: number;
}

/**
 * Every change of a stored request: one conditional write in the request's partition, with the timers around it.
 * A new timer is written before the change, so a change never lands without its timer (a crash between the two
 * leaves only a stale timer); the old timer is dropped after it, in the background (for a request that ended,
 * only once its retention rewrite has landed).
 */
export class RequestChanges {
  constructor(
    private readonly session: CassandraSession,
    private readonly timers: TimerTable,
    private readonly shardCount: number,
    private readonly inFlight: InFlight,
    private readonly expiry: RequestExpiry,
    private readonly rows: RequestRows,
    private readonly removals: TimerRemovals,
  ) {}

  /**
   * Applies `patch` to `current` when the stored version is still `current.version`, and returns the request as
   * it now is; null when the version moved on. `asOf` is the `deletionTime` taken before `current` was read.
   */
  async apply(current: StoredRequest, patch: RequestPatch, asOf: number, during: string, extras: ChangeExtras = {}): Promise<StoredRequest | null> {
    const { also = [], attempt = null, version = current.version + 1 } = extras;
    const next = patched(current, patch, version);
    const { add, drop } = timerChange(this.shardCount, current, next);
    if (add !== null) await this.timers.write(add);
    const update = this.conditionalUpdate(current, patch, version);
    try {
      const result =
        also.length === 0
          ? await this.session.execute(update.query, update.params!, during)
          : // One partition: Cassandra applies it atomically without the batch log.
            await this.session.batch([update, ...also], during, { logged: false });
      if (!applied(result)) return null;
    } catch (err) {
      if (!isUncertainConditionalWrite(err) || !(await this.landed(next, during))) throw err;
    }
    // An attempt recorded on a request already ended (one cancelled while the attempt was in flight) needs the
    // retention rewrite again, or its row would outlive the request.
    if (isTerminal(next.status) && (!isTerminal(current.status) || attempt !== null)) this.ended(next, drop, asOf, attempt);
    else if (drop !== null) this.removals.remove(drop, asOf);
    return next;
  }

  /**
   * Gives an ended request its time to live, then drops its old timer. The timer goes only once the rewrite has
   * landed: when the rewrite fails, or the process dies first, the timer stays behind, and the claim that finds it
   * stale calls this again (see `RequestClaims`). So no ended request keeps its rows for ever.
   */
  ended(r: StoredRequest, timer: Timer | null, asOf: number, last: AttemptRecord | null = null): void {
    const rewrite = () => this.expiry.expire(r, last);
    if (timer === null) this.inFlight.background(rewrite);
    else this.removals.removeAfter(timer, asOf, rewrite);
  }

  /** `ended` for a stale timer found by a claim, unless this process is rewriting the request already. */
  endedLongAgo(r: StoredRequest, timer: Timer, asOf: number): void {
    if (!this.removals.pending(timer)) this.ended(r, timer, asOf);
  }

  /**
   * Whether a conditional write whose answer timed out was applied after all: a serial read finishes any Paxos
   * round still open, so what it sees is final. Without this, a claim that did land would sit out its lease.
   */
  private async landed(next: StoredRequest, during: string): Promise<boolean> {
    const seen = await this.rows.request(next.id, during, CONSISTENCY.serial);
    return (
      seen !== null &&
      seen.version === next.version &&
      seen.status === next.status &&
      seen.dueAt === next.dueAt &&
      seen.updatedAt === next.updatedAt &&
      seen.attemptCount === next.attemptCount
    );
  }

  private conditionalUpdate(current: StoredRequest, patch: RequestPatch, version: number): Statement {
    const columns: string[] = [];
    const values: unknown[] = [];
    for (const field of PATCH_FIELDS) {
      const value = patch[field];
      if (value === undefined) continue;
      columns.push(`${PATCH_COLUMNS[field]} = ?`);
      values.push(value);
    }
    return {
      query: `UPDATE ${this.session.table('requests')} SET ${[...columns, 'version = ?'].join(', ')} WHERE id = ? IF version = ?`,
      params: [...values, version, current.id, current.version],
    };
  }
}

/** The request after `patch`, at `version`. */
export function patched(current: StoredRequest, patch: RequestPatch, version = current.version + 1): StoredRequest {
  return { ...current, ...definedFields(patch), version };
}

/** The fields `patch` changes: keys whose value is `undefined` change nothing, and must not mask others. */
export function definedFields(patch: RequestPatch): RequestPatch {
  return Object.fromEntries(PATCH_FIELDS.filter((f) => patch[f] !== undefined).map((f) => [f, patch[f]]));
}
