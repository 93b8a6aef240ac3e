import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { CassandraSession } from '../adapters/cassandra/session.js';
import { CassandraShardFence } from '../adapters/cassandra/shard-fence.js';
import { createKafka } from '../adapters/kafka/client.js';
import { KafkaShardOwnership } from '../adapters/kafka/shard-ownership.js';
import { assertWorkTopic } from '../adapters/kafka/topic.js';
import { KafkaWorkNotifier } from '../adapters/kafka/work-notifier.js';
import type { DistributedConfig } from '../config/config.js';
import type { Clock } from '../domain/clock.js';
import type { StoredRequest } from '../domain/request.js';
import { shardOf } from '../domain/shards.js';
import type { RequestStore, ShardScope } from '../ports/requests.js';
import type { ShardOwnership, WorkNotifier } from '../ports/work-shards.js';
import { DueWakeups, type Wakeable } from './due-wakeups.js';
import { log } from './log.js';

/** The delivery engine, as far as placement is concerned: something to wake when work may be due. */
export type DeliveryHandle = Wakeable;

/**
 * Where accepted work gets delivered: by this very process (embedded), or by whichever process owns the
 * request's shard (distributed). The API side tells it of new work; the delivery side asks it which work to claim.
 */
export interface WorkPlacement {
  /** Limits the delivery engine's claims; undefined when this process delivers everything in storage. */
  readonly shards: (() => ShardScope) | undefined;
  /** Starts taking part in delivery; `engine` is woken when work may be due. */
  startDelivery(engine: DeliveryHandle): Promise<void>;
  /** New requests are durable. */
  accepted(requests: readonly StoredRequest[]): void;
  stop(): Promise<void>;
}

/** One process over one SQLite file: everything in storage is this process's to deliver. */
export function embeddedPlacement(requests: RequestStore, clock: Clock): WorkPlacement {
  let engine: DeliveryHandle | null = null;
  return {
    shards: undefined,
    async startDelivery(e) {
      // Whatever the previous run held when it stopped is nobody's now.
      await requests.releaseLeases(clock.now());
      engine = e;
    },
    accepted: () => engine?.wake(),
    stop: async () => undefined,
  };
}

/** Many processes over Cassandra and Kafka: Kafka group membership decides who delivers which shard. */
export async function distributedPlacement(
  config: DistributedConfig,
  session: CassandraSession,
  requests: RequestStore,
  clock: Clock,
  roles: { readonly api: boolean; readonly delivery: boolean },
  pollMs: number,
): Promise<WorkPlacement> {
  const kafka = createKafka({ ...config.kafka }, log);
  await assertWorkTopic(kafka, config.kafka.topic, config.shards);
  const owner = `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`;
  const notifier: WorkNotifier | null = roles.api ? new KafkaWorkNotifier(kafka, config.kafka.topic, log) : null;
  let ownership: ShardOwnership | null = null;
  let wakeups: DueWakeups | null = null;
  return {
    shards: () => ownership?.owned() ?? [],
    async startDelivery(e) {
      const w = new DueWakeups(e, clock, pollMs);
      wakeups = w;
      ownership = new KafkaShardOwnership(
        kafka,
        {
          topic: config.kafka.topic,
          groupId: config.kafka.groupId,
          owner,
          fence: new CassandraShardFence(session),
          sessionTimeoutMs: config.kafka.sessionTimeoutMs,
          verifyEveryMs: 2_000,
        },
        log,
      );
      await ownership.start({
        onGained: async (shards) => {
          // The previous owner may have died holding leases: whatever it was delivering is due again now.
          if (shards.length === 0) return;
          const released = await requests.releaseLeases(clock.now(), shards);
          if (released > 0) log('info', 'leases of a previous owner released', { shards, requests: released });
        },
        onWork: (notices) => w.stored(notices.map((n) => n.dueAt)),
      });
    },
    accepted(stored) {
      // Notices are hints: work due after the owner's next look at storage wakes nobody (see `DueWakeups`), and
      // work in a shard this process owns needs no round trip through Kafka. The timers hold it either way.
      if (notifier !== null) {
        const noticeBy = clock.now() + pollMs;
        const owned = new Set(ownership?.owned() ?? []);
        const notices = stored.flatMap((r) => {
          const shard = shardOf(r.id, config.shards);
          return r.dueAt === null || r.dueAt > noticeBy || owned.has(shard) ? [] : [{ requestId: r.id, shard, dueAt: r.dueAt }];
        });
        if (notices.length > 0) notifier.notify(notices);
      }
      wakeups?.stored(stored.flatMap((r) => (r.dueAt === null ? [] : [r.dueAt])));
    },
    async stop() {
      wakeups?.stop();
      await ownership?.stop();
      await notifier?.close();
    },
  };
}
