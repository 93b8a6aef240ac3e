/** The epoch under which this process holds a shard, and when it took it (milliseconds, from the process's clock). */
export interface HeldEpoch {
  readonly epoch: number;
  readonly since: number;
  /**
   * The first epoch of this process's unbroken hold of the shard (it took every epoch from there to `epoch`, nobody
   * else took one in between): what it read or claimed under any of them is still the shard's current state.
   */
  readonly heldFrom: number;
}

/**
 * Which shards this process holds right now, and under which epoch: what its writes as a shard's owner are fenced
 * by. Known by the shard ownership; asked by storage that fences its owner writes by epoch.
 */
export interface ShardEpochs {
  /** The epoch this process holds `shard` under, or null when it does not hold it (any more). */
  held(shard: number): HeldEpoch | null;
  /**
   * Whether this process may start new work in `shard` now: the shard is assigned to it and no sign says it may be
   * moving (a rebalance under way, a membership that may have lapsed without it hearing so). Holding an epoch is
   * not enough for that: an epoch is kept through a rebalance so that attempts in flight can record their outcomes.
   * Omitted: whenever the shard is held.
   */
  delivering?(shard: number): boolean;
}
