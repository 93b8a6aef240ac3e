import type { WaitingFor } from '../domain/flow/budgets.js';
import type { AttemptRecord, HttpMethod, RequestSource, RequestStatus, StoredRequest } from '../domain/request.js';
import type { Settlement } from '../domain/request-lifecycle/index.js';

/** A page position: the list is ordered by (createdAt desc, id desc). */
export interface ListPosition {
  readonly createdAt: number;
  readonly id: string;
}

export interface RequestListQuery {
  readonly projectId: string;
  readonly status?: RequestStatus;
  /** Exact request ID match. */
  readonly id?: string;
  /** Case-insensitive substring of the URL. */
  readonly urlContains?: string;
  readonly method?: HttpMethod;
  readonly source?: RequestSource;
  /** Only requests created by this schedule (their `scheduleId`). */
  readonly scheduleId?: string;
  /** Only requests of this queue (exact name). */
  readonly queue?: string;
  /** Only requests whose `flowKeys` include this key. */
  readonly flowKey?: string;
  /**
   * Only requests whose last attempt's response had this HTTP status code (`lastStatusCode`): requests not
   * attempted yet, or whose last attempt got no response, never match.
   */
  readonly responseStatusCode?: number;
  /** Inclusive lower bound of createdAt. */
  readonly from?: number;
  /** Exclusive upper bound of createdAt. */
  readonly to?: number;
  /** Terminal requests created before this are left out; active ones never are. */
  readonly terminalCutoff: number;
  /** Return only items strictly after this position in list order. */
  readonly after?: ListPosition;
  readonly limit: number;
}

/**
 * The shards (see `shardOf`) a call is limited to; omitted means every shard. A backend whose storage only ever
 * has one delivering process (the embedded one) keeps no shards and treats every scope as all of its work.
 */
export type ShardScope = readonly number[];

/** Where a recorded attempt left its request. */
export type RecordedState = Pick<StoredRequest, 'status' | 'dueAt' | 'version'>;

/**
 * A request claimed for delivery: what `claimDue` hands out, and what its deliverer passes back with the one change
 * it makes of it next (`recordAttempt`, `handBack`, `cancelClaimed`). It carries what the store that made it needs
 * to make that change without looking the request up again: the version claimed and, for a distributed store, the
 * shard epoch it was claimed under and whether the claim is stored yet. Only the store that made it understands
 * it; the deliverer reads `request` and nothing else. A claim serves one change: once that change is made, the
 * claim is spent, and a second change through it fails with `VersionConflict`.
 */
export interface Claim {
  /**
   * The request as claimed: `delivering` with `dueAt` = the lease's end, `updatedAt` = the claim's time,
   * `startedAt` set if it was null, and its version moved on.
   */
  readonly request: StoredRequest;
  /**
   * The claim as its deliverer keeps it once the attempt is sent, while the outcome is computed and written:
   * without what the store will not need again (the body and headers, unless the store writes them again).
   */
  sent(): Claim;
}

/**
 * Durable storage of requests and their attempts. Every write resolves only once it is durable.
 *
 * Two kinds of writer change a request. Its deliverer (the owner of its shard, see `shardOf`) claims it
 * (`claimDue`), then makes one change through the claim: records an attempt, hands it back, or makes a cancel
 * final; a process that takes over shards releases the leases left in them (`releaseLeases`). Everyone else only
 * asks for a cancel (`requestCancel`), which the deliverer makes final at its next change. The deliverer's changes
 * fail with a typed `VersionConflict` when the request is no longer as claimed, as far as this process can tell. A
 * backend with one delivering process (embedded) checks the stored version in the same transaction; a backend with
 * many (distributed) fences them by shard ownership instead: a change made by a process that no longer holds the
 * request's shard never wins over the changes of the shard's new owner, whenever it lands, and a process that knows
 * it does not hold the shard refuses the change with `VersionConflict`. Each change is a transition of the
 * request's lifecycle (`src/domain/request-lifecycle/`).
 */
export interface RequestStore {
  /** Stores new requests, all or none. */
  insertMany(requests: readonly StoredRequest[]): Promise<void>;
  /** The request, or null when it does not exist in this project. */
  get(projectId: string, id: string): Promise<StoredRequest | null>;
  /**
   * Matching requests in list order, at most `limit`. An occurrence withdrawn before its instant (`isWithdrawn`)
   * never existed and is never listed; `get` still finds it.
   */
  list(query: RequestListQuery): Promise<StoredRequest[]>;
  /** True when the project has terminal requests created before `cutoff`. */
  hasTerminalBefore(projectId: string, cutoff: number): Promise<boolean>;
  /**
   * Claims up to `limit` due requests of any project for delivery (the `claimed` transition), oldest `dueAt` first:
   * `queued` and `scheduled` requests with `dueAt <= now`, and `delivering` requests whose lease ran out
   * (`dueAt <= now`), which a stopped worker left behind. Concurrent calls, from any process, never return the same
   * request. A claim of a request whose lease ran out fences the worker that held it: that worker's change fails with
   * `VersionConflict`.
   *
   * A backend may keep a claim in the claiming process for a while instead of storing it at once, and store it with
   * the claim's change as one write (see the Cassandra adapter's notes): readers meanwhile see the request as it was
   * before the claim, and it is stored as claimed by the time a long attempt would need its lease.
   */
  claimDue(now: number, limit: number, leaseUntil: number, shards?: ShardScope): Promise<Claim[]>;
  /**
   * Stores the attempt `settled` records, applies its change to the request (`settleAttempt` of the claim's
   * request) and inserts the callback its ending makes, if any, as one atomic write, and counts that callback in
   * its project's usage without a limit; on `VersionConflict` nothing is stored (see `reread`). The callback's ID
   * is the same for every settling of that ending, so no write of it makes a second one. `settled.attempt.requestId`
   * is the claim's request. Answers only the state the request was left in: this is the delivery hot path, and the
   * request's body and headers would be read and copied for nothing.
   */
  recordAttempt(claim: Claim, settled: Settlement): Promise<RecordedState>;
  /**
   * Hands the claimed request back unsent (`handedBack`): due again at `dueAt`, with `waitingFor` naming the budget
   * that held it back (null when none did: no free slot, shutting down). `VersionConflict` as `recordAttempt`.
   */
  handBack(claim: Claim, now: number, dueAt: number, waitingFor?: WaitingFor | null): Promise<void>;
  /**
   * Makes due at `now` the requests of `ids` that a budget held back and that are still waiting for one (`queued`
   * with a `waitingFor`, due after `now`): the `woken` transition, e.g. when a paused budget is resumed. Others
   * (claimed, ended, cancelled, not held, unknown) are left as they are. Called by the deliverer that held them,
   * which owns their shards; in distributed mode a process that no longer holds a request's shard leaves it alone
   * (it comes back on its own when due). Answers how many it moved.
   */
  wakeHeld(ids: readonly string[], now: number): Promise<number>;
  /**
   * Makes final a cancel asked before the claim (`cancelMadeFinal`): the request ends `cancelled`, with no attempt.
   * `VersionConflict` as `recordAttempt`.
   */
  cancelClaimed(claim: Claim, now: number): Promise<void>;
  /**
   * Whether an attempt may start through `claim` now. A backend with many delivering processes answers false when
   * this process may no longer be the request's deliverer (the request's shard moved since the claim, or may be
   * moving); the deliverer then hands the request back instead of sending it. Answered from memory: it is asked
   * before every attempt. Omitted: always.
   */
  mayStart?(claim: Claim): boolean;
  /**
   * After a change through `claim` failed with `VersionConflict`: a claim on the request as it now stands, when all
   * that changed it since the claim is a cancel (`stillClaimed`), so the attempt can still be recorded with the cancel
   * taken into account; null when the claim was lost (taken over, or the request moved on).
   */
  reread(claim: Claim): Promise<Claim | null>;
  /**
   * The earliest `dueAt` among requests `claimDue` could claim (including expired leases), or null. A backend may
   * look only so far ahead (it says how far) and answer null beyond that: callers poll again within that horizon.
   */
  nextDueAt(shards?: ShardScope): Promise<number | null>;
  /**
   * The URLs of up to `limit` requests `claimDue` could claim by `until`, soonest first: delivery opens connections
   * to their destinations ahead of a burst due at one instant. Optional: a backend that cannot answer it with a
   * cheap read leaves it out, and attempts then connect when they start.
   */
  dueUrls?(until: number, limit: number, shards?: ShardScope): Promise<string[]>;
  /**
   * Makes every stored lease end at once (`leaseReleased`: due at `now`, still `delivering`), its version moved on so
   * a worker still holding the claim cannot record over the next owner. Only a process that knows no other process
   * delivers from this storage may call it: the embedded single-process mode does at start, after a crash, and a
   * process that has just taken over `shards` (fencing out their previous owner) does for those shards.
   */
  releaseLeases(now: number, shards?: ShardScope): Promise<number>;
  /**
   * Asks for request `id` to be cancelled, on behalf of anyone but its deliverer (the API, the scheduler): true when
   * this call recorded the cancel; false when the request is not in this project, has ended, or a cancel was
   * recorded already (read it again to tell). From then on the request reads as `decideCancel` says it becomes: a
   * request with no attempt in flight reads `cancelled` (`cancelledAt` = `now`), one with an attempt in flight
   * keeps `delivering` with `cancelRequestedAt` = `now`, and that attempt's outcome leaves it `cancelled` unless
   * it succeeded. Never races the deliverer's changes into a `VersionConflict`.
   */
  requestCancel(projectId: string, id: string, now: number): Promise<boolean>;
  /** Completed attempts of a request, oldest first; empty when the request is not in this project. */
  listAttempts(projectId: string, requestId: string): Promise<AttemptRecord[]>;
}

/** Thrown by conditional writes whose condition no longer holds. */
export class VersionConflict extends Error {
  override readonly name = 'VersionConflict';
}
