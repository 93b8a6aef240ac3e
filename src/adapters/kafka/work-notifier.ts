import { Partitioners, type Kafka, type Producer } from 'kafkajs';
import { systemClock, type Clock } from '../../domain/clock.js';
import type { CancelNotice, WorkNotice, WorkNotifier } from '../../ports/work-shards.js';
import type { KafkaLog } from './client.js';
import { encodeCancelNotice, encodeNotice } from './notice-codec.js';

/** Notices waiting for the producer; beyond this the oldest are dropped (the timers still hold the work). */
const MAX_PENDING = 20_000;

/**
 * How long a notice waits for others to share its produce request. Without a wait, a process accepting a steady
 * few hundred requests a second sent nearly one produce request per notice, and every owner fetched nearly one
 * batch per notice: round trips that grow with the number of processes, since (N−1)/N of the requests travel as
 * notices. A notice is a hint that makes due work start at once; the timers hold the work either way.
 */
export const NOTICE_LINGER_MS = 20;

/**
 * Sends work notices to the shard's partition, many per produce request: notices that arrive within the linger,
 * or while one send is under way, go together in the next one, so the broker sees one request per burst, not one
 * per accepted request.
 */
export class KafkaWorkNotifier implements WorkNotifier {
  private readonly producer: Producer;
  private pending: WorkNotice[] = [];
  private sending: Promise<void> | null = null;
  private connected: Promise<void>;
  private dropped = 0;

  constructor(
    kafka: Kafka,
    private readonly topic: string,
    private readonly log: KafkaLog,
    private readonly linger: { readonly ms: number; readonly clock: Clock } = { ms: NOTICE_LINGER_MS, clock: systemClock },
  ) {
    this.producer = kafka.producer({ allowAutoTopicCreation: false, createPartitioner: Partitioners.DefaultPartitioner });
    this.connected = this.producer.connect();
    this.connected.catch(() => undefined);
  }

  notify(notices: readonly WorkNotice[]): void {
    this.pending.push(...notices);
    const excess = this.pending.length - MAX_PENDING;
    if (excess > 0) {
      this.pending.splice(0, excess);
      this.dropped += excess;
    }
    this.sending ??= this.drain();
  }

  /**
   * Sent on its own and waited for. When it cannot be sent the cancel still stands (it is stored, and readers see
   * it); the owner then finds it when it next reads the request, so only an attempt it was about to start from
   * memory may still go out, as one already in flight may.
   */
  async announceCancel(notice: CancelNotice): Promise<void> {
    try {
      await this.connected.catch(() => undefined);
      await this.producer.send({ topic: this.topic, acks: -1, messages: [encodeCancelNotice(notice)] });
    } catch (err) {
      this.log('error', 'cancel notice not sent; the owner sees the cancel when it next reads the request', { error: String(err) });
    }
  }

  async close(): Promise<void> {
    await this.sending;
    await this.producer.disconnect();
  }

  private async drain(): Promise<void> {
    try {
      await this.connected;
    } catch {
      // The producer reconnects on its next send.
      this.connected = Promise.resolve();
    }
    while (this.pending.length > 0) {
      if (this.linger.ms > 0) await this.linger.clock.sleep(this.linger.ms);
      const batch = this.pending;
      this.pending = [];
      try {
        await this.producer.send({ topic: this.topic, acks: -1, messages: batch.map(encodeNotice) });
      } catch (err) {
        this.log('error', 'work notices not sent; owners find the work on their next scan', {
          notices: batch.length,
          error: String(err),
        });
      }
    }
    if (this.dropped > 0) {
      this.log('warn', 'work notices dropped while the producer lagged; owners find the work on their next scan', { notices: this.dropped });
      this.dropped = 0;
    }
    this.sending = null;
  }
}
