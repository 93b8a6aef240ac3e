import { systemClock, type Clock } from '../../../domain/clock.js';
import type { WaitingFor } from '../../../domain/flow/budgets.js';
import type { AttemptRecord, StoredRequest } from '../../../domain/request.js';
import { ACTIVE_STATUSES, cancelMadeFinal, handedBack, type Settlement } from '../../../domain/request-lifecycle/index.js';
import { allShards, shardOf } from '../../../domain/shards.js';
import { StorageUnavailable } from '../../../ports/errors.js';
import type { Claim, RecordedState, RequestListQuery, RequestStore, ShardScope } from '../../../ports/requests.js';
import type { ShardEpochs } from '../../../ports/shard-epochs.js';
import type { UsageStore } from '../../../ports/usage.js';
import { usagePeriod } from '../../../domain/usage-period.js';
import type { WorkNotifier } from '../../../ports/work-shards.js';
import { statusList } from '../../request-patch-columns.js';
import { OwnerTimestamps } from '../ownership/owner-timestamps.js';
import { applied, type CassandraSession, type Statement } from '../session.js';
import { InFlight, mapBounded } from '../shared/concurrency.js';
import { WriteCoalescer, type CoalescerLimits } from '../shared/write-coalescer.js';
import { WrittenEntries } from '../shared/written-entries.js';
import { TimerEngine, type TimerFloorSettings } from '../timers/engine.js';
import { CassandraClaim, ClaimsOut } from './claim.js';
import { ClaimChanges } from './claim-changes.js';
import { RequestChanges } from './changes.js';
import { RequestClaims } from './claims.js';
import { RequestExpiry } from './expiry.js';
import { insertIndexRows } from './list-indexes.js';
import { RequestList } from './list.js';
import { REQUEST_BATCHES, RequestRows, dayOf, insertBody, insertListEntry, insertProjectDay, insertRequest } from './rows.js';
import { REQUEST_TIMERS, timerOf, type RequestTimer } from './timers.js';
import { HeldWakes } from './wakes.js';
import { WorkingSet } from './working-set.js';

export interface CassandraRequestStoreOptions {
  /** Shards of timer work; fixed for the life of a deployment. */
  readonly shardCount: number;
  /**
   * How long a claim may stay held in this process before it is stored (see `ClaimChanges`); 0 stores every claim
   * at once. Default `CLAIM_STORED_AFTER_MS`.
   */
  readonly claimStoredAfterMs?: number;
  /** Where reads of timer buckets may start (see `TimerFloors`). Default `TIMER_FLOORS`. */
  readonly timerFloors?: TimerFloorSettings;
  /** Default `systemClock`. */
  readonly clock?: Clock;
  /**
   * The shards this process holds, asked on every change it makes as their owner: given by whatever decides
   * ownership. Default none: a process that takes no part in delivery makes no such change.
   */
  readonly epochs?: ShardEpochs;
  /**
   * Tells the owner of a request's shard, when that is another process, that a cancel was asked for here (see
   * `requestCancel`). Default none: a process that accepts no API calls asks for no cancel.
   */
  readonly cancelNotices?: Pick<WorkNotifier, 'announceCancel'>;
  /** Where callbacks are counted (see `countCallback`). Default none: nothing is counted. */
  readonly usage?: Pick<UsageStore, 'reserve'>;
}

/** The epochs of a process that holds no shard. */
const NO_SHARDS: ShardEpochs = { held: () => null };

/**
 * Longer than an attempt to a responsive destination usually takes, including the wait for a free slot (the
 * engine hands a claim back after 2 s without one), so most deliveries store their claim with their outcome.
 */
export const CLAIM_STORED_AFTER_MS = 3_000;

/** A batch create's bodies up to this size are written in its logged batch (at most 100 × 1 KiB there). */
const BODY_IN_BATCH_BYTES = 1024;

/** Body writes under way at once for one `insertMany`: bounds the bytes in flight. */
const BODY_WRITES_AT_ONCE = 4;

/**
 * Single requests written together (see `WriteCoalescer`): up to 16 a write, 8 writes under way at once. Measured
 * against 8 a write and 16 at once (64 connections, one process): 2,236–2,468 against 1,886–2,172 accepted/s,
 * and 0.50–0.59 against 0.69–0.80 ms of CPU per request, all processes; 32 a write with 4 at once was slower.
 */
const SINGLE_INSERTS: CoalescerLimits = { ...REQUEST_BATCHES, itemsPerWrite: 16, writesAtOnce: 8 };

/**
 * Requests in Cassandra. A request is one partition: its fields are static columns, its attempts are rows, so
 * every change (and an attempt with it) is one write. The owner of the request's shard makes every change of its
 * state with a plain write at an owner timestamp (see `RequestChanges`, `OwnerTimestamps`); a process that holds
 * no shards (no `epochs` given, or not the request's) refuses such changes with `VersionConflict`. Anyone
 * else only asks for a cancel, in a cell of its own (`requestCancel`). Due work is found through `timers`, hints
 * that a claim checks against the request; the list through `requests_by_project`.
 *
 * `nextDueAt` looks at the first `NEXT_DUE_BUCKETS` minute buckets listed for each shard: when all of them are
 * empty it answers the time a claim may drop the oldest (by then due timers behind them are in reach), and null
 * only when no bucket is listed. A stale timer can make it answer early; the claim that follows clears it.
 * `hasTerminalBefore` checks the newest `HISTORY_CHECKED` requests created before the cutoff.
 */
export class CassandraRequestStore implements RequestStore {
  private readonly inFlight = new InFlight('The Cassandra request store');
  private readonly rows: RequestRows;
  private readonly timers: TimerEngine<RequestTimer>;
  private readonly changes: RequestChanges;
  private readonly claims: RequestClaims;
  private readonly wakes: HeldWakes;
  private readonly lists: RequestList;
  private readonly shards: readonly number[];
  /** `project/day` entries of `project_days` already written; they are never deleted. */
  private readonly listedDays = new WrittenEntries();
  /**
   * The owner's working set, and what goes in and out of it; told by the shards' notices of work accepted and
   * cancels asked for elsewhere.
   */
  readonly workingSet: WorkingSet;
  /** The claims handed out whose change is not made yet (see `ClaimsOut`). */
  private readonly out: ClaimsOut;
  private readonly claimChanges: ClaimChanges;
  private readonly cancelQuery: string;
  private readonly stamps: OwnerTimestamps;
  private readonly epochs: ShardEpochs;
  private readonly singles = new WriteCoalescer<StoredRequest>(
    (group) => this.insertSingles(group),
    (r) => r.body?.byteLength ?? 0,
    SINGLE_INSERTS,
    () => new StorageUnavailable('Cassandra is not keeping up with accepted requests; try again shortly.'),
  );

  constructor(
    private readonly session: CassandraSession,
    private readonly options: CassandraRequestStoreOptions,
  ) {
    const clock = options.clock ?? systemClock;
    const epochs = options.epochs ?? NO_SHARDS;
    this.out = new ClaimsOut(clock, (claim) => void this.claimChanges.storeHeld(claim));
    this.workingSet = new WorkingSet(options.shardCount, clock, epochs, (id) => this.out.cancelAsked(id));
    this.rows = new RequestRows(session);
    this.timers = new TimerEngine(session, REQUEST_TIMERS, {
      clock,
      background: (task) => this.inFlight.background(task),
      ...(options.timerFloors !== undefined ? { floors: options.timerFloors } : {}),
    });
    const expiry = new RequestExpiry(session, this.rows, clock);
    const stamps = new OwnerTimestamps(epochs, clock);
    this.stamps = stamps;
    this.epochs = epochs;
    this.changes = new RequestChanges(session, this.timers, options.shardCount, (task) => this.inFlight.background(task), expiry, stamps, (next, basis) => this.workingSet.changedHere(next, basis));
    // The cell is the asker's own; the condition keeps a second cancel, or one of an ended request, from landing.
    this.cancelQuery = `UPDATE ${session.table('requests')} SET cancel_asked_at = ? WHERE id = ?
      IF project_id = ? AND cancel_asked_at = null AND status IN ${statusList(ACTIVE_STATUSES)}`;
    const storeAfterMs = options.claimStoredAfterMs ?? CLAIM_STORED_AFTER_MS;
    this.claimChanges = new ClaimChanges(this.rows, this.changes, this.out, () => this.timers.stamp(), this.inFlight, clock, storeAfterMs, options.shardCount);
    this.claims = new RequestClaims(this.rows, this.timers, this.changes, this.inFlight, this.out, this.claimChanges, clock, this.workingSet.dueSoon, (id) =>
      this.workingSet.beingAccepted(id),
    );
    this.wakes = new HeldWakes(this.rows, this.changes, () => this.timers.stamp(), options.shardCount, (timer, work) => this.claims.asClaimOf(timer, work));
    this.lists = new RequestList(session, this.rows);
    this.shards = allShards(options.shardCount);
  }

  /**
   * A request accepted on its own needs no batch log: its own partition is written last and is the moment it
   * exists. The list entry and timer written before it point at nothing until then, and every reader skips such
   * entries, so a failure in between leaves no request, only hints that a later pass drops. Such requests arriving
   * together share their writes (`insertSingles`).
   *
   * Several requests go in one logged batch, so they appear all or none. Bodies over 1 KiB are written first,
   * each into its own partition (a partition with only a body is no request yet), so they do not weigh on the batch
   * log; smaller ones ride in the batch.
   */
  insertMany(requests: readonly StoredRequest[]): Promise<void> {
    return this.inFlight.run(async () => {
      if (requests.length === 0) return;
      const bases = requests.map((r) => this.changes.basis(shardOf(r.id, this.options.shardCount)));
      const written = this.workingSet.writing(requests);
      try {
        await this.writeNew(requests);
        // Requests due soon in shards held since before the write join the working set: their claims read nothing.
        this.workingSet.acceptedHere(requests, bases);
      } finally {
        written();
      }
    });
  }

  /** The writes of `insertMany`, as described there. */
  private async writeNew(requests: readonly StoredRequest[]): Promise<void> {
    if (requests.length === 1) return this.singles.submit(requests[0]!);
    // Small bodies ride in the batch with their request (one mutation of its partition instead of two); larger ones
    // go first, on their own, so they do not weigh on the batch log.
    const inBatch = (r: StoredRequest) => r.body !== null && r.body.byteLength <= BODY_IN_BATCH_BYTES;
    const bodies = bodyGroups(requests.filter((r) => r.body !== null && !inBatch(r)));
    await mapBounded(bodies, BODY_WRITES_AT_ONCE, (group) =>
      this.session.writeTogether(
        group.map((r) => insertBody(this.session, r.id, r.body!)),
        'storing request bodies',
      ),
    );
    const { statements, timers, days } = this.indexStatements(requests);
    statements.push(...requests.map((r) => insertRequest(this.session, r, inBatch(r) ? r.body : null)));
    // Safe to send again, as the singles' writes of the same statements are: a repeated (or late replayed) insert
    // writes the same values at a clock timestamp, below every owner write (Shards, owners and fencing). So the
    // driver retries it on another node when the batch log write timed out or the connection was lost.
    await this.session.batch(statements, 'storing requests', { logged: true, idempotent: true });
    this.indexWritten(timers, days);
  }

  /**
   * Independent single requests: their list entries and timers in one unlogged batch, then their own partitions
   * (bodies included) in another. Unlogged batches only save messages; each request still appears when its own
   * partition is written, so a batch applied in part leaves whole requests or none.
   */
  private async insertSingles(group: readonly StoredRequest[]): Promise<void> {
    const { statements, timers, days } = this.indexStatements(group);
    await this.session.writeTogether(statements, 'storing requests');
    await this.session.writeTogether(
      group.map((r) => insertRequest(this.session, r, r.body)),
      'storing requests',
    );
    this.indexWritten(timers, days);
  }

  get(projectId: string, id: string): Promise<StoredRequest | null> {
    return this.inFlight.run(async () => {
      const r = await this.rows.requestAsRead(id, 'reading a request');
      return r !== null && r.projectId === projectId ? r : null;
    });
  }

  list(query: RequestListQuery): Promise<StoredRequest[]> {
    return this.inFlight.run(() => this.lists.list(query));
  }

  hasTerminalBefore(projectId: string, cutoff: number): Promise<boolean> {
    return this.inFlight.run(() => this.lists.hasTerminalBefore(projectId, cutoff));
  }

  recordAttempt(claim: Claim, settled: Settlement): Promise<RecordedState> {
    const { attempt, change, callback } = settled;
    if (attempt.requestId !== claim.request.id) return Promise.reject(new Error(`Attempt of ${attempt.requestId} recorded on request ${claim.request.id}.`));
    return this.inFlight.run(async () => {
      const { status, dueAt, version } = await this.claimChanges.change(claim, change, 'recording an attempt', attempt, callback);
      if (callback !== null) this.countCallback(callback);
      return { status, dueAt, version };
    });
  }

  handBack(claim: Claim, now: number, dueAt: number, waitingFor: WaitingFor | null = null): Promise<void> {
    return this.inFlight.run(async () => {
      await this.claimChanges.change(claim, handedBack(claim.request, now, dueAt, waitingFor), 'handing a request back');
    });
  }

  /** Of the requests in shards this process holds; others come back on their own when due (see `HeldWakes`). */
  wakeHeld(ids: readonly string[], now: number): Promise<number> {
    return this.inFlight.run(() => this.wakes.wake(ids, now));
  }

  cancelClaimed(claim: Claim, now: number): Promise<void> {
    return this.inFlight.run(async () => {
      await this.claimChanges.change(claim, cancelMadeFinal(claim.request, now), 'cancelling a claimed request');
    });
  }

  /**
   * False when the claim's change is made or lost, or this process may have lost the request's shard since the claim:
   * it does not hold it now, someone else held it since the claim's epoch, or it may be moving
   * (`ShardEpochs.delivering`). From memory, so every attempt can ask.
   */
  mayStart(claim: Claim): boolean {
    const c = CassandraClaim.of(claim);
    const shard = shardOf(c.request.id, this.options.shardCount);
    return c.over === null && this.stamps.heldSince(shard, c.basis) !== null && (this.epochs.delivering?.(shard) ?? true);
  }

  reread(claim: Claim): Promise<Claim | null> {
    return this.inFlight.run(() => this.claimChanges.reread(claim));
  }

  claimDue(now: number, limit: number, leaseUntil: number, shards: ShardScope = this.shards): Promise<Claim[]> {
    return this.inFlight.run(() => this.claims.claimDue(now, limit, leaseUntil, shards));
  }

  nextDueAt(shards: ShardScope = this.shards): Promise<number | null> {
    return this.inFlight.run(() => this.claims.nextDueAt(shards));
  }

  releaseLeases(now: number, shards: ShardScope = this.shards): Promise<number> {
    return this.inFlight.run(() => this.claims.releaseLeases(now, shards));
  }

  /**
   * One conditional write (a Paxos round) on the cancel's own cell: cancels are rare beside deliveries, and the
   * condition keeps the answer exact. Readers merge the cell in at once (`asRead`); the owner of the request's
   * shard finds it at its next claim of the request and makes the cancel final.
   */
  requestCancel(projectId: string, id: string, now: number): Promise<boolean> {
    return this.inFlight.run(async () => {
      if (!applied(await this.session.execute(this.cancelQuery, [now, id, projectId], 'cancelling a request'))) return false;
      this.workingSet.cancelsAsked([id]);
      const shard = shardOf(id, this.options.shardCount);
      const notices = this.options.cancelNotices;
      if (notices !== undefined && this.changes.basis(shard) === null) await notices.announceCancel({ requestId: id, shard });
      return true;
    });
  }

  listAttempts(projectId: string, requestId: string): Promise<AttemptRecord[]> {
    return this.inFlight.run(() => this.rows.attempts(projectId, requestId, 'listing attempts'));
  }

  /**
   * Counts a callback in its project's usage, once its ending has landed: a conditional write of its own (usage is
   * changed under Paxos, which no batch can carry), never refused by the allowance. Nobody waits for it; a crash or
   * an unreachable cluster before it lands leaves that callback uncounted.
   */
  private countCallback(callback: StoredRequest): void {
    const usage = this.options.usage;
    if (usage === undefined) return;
    this.inFlight.background(() => usage.reserve(callback.projectId, usagePeriod(callback.createdAt), 1, Number.MAX_SAFE_INTEGER).catch(() => false));
  }

  /** Waits for every operation and clean-up under way; later calls fail. The session is closed by its owner. */
  close(): Promise<void> {
    this.out.close();
    this.timers.close();
    return this.inFlight.close();
  }

  /**
   * What points at new requests: list entries, their index rows and timers, plus the day and bucket entries this process has not
   * written yet (see `WrittenEntries`).
   */
  private indexStatements(requests: readonly StoredRequest[]): { statements: Statement[]; timers: RequestTimer[]; days: string[] } {
    const statements: Statement[] = [];
    const timers: RequestTimer[] = [];
    const days = new Set<string>();
    for (const r of requests) {
      statements.push(insertListEntry(this.session, r), ...insertIndexRows(this.session, r));
      const day = dayOf(r.createdAt);
      const dayKey = `${r.projectId}/${day}`;
      if (!days.has(dayKey) && !this.listedDays.has(dayKey)) {
        days.add(dayKey);
        statements.push(insertProjectDay(this.session, r.projectId, day));
      }
      const timer = timerOf(this.options.shardCount, r);
      if (timer !== null) timers.push(timer);
    }
    statements.push(...this.timers.statements(timers));
    return { statements, timers, days: [...days] };
  }

  private indexWritten(timers: readonly RequestTimer[], days: readonly string[]): void {
    this.timers.written(timers);
    for (const day of days) this.listedDays.add(day);
  }
}

/**
 * The bodies of a batch create in groups of at most `REQUEST_BATCHES` size, each written as one unlogged batch:
 * one message instead of one per body. A body partition alone is no request, so a group written in part is
 * harmless.
 */
function bodyGroups(requests: readonly StoredRequest[]): StoredRequest[][] {
  const groups: StoredRequest[][] = [];
  let bytes = 0;
  for (const r of requests) {
    const size = r.body!.byteLength;
    const last = groups.at(-1);
    if (last === undefined || last.length >= REQUEST_BATCHES.itemsPerWrite * 2 || bytes + size > REQUEST_BATCHES.bytesPerWrite) {
      groups.push([r]);
      bytes = size;
    } else {
      last.push(r);
      bytes += size;
    }
  }
  return groups;
}
