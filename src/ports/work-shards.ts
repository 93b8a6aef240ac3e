import type { StoredRequest } from '../domain/request.js';
import type { ShardScope } from './requests.js';

/** News that a request's work was stored in a shard: it is due at `dueAt` (possibly already). */
export interface WorkNotice {
  readonly requestId: string;
  readonly shard: number;
  readonly dueAt: number;
  /** The request as stored, when small enough to carry: its owner can then deliver it without reading it. */
  readonly request?: StoredRequest;
}

/** News for the owner of `shard` that a cancel of `requestId` was asked for and stored. */
export interface CancelNotice {
  readonly requestId: string;
  readonly shard: number;
}

/** What a process does as shards move to and from it. */
export interface ShardListener {
  /**
   * The assignment was fenced and claims may start; `shards` are those new to this process since its previous
   * assignment (possibly none), which a previous owner may have left with leases.
   */
  onGained(shards: ShardScope): Promise<void>;
  /** Work in an owned shard was stored by some process; look for due work. */
  onWork(notices: readonly WorkNotice[]): void;
  /** Cancels of requests in an owned shard were stored by some other process. */
  onCancelsAsked(requestIds: readonly string[]): void;
}

/**
 * Which shards of delivery and timer work this process owns. Group membership decides ownership; a shard is
 * reported as owned only after it was fenced, and stops being owned as soon as a rebalance begins, so two
 * processes never claim work of one shard at once.
 */
export interface ShardOwnership {
  start(listener: ShardListener): Promise<void>;
  /** Shards owned right now; empty while a rebalance is under way or the group is unreachable. */
  owned(): ShardScope;
  stop(): Promise<void>;
}

/**
 * Tells the owner of a shard that work was stored there. Best effort by design: the stored timer is the durable
 * record of the work, so a notice that is lost only delays it until the owner's next scan.
 */
export interface WorkNotifier {
  notify(notices: readonly WorkNotice[]): void;
  /**
   * Tells the shard's owner of a stored cancel, resolved once the message is durable: unlike work, a cancel
   * exists nowhere the owner would look before delivering a request it holds in memory.
   */
  announceCancel(notice: CancelNotice): Promise<void>;
  close(): Promise<void>;
}

/**
 * The work of owned shards that storage keeps in memory, where it keeps any (the owner's working set), told what
 * the shards' notices carry from other processes.
 */
export interface OwnerWorkingSet {
  /** Requests another process stored in shards this one owns, as carried by their notices. */
  acceptedElsewhere(requests: readonly StoredRequest[]): void;
  /** Cancels another process stored for requests in shards this one owns: what it remembers of them is stale. */
  cancelsAsked(requestIds: readonly string[]): void;
}

/**
 * Fences shard ownership: taking a shard raises its epoch with a conditional write, and a holder can check
 * that nobody took it since.
 */
export interface ShardFence {
  /** Takes `shard` for `owner`; returns the new epoch. */
  acquire(shard: number, owner: string): Promise<number>;
  /**
   * The shards of `held` (shard → the epoch this process holds) that another process took since, with the epoch it
   * took them at (higher than the one held), read together. A check made again and again: a takeover still being
   * decided shows at a later check.
   */
  superseded(held: ReadonlyMap<number, number>): Promise<Map<number, number>>;
}
