import type { Admin, Kafka } from 'kafkajs';

/**
 * Whether the Kafka cluster answers: a metadata request over an admin connection of its own, opened on the first
 * probe and kept. No retries: the caller probes again on its own schedule and bounds each probe.
 */
export class KafkaReadiness {
  private admin: Admin | null = null;
  private connected: Promise<void> | null = null;

  constructor(private readonly kafka: Kafka) {}

  async probe(): Promise<void> {
    this.admin ??= this.kafka.admin({ retry: { retries: 0 } });
    const admin = this.admin;
    this.connected ??= admin.connect().catch((err: unknown) => {
      this.connected = null;
      throw err;
    });
    await this.connected;
    const { brokers } = await admin.describeCluster();
    if (brokers.length === 0) throw new Error('Kafka reports no brokers.');
  }

  async close(): Promise<void> {
    await this.admin?.disconnect();
  }
}
