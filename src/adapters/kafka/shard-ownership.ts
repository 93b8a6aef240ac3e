import type { Consumer, ConsumerRunConfig, Kafka } from 'kafkajs';
import { systemClock, type Clock } from '../../domain/clock.js';
import type { ShardScope } from '../../ports/requests.js';
import type { HeldEpoch, ShardEpochs } from '../../ports/shard-epochs.js';
import type { ShardFence, ShardListener, ShardOwnership, WorkNotice } from '../../ports/work-shards.js';
import type { KafkaLog } from './client.js';
import { decodeNotice } from './notice-codec.js';

/** Longest wait of a fetch that finds no notice (see the consumer's `maxWaitTimeInMs`). */
const FETCH_WAIT_MS = 500;
/** Offsets of handed-on notices are committed at most this often. */
const COMMIT_EVERY_MS = 1_000;
/** The waits before a consumer kafkajs left stopped is started again: after one failure, two, …; the last repeats. */
const RESTART_AFTER_MS = [1_000, 2_000, 5_000, 10_000, 30_000] as const;

export interface KafkaShardOwnershipOptions {
  readonly topic: string;
  readonly groupId: string;
  /** This process, as recorded in the fence. */
  readonly owner: string;
  readonly fence: ShardFence;
  /** A member silent this long is dropped from the group and its shards move: the failover bound's main part. */
  readonly sessionTimeoutMs: number;
  /** How often owned shards are checked against the fence, to notice a takeover the group has not told us of. */
  readonly verifyEveryMs: number;
  /**
   * A shard held this long is taken again under a new epoch, so the owner's write timestamps (which count time
   * since the epoch was taken, see `ShardEpochs`) never run past an epoch's span.
   */
  readonly retakeAfterMs: number;
  /** Default `systemClock`. */
  readonly clock?: Clock;
}

/**
 * Shard ownership from Kafka group membership: the partitions of the work topic assigned to this member are its
 * shards. Ownership ends the moment a rebalance starts and begins again only after every newly assigned shard was
 * fenced (its epoch raised in storage) and handed to the listener, so a stale member never acts beside a new one.
 * Messages are work notices; they only wake the owner, and their offsets are committed once they were handed on.
 */
export class KafkaShardOwnership implements ShardOwnership, ShardEpochs {
  private readonly consumer: Consumer;
  private readonly clock: Clock;
  private current: ReadonlyMap<number, number> = new Map();
  /**
   * The epochs this member holds and since when, which fence its writes (`held`). Set as soon as they were taken,
   * before `current`, because the new owner's first writes (releasing the previous owner's leases) come before
   * claims may start. Kept through a rebalance, unlike `current`: attempts in flight then may still record their
   * outcomes, which lose to the next owner's writes if the shard moves. Dropped once the shard is assigned
   * elsewhere or seen taken by another member.
   */
  private epochs: ReadonlyMap<number, HeldEpoch> = new Map();
  /** Raised on every rebalance: a fencing round that finishes after the next rebalance began is discarded. */
  private generation = 0;
  private verifier: NodeJS.Timeout | undefined;
  private listener: ShardListener | null = null;
  /**
   * The epoch this member last took each shard at. A shard may hold another owner's leases only if someone else
   * took it since: then its new epoch is more than one above ours. Comparing assignments alone would miss a shard
   * lost while this member was paused and handed back at the next rebalance.
   */
  private lastEpochs: ReadonlyMap<number, number> = new Map();
  /** When the group coordinator last answered this member (a heartbeat, a join): see `lapsed`. */
  private lastHeard = Number.NEGATIVE_INFINITY;
  private readonly heartbeatInterval: number;
  /** Whether the last look found the membership lapsed (for logging the change only). */
  private wasLapsed = false;
  /** What `consumer.run` was given, for starting it again after a crash kafkajs does not restart from. */
  private runConfig: ConsumerRunConfig | null = null;
  private restarts = 0;
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(
    kafka: Kafka,
    private readonly o: KafkaShardOwnershipOptions,
    private readonly log: KafkaLog,
  ) {
    this.clock = o.clock ?? systemClock;
    const heartbeatInterval = Math.max(100, Math.floor(o.sessionTimeoutMs / 10));
    this.heartbeatInterval = heartbeatInterval;
    this.consumer = kafka.consumer({
      groupId: o.groupId,
      sessionTimeout: o.sessionTimeoutMs,
      rebalanceTimeout: Math.max(o.sessionTimeoutMs, 10_000),
      heartbeatInterval,
      // How long the broker holds a fetch that finds no notice. A notice ends the wait at once, so this sets only
      // how often an idle member asks (each ask costs it and the broker), and how late its heartbeat may go out,
      // which kafkajs sends between fetches: a rebalance is noticed within a heartbeat interval and this.
      maxWaitTimeInMs: Math.min(heartbeatInterval, FETCH_WAIT_MS),
      allowAutoTopicCreation: false,
      retry: { retries: Number.MAX_SAFE_INTEGER, initialRetryTime: 300, maxRetryTime: 5_000 },
    });
  }

  /** Empty while the membership may have lapsed (see `lapsed`): no new work is claimed then. */
  owned(): ShardScope {
    return this.lapsed() ? [] : [...this.current.keys()];
  }

  held(shard: number): HeldEpoch | null {
    return this.epochs.get(shard) ?? null;
  }

  delivering(shard: number): boolean {
    return this.current.has(shard) && !this.lapsed();
  }

  /**
   * True when the coordinator has not answered this member for nearly a session: it may have dropped the member
   * and be handing its shards to another without this member hearing of it (its connections to the brokers cut
   * off, say). The coordinator drops a member a session after the last heartbeat it received, which came before
   * its answer, so the member stops starting work a heartbeat interval earlier than that; the new owner also has to
   * rejoin and raise the epochs first. Writes of attempts already made go on (fenced by their epoch); new attempts
   * wait until the group answers again, or the next assignment.
   */
  private lapsed(): boolean {
    const silentMs = this.clock.now() - this.lastHeard;
    const lapsed = silentMs > this.o.sessionTimeoutMs - this.heartbeatInterval;
    if (lapsed !== this.wasLapsed && this.current.size > 0) {
      if (lapsed) this.log('warn', 'no answer from the group coordinator; starting no new work until it answers', { silent_ms: silentMs });
      else this.log('info', 'the group coordinator answers again', {});
    }
    this.wasLapsed = lapsed;
    return lapsed;
  }

  async start(listener: ShardListener): Promise<void> {
    this.listener = listener;
    const { REBALANCING, GROUP_JOIN, HEARTBEAT, CRASH, STOP, DISCONNECT } = this.consumer.events;
    this.consumer.on(HEARTBEAT, () => (this.lastHeard = this.clock.now()));
    this.consumer.on(REBALANCING, () => this.drop('rebalance'));
    this.consumer.on(CRASH, (e) => {
      this.drop('consumer crashed');
      if (!e.payload.restart) this.restartLater(e.payload.error);
    });
    this.consumer.on(STOP, () => this.drop('consumer stopped'));
    this.consumer.on(DISCONNECT, () => this.drop('consumer disconnected'));
    this.consumer.on(GROUP_JOIN, (e) => {
      this.lastHeard = this.clock.now();
      this.restarts = 0;
      // A new generation ends the last assignment even when no rebalance was announced to this member (the
      // coordinator had dropped it while it heard nothing): until the new one is fenced, it owns nothing.
      this.drop('new assignment');
      const assigned = e.payload.memberAssignment[this.o.topic] ?? [];
      void this.take(assigned, this.generation);
    });
    await this.consumer.connect();
    await this.consumer.subscribe({ topic: this.o.topic, fromBeginning: false });
    this.runConfig = {
      // kafkajs's own auto-commit sends an offset commit after every batch: under a steady stream of notices that
      // is a round trip per fetch, paid by every process that owns shards. Offsets are committed at most every
      // `COMMIT_EVERY_MS` instead; a new owner may then see again up to that much of the notices, hints it checks.
      autoCommit: false,
      autoCommitInterval: COMMIT_EVERY_MS,
      eachBatch: async ({ batch, resolveOffset, commitOffsetsIfNecessary }) => {
        try {
          if (this.current.has(batch.partition)) this.handOn(batch.partition, batch.messages);
        } finally {
          resolveOffset(batch.lastOffset());
          await commitOffsetsIfNecessary();
        }
      },
    };
    await this.consumer.run(this.runConfig);
    this.verifier = setInterval(() => void this.verify(), this.o.verifyEveryMs);
  }

  /** The notices of an owned shard's batch, to the listener. */
  private handOn(partition: number, messages: ReadonlyArray<{ key: Buffer | null; value: Buffer | null }>): void {
    const notices: WorkNotice[] = [];
    const cancels: string[] = [];
    for (const m of messages) {
      const n = decodeNotice(partition, m.key, m.value);
      if (n?.kind === 'work') notices.push(n);
      else if (n?.kind === 'cancel') cancels.push(n.requestId);
    }
    // Cancels first: a request they name must not be delivered from memory by the wake-up that follows.
    if (cancels.length > 0) this.listener?.onCancelsAsked(cancels);
    if (notices.length > 0) this.listener?.onWork(notices);
  }

  /**
   * kafkajs restarts its consumer after errors it calls retriable and leaves it stopped after any other: the member
   * would then leave its shards to the others for good (or, were every member hit at once, leave them to nobody).
   * It is started again here, later each time it fails, until it runs or the service stops.
   */
  private restartLater(error: Error): void {
    if (this.listener === null || this.runConfig === null) return;
    const waitMs = RESTART_AFTER_MS[Math.min(this.restarts, RESTART_AFTER_MS.length - 1)]!;
    this.restarts += 1;
    this.log('error', 'the group consumer stopped on an error; starting it again', { error: String(error), after_ms: waitMs });
    clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => void this.restart(), waitMs);
  }

  private async restart(): Promise<void> {
    if (this.listener === null || this.runConfig === null) return;
    try {
      await this.consumer.connect();
      // Stopped while connecting: `stop` may already have disconnected, and must not find the consumer running.
      if (this.listener === null) {
        await this.consumer.disconnect();
        return;
      }
      await this.consumer.run(this.runConfig);
    } catch (err) {
      this.restartLater(err instanceof Error ? err : new Error(String(err)));
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.verifier);
    clearTimeout(this.restartTimer);
    this.listener = null;
    this.drop('stopping');
    await this.consumer.disconnect();
  }

  private drop(reason: string): void {
    this.generation++;
    if (this.current.size > 0) this.log('info', 'shards released', { reason, shards: [...this.current.keys()] });
    this.current = new Map();
  }

  private async take(assigned: readonly number[], generation: number): Promise<void> {
    try {
      const epochs = new Map<number, number>();
      for (const shard of assigned) epochs.set(shard, await this.o.fence.acquire(shard, this.o.owner));
      if (generation !== this.generation) return;
      const since = this.clock.now();
      this.epochs = new Map([...epochs].map(([shard, epoch]) => [shard, { epoch, since, heldFrom: this.heldFrom(shard, epoch) }]));
      const gained = assigned.filter((s) => epochs.get(s) !== (this.lastEpochs.get(s) ?? Number.NaN) + 1);
      await this.listener?.onGained(gained);
      if (generation !== this.generation) return;
      this.lastEpochs = new Map([...this.lastEpochs, ...epochs]);
      this.current = epochs;
      this.log('info', 'shards owned', { owned: [...assigned].sort((a, b) => a - b), gained });
      // Claims may start now: whatever is already due in these shards is found by the owner's next scan.
      this.listener?.onWork([]);
    } catch (err) {
      this.log('error', 'could not take assigned shards; waiting for the next rebalance', { shards: assigned, error: String(err) });
      // Leave the group's view consistent with ours: rejoining triggers a new assignment and a new attempt.
      if (generation === this.generation) this.retryLater(assigned, generation);
    }
  }

  /** Where this member's unbroken hold of `shard` began, now that it took `epoch`: the fence counts up by one. */
  private heldFrom(shard: number, epoch: number): number {
    const held = this.epochs.get(shard);
    return held !== undefined && held.epoch === epoch - 1 ? held.heldFrom : epoch;
  }

  private retryLater(assigned: readonly number[], generation: number): void {
    setTimeout(() => {
      if (generation === this.generation && this.listener !== null) void this.take(assigned, generation);
    }, 1_000).unref();
  }

  /**
   * Drops shards whose epoch moved on: another member took them while this one missed the rebalance. Takes again
   * the epoch of a shard held for `retakeAfterMs`.
   */
  private async verify(): Promise<void> {
    const generation = this.generation;
    const checked = this.epochs;
    let superseded: ReadonlyMap<number, number>;
    try {
      superseded = await this.o.fence.superseded(new Map([...checked].map(([shard, held]) => [shard, held.epoch])));
    } catch {
      // Storage unreachable: claims fail on their own until it is back.
      return;
    }
    for (const [shard, { epoch, since }] of checked) {
      try {
        if (superseded.has(shard)) {
          if (this.epochs.get(shard)?.epoch === epoch) this.epochs = without(this.epochs, shard);
          if (generation !== this.generation || this.current.get(shard) !== epoch) continue;
          this.current = without(this.current, shard);
          this.log('warn', 'shard taken over by another process', { shard, epoch, taken_at_epoch: superseded.get(shard) });
        } else if (this.current.get(shard) === epoch && this.clock.now() - since >= this.o.retakeAfterMs) {
          await this.retake(shard, generation);
        }
      } catch {
        // Storage unreachable: claims fail on their own until it is back.
      }
    }
  }

  /**
   * A new epoch for a shard this member keeps. Writes already under way carry the old epoch and land below every
   * write under the new one, which is their order anyway.
   */
  private async retake(shard: number, generation: number): Promise<void> {
    const epoch = await this.o.fence.acquire(shard, this.o.owner);
    if (generation !== this.generation || !this.current.has(shard)) return;
    this.current = new Map([...this.current, [shard, epoch]]);
    this.epochs = new Map([...this.epochs, [shard, { epoch, since: this.clock.now(), heldFrom: this.heldFrom(shard, epoch) }]]);
    this.lastEpochs = new Map([...this.lastEpochs, [shard, epoch]]);
    this.log('info', 'shard epoch taken again', { shard, epoch });
  }
}

function without<T>(map: ReadonlyMap<number, T>, shard: number): ReadonlyMap<number, T> {
  const next = new Map(map);
  next.delete(shard);
  return next;
}
