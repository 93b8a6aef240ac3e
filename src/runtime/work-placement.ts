import type { Clock } from '../domain/clock.js';
import type { StoredRequest } from '../domain/request.js';
import type { RequestStore, ShardScope } from '../ports/requests.js';
import type { Wakeable } from './due-wakeups.js';

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
