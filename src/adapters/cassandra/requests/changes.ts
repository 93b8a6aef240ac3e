import type { AttemptRecord, StoredRequest } from '../../../domain/request.js';
import { applied, isTerminal, type Transition } from '../../../domain/request-lifecycle/index.js';
import { shardOf } from '../../../domain/shards.js';
import { StorageUnavailable } from '../../../ports/errors.js';
import { PATCH_COLUMNS, PATCH_FIELDS, patchValue } from '../../request-patch-columns.js';
import type { OwnerTimestamps } from '../ownership/owner-timestamps.js';
import { timestampValue, type CassandraSession, type Statement } from '../session.js';
import { WriteCoalescer, type CoalescerLimits } from '../shared/write-coalescer.js';
import type { TimerEngine } from '../timers/engine.js';
import type { StoredAs } from './claim.js';
import type { RequestExpiry } from './expiry.js';
import { REQUEST_BATCHES, dayOf, insertAttempt, insertCallback, insertListEntry, insertProjectDay, listEntryStatusCode } from './rows.js';
import { insertIndexRows, statusCodeMove } from './list-indexes.js';
import { timerChange, timerOf, type RequestTimer } from './timers.js';

/** One change's statements, all at its owner timestamp. */
interface OwnerWrite {
  readonly statements: readonly Statement[];
  readonly bytes: number;
  readonly during: string;
}

/** The owner's changes wait for the writes under way, 16 at most, and share the next one, 16 changes each. */
const OWNER_WRITES: CoalescerLimits = { ...REQUEST_BATCHES, itemsPerWrite: 16, writesAtOnce: 16 };

/** What a change writes besides its patch. */
export interface ChangeExtras {
  /** The attempt recorded with the change, in the same write, if any. */
  readonly attempt?: AttemptRecord | null;
  /** The version written; one more than `current.version` by default. */
  readonly version?: number;
  /**
   * What storage holds of the request where it differs from `current` (a held claim's request before the claim,
   * see `CassandraClaim.storedAs`): the timer that stands, and whether the request had ended, are its.
   */
  readonly storedAs?: StoredAs | null;
  /** The callback the change's ending creates (`settleAttempt`), written in the same write; null for none. */
  readonly callback?: StoredRequest | null;
}

/**
 * Every change of a stored request, made by the owner of its shard: one plain write in the request's partition,
 * at an owner timestamp (`OwnerTimestamps`), with the timers around it. No condition: only this process writes
 * the shard's requests while it holds the shard, and a process that lost the shard without knowing writes below
 * the new owner's timestamps, so none of its cells win. The write is idempotent, so the driver may repeat it.
 *
 * A new timer is written before the change, so a change never lands without its timer (a crash between the two
 * leaves only a stale timer); the old timer is dropped after it, in the background (for a request that ended,
 * only once its retention rewrite has landed).
 */
export class RequestChanges {
  private readonly updateQuery: string;
  /**
   * Changes made at about the same time share one unlogged batch: each touches its request's partition (and an
   * ended one its list entry), Cassandra spends more per message than per row, and the owner's writes need no
   * condition that would keep them apart. Writes carry their own timestamps, so a repeated one changes nothing.
   */
  private readonly writes = new WriteCoalescer<OwnerWrite>(
    (group) => this.write(group.flatMap((w) => w.statements), group[0]!.during),
    (w) => w.bytes,
    OWNER_WRITES,
    () => new StorageUnavailable('Cassandra is not keeping up with the changes of requests.'),
  );

  constructor(
    private readonly session: CassandraSession,
    private readonly timers: TimerEngine<RequestTimer>,
    private readonly shardCount: number,
    /** Starts work no caller waits for (a retention rewrite); the store's close waits for it. */
    private readonly background: (task: () => Promise<unknown>) => void,
    private readonly expiry: RequestExpiry,
    private readonly stamps: OwnerTimestamps,
    /**
     * Told of every change made here, with the epoch it was made under: what this process remembered of the
     * request is stale, and the request as it now is may be worth remembering (see `WorkingSet.changedHere`).
     */
    private readonly changed: (next: StoredRequest, basis: number) => void,
  ) {
    const columns = [...PATCH_FIELDS.map((f) => PATCH_COLUMNS[f]), 'version'];
    this.updateQuery = `UPDATE ${session.table('requests')} USING TIMESTAMP ? SET ${columns.map((c) => `${c} = ?`).join(', ')} WHERE id = ?`;
  }

  /** The epoch to note with a request this process reads or claims now in `shard` (see `apply`); null if none. */
  basis(shard: number): number | null {
    return this.stamps.basis(shard);
  }

  /**
   * Applies `change` to `current` (the request as this process last knew it) and returns the request as it now is;
   * null, writing nothing, when this process does not hold the request's shard, or someone else held it since
   * `basis`, the epoch under which `current` was read or claimed. `asOf` is the timer stamp (`TimerEngine.stamp`) taken before
   * `current` was read.
   */
  async apply(
    current: StoredRequest,
    change: Transition,
    asOf: number,
    basis: number,
    during: string,
    extras: ChangeExtras = {},
  ): Promise<StoredRequest | null> {
    const { attempt = null, version = current.version + 1, storedAs = null, callback = null } = extras;
    const next = applied(current, change, version);
    const before = storedAs === null ? current : { id: current.id, status: storedAs.status, dueAt: storedAs.dueAt };
    // An attempt recorded on a request already ended (one cancelled while the attempt was in flight) needs the
    // retention rewrite again, or its row would outlive the request.
    const ends = isTerminal(next.status) && (!isTerminal(before.status) || attempt !== null);
    const shard = shardOf(current.id, this.shardCount);
    const stamp = this.stamps.next(shard, basis);
    // Taken now, so it lies above this change and below any later one, whenever the rewrite runs.
    const rewriteStamp = ends ? this.stamps.next(shard, basis) : null;
    if (stamp === null || (ends && rewriteStamp === null)) return null;
    const { add, drop } = timerChange(this.shardCount, before, next);
    if (add !== null) await this.timers.write(add);
    // An ended request gets its time to live in the change itself where it can; otherwise a rewrite follows.
    const ending = ends ? await this.expiry.endingWrite(next, stamp, attempt) : null;
    const statements = ending?.statements ?? [this.ownerUpdate(next, stamp), ...(attempt === null ? [] : this.attemptWrites(attempt, current, next, stamp))];
    if (callback === null) await this.writes.submit({ statements, bytes: ending?.bytes ?? 0, during });
    else await this.endWithCallback(statements, callback, stamp, during);
    this.changed(next, basis);
    if (callback !== null) this.changed(callback, basis);
    if (ends && ending === null) this.ended(next, drop, asOf, rewriteStamp!, attempt);
    else if (drop !== null) this.timers.remove(drop, asOf);
    return next;
  }

  /**
   * Gives an ended request its time to live, then drops its old timer. The timer goes only once the rewrite has
   * landed: when the rewrite fails, or the process dies first, the timer stays behind, and the claim that finds it
   * stale calls this again (see `RequestClaims`). So no ended request keeps its rows for ever.
   */
  ended(r: StoredRequest, timer: RequestTimer | null, asOf: number, stamp: bigint, last: AttemptRecord | null = null): void {
    const rewrite = () => this.expiry.expire(r, stamp, last);
    if (timer === null) this.background(rewrite);
    else this.timers.removeAfter(timer, asOf, rewrite);
  }

  /**
   * `ended` for a stale timer found by a claim, unless this process is rewriting the request already (or no
   * longer holds its shard: the next owner's claim does it).
   */
  endedLongAgo(r: StoredRequest, timer: RequestTimer, asOf: number, basis: number): void {
    if (this.timers.pending(timer)) return;
    const stamp = this.stamps.next(shardOf(r.id, this.shardCount), basis);
    if (stamp !== null) this.ended(r, timer, asOf, stamp);
  }

  /**
   * The ending and the callback it creates as one logged batch: the batch log applies every statement or, after a
   * failure, replays them, so no ending lands without its callback and no callback without its ending. The
   * callback lives in another partition of the same shard (its ID is derived from the original's, see
   * `callbackRequestId`), written at the same owner timestamp, with its list entry and due timer: written again,
   * by this owner or one that lost the shard, it is the same callback.
   */
  private async endWithCallback(ending: readonly Statement[], callback: StoredRequest, stamp: bigint, during: string): Promise<void> {
    if (shardOf(callback.id, this.shardCount) !== shardOf(callback.callbackForRequestId ?? '', this.shardCount)) {
      throw new Error(`Callback ${callback.id} is not on the shard of request ${callback.callbackForRequestId}.`);
    }
    const timer = timerOf(this.shardCount, callback);
    const timers = timer === null ? [] : [timer];
    const statements = [
      ...ending,
      insertCallback(this.session, callback, stamp),
      insertListEntry(this.session, callback),
      ...insertIndexRows(this.session, callback),
      insertProjectDay(this.session, callback.projectId, dayOf(callback.createdAt)),
      ...this.timers.statements(timers),
    ];
    await this.session.batch(statements, during, { logged: true, idempotent: true });
    this.timers.written(timers);
  }

  /** One statement as it is, several as an unlogged batch; repeating either changes nothing (owner timestamps). */
  private async write(statements: readonly Statement[], during: string): Promise<void> {
    const [only] = statements;
    if (statements.length === 1) await this.session.execute(only!.query, only!.params ?? [], during, { idempotent: true });
    else await this.session.batch(statements, during, { logged: false, idempotent: true });
  }

  /**
   * The attempt's row, its status code in the request's list entry, and the code's index row moved when the code
   * changed (`statusCodeMove`): where the list's filter finds it.
   */
  private attemptWrites(attempt: AttemptRecord, current: StoredRequest, next: StoredRequest, stamp: bigint): Statement[] {
    const entry = listEntryStatusCode(this.session, next, current, stamp);
    const moved = statusCodeMove(this.session, next, current, stamp);
    return [insertAttempt(this.session, attempt, stamp), ...(entry === null ? [] : [entry]), ...moved];
  }

  /**
   * Every changing cell of the request as `next` has it, not only those the change names: an owner that lost the
   * shard may have written any of them, and a cell the new owner never wrote would still show its value.
   */
  private ownerUpdate(next: StoredRequest, stamp: bigint): Statement {
    return {
      query: this.updateQuery,
      params: [timestampValue(stamp), ...PATCH_FIELDS.map((f) => patchValue(f, next[f])), next.version, next.id],
    };
  }
}
