import type { StoredRequest } from '../../domain/request.js';
import type { ShardScope } from '../../ports/requests.js';
import type { DueWakeups, Wakeable } from './due-wakeups.js';

/**
 * Where stored work gets done: by this very process (embedded), or by whichever process owns the work's shard
 * (distributed). The API side tells it of new requests; the workers ask it which work to claim, and it wakes them
 * when work may be due.
 */
export interface WorkPlacement {
  /** Limits every worker's claims, asked before each; undefined when this process does all work in storage. */
  readonly shards: (() => ShardScope) | undefined;
  /**
   * Starts taking part in delivery: leases a previous owner left are released, and `engine` is woken when
   * accepted requests, or requests another process stored in a shard this process owns, may be due.
   */
  startDelivery(engine: Wakeable): Promise<void>;
  /**
   * Adds another worker over the same shards: it is woken whenever this process starts owning a new assignment,
   * and the wake-ups returned turn news of its own stored work into timely looks (`pollMs`: the worker looks at
   * storage at least this often by itself). They stop with the placement.
   */
  join(worker: Wakeable, pollMs: number): DueWakeups;
  /** New requests are durable. */
  accepted(requests: readonly StoredRequest[]): void;
  stop(): Promise<void>;
}

/** Where placement's own lines go: the service log. */
export type PlacementLog = (level: 'info' | 'warn' | 'error', msg: string, fields: Record<string, unknown>) => void;
