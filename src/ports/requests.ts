import type { AttemptRecord, HttpMethod, RequestPatch, RequestSource, RequestStatus, StoredRequest } from '../domain/request.js';

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

export type { RequestPatch } from '../domain/request.js';

/**
 * The shards (see `shardOf`) a call is limited to; omitted means every shard. A backend whose storage only ever
 * has one delivering process (the embedded one) keeps no shards and treats every scope as all of its work.
 */
export type ShardScope = readonly number[];

/** Where a recorded attempt left its request. */
export type RecordedState = Pick<StoredRequest, 'status' | 'dueAt' | 'version'>;

/**
 * Durable storage of requests and their attempts. Every write resolves only once it is durable.
 *
 * Two kinds of writer change a request. Its deliverer (the owner of its shard, see `shardOf`) changes its state:
 * `update`, `recordAttempt`, `claimDue`, `releaseLeases`. Everyone else only asks for a cancel (`requestCancel`),
 * which the deliverer makes final at its next change. The deliverer's changes name the version they start from and
 * fail with a typed `VersionConflict` when the request is not at it, as far as this process can tell. A backend
 * with one delivering process (embedded) checks the stored version in the same transaction; a backend with many
 * (distributed) fences them by shard ownership instead: a change made by a process that no longer holds the
 * request's shard never wins over the changes of the shard's new owner, whenever it lands, and a process that knows
 * it does not hold the shard refuses the change with `VersionConflict`.
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
   * The deliverer's change: applies `patch` when the request is at `expectedVersion`, increments the version and
   * returns the updated request. Throws `VersionConflict` when the version differs, when the request does not
   * exist in this project, and when this process does not own the request's shard. Patch keys whose value is
   * `undefined` leave their field unchanged.
   */
  update(projectId: string, id: string, expectedVersion: number, patch: RequestPatch): Promise<StoredRequest>;
  /**
   * Stores a completed attempt of request `id` and applies `patch` to the request, as one atomic write under the
   * same conditions as `update`: on `VersionConflict` neither is stored. `attempt.requestId` must equal `id`.
   * Answers only the state the request was left in, not the whole request: this is the delivery hot path, and
   * the request's body and headers would be read and copied for nothing.
   */
  recordAttempt(
    projectId: string,
    id: string,
    expectedVersion: number,
    attempt: AttemptRecord,
    patch: RequestPatch,
  ): Promise<RecordedState>;
  /**
   * Claims up to `limit` due requests of any project for delivery, oldest `dueAt` first, and returns them as
   * claimed: `queued` and `scheduled` requests with `dueAt <= now`, and `delivering` requests whose lease ran out
   * (`dueAt <= now`), which a stopped worker left behind. A claimed request is `delivering` with
   * `dueAt = leaseUntil`, `updatedAt = now`, `startedAt` set to `now` if it was null, and its version incremented,
   * so a worker that outlives its lease gets `VersionConflict` on its next write. Concurrent calls, from any
   * process, never return the same request.
   */
  claimDue(now: number, limit: number, leaseUntil: number, shards?: ShardScope): Promise<StoredRequest[]>;
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
   * Makes every `delivering` request claimable at once (`dueAt = now`), bumping its version so a worker still
   * holding it cannot record over the next owner. Only a process that knows no other process delivers from this
   * storage may call it: the embedded single-process mode does at start, after a crash, and a process that has
   * just taken over `shards` (fencing out their previous owner) does for those shards.
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
