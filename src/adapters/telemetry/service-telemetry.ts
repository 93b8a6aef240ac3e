import type { Clock } from '../../domain/clock.js';
import type { Backend } from '../../ports/backend.js';
import type { ApiCallObserver, Log, ServiceMetrics } from '../../ports/telemetry.js';
import { apiCallObserver } from './api-calls.js';
import { CachedBacklog, registerBacklogGauges, type BacklogReader } from './backlog-gauges.js';
import { EmbeddedBacklog } from './embedded-backlog.js';
import type { ServiceLogger } from './logger.js';
import { metricsRoute, startMetricsListener, type MetricsListener } from './metrics-endpoint.js';
import { observedBackend, StorageAvailability } from './observed-storage.js';
import { ProjectUsageGauges, type ProjectAllowanceReader } from './project-usage-gauges.js';
import type { QueueBudgetReader } from './budget-metrics.js';
import { PrometheusMetrics } from './prometheus-metrics.js';

export interface TelemetrySettings {
  /** Off: no registry, no `/metrics`, nothing counted; failed calls and state changes are still logged. */
  readonly enabled: boolean;
  /** A listener of its own for `/metrics` (0: any free port); null serves it on the API's HTTP port. */
  readonly port: number | null;
  /** Where that listener binds. */
  readonly host: string;
}

const NO_METRICS: ServiceMetrics = {
  accepted: () => undefined,
  attemptStarted: () => undefined,
  attemptFinished: () => undefined,
  flowStarted: () => undefined,
  flowHeld: () => undefined,
  delivered: () => undefined,
  occurrence: () => undefined,
  allowanceRejected: () => undefined,
  storageError: () => undefined,
  kafkaError: () => undefined,
};

/**
 * Logs and metrics of one running service, as the composition root wires them: the call observer for the edge,
 * the metrics the workers' events feed, storage watched for failures, the backlog and shard gauges, and where
 * `/metrics` is served.
 */
export class ServiceTelemetry {
  /** What the workers' events and the storage decorator record into (no-ops when metrics are off). */
  readonly metrics: ServiceMetrics;
  readonly observer: ApiCallObserver;
  /** Served beside the health routes on the API's listeners (`GET /metrics`), unless metrics have a port. */
  readonly operationalRoutes: ReadonlyArray<ReturnType<typeof metricsRoute>>;
  private readonly availability: StorageAvailability;
  private readonly closers: Array<() => Promise<void> | void> = [];

  private constructor(
    private readonly prometheus: PrometheusMetrics | null,
    logger: ServiceLogger,
    private readonly clock: Clock,
    servedByApi: boolean,
  ) {
    this.metrics = prometheus ?? NO_METRICS;
    this.observer = apiCallObserver(prometheus, logger, () => clock.now());
    this.operationalRoutes = prometheus !== null && servedByApi ? [metricsRoute(prometheus)] : [];
    this.availability = new StorageAvailability(logger.log, () => clock.now());
  }

  static async start(settings: TelemetrySettings, logger: ServiceLogger, clock: Clock): Promise<ServiceTelemetry> {
    const prometheus = settings.enabled ? new PrometheusMetrics() : null;
    const telemetry = new ServiceTelemetry(prometheus, logger, clock, settings.port === null);
    if (prometheus !== null && settings.port !== null) {
      const listener: MetricsListener = await startMetricsListener({ host: settings.host, port: settings.port, metrics: prometheus });
      telemetry.closers.push(() => listener.close());
      logger.log('info', 'metrics listening', { host: settings.host, metrics_port: listener.port });
    }
    return telemetry;
  }

  /** The backend with storage failures counted and availability changes logged. */
  observeStorage<B extends Backend>(backend: B): B {
    return observedBackend(backend, this.prometheus, this.availability);
  }

  /** The log for the Kafka client and adapters: their `error` lines also count in `ferry_kafka_errors_total`. */
  kafkaLog(log: Log): Log {
    const metrics = this.metrics;
    return (level, msg, fields) => {
      if (level === 'error') metrics.kafkaError();
      log(level, msg, fields);
    };
  }

  /** Backlog gauges over the embedded database file, read on a connection of their own. */
  watchEmbeddedBacklog(path: string): void {
    if (this.prometheus === null) return;
    const backlog = new EmbeddedBacklog(path);
    this.closers.push(() => backlog.close());
    registerBacklogGauges(this.prometheus, new CachedBacklog(() => backlog.read(), this.clock), this.clock, {
      counts: true,
      scope: 'Embedded: the whole database.',
    });
  }

  /** The oldest-due gauge from what this process can see of its own shards (distributed: no counts). */
  watchShardBacklog(read: BacklogReader): void {
    if (this.prometheus === null) return;
    registerBacklogGauges(this.prometheus, new CachedBacklog(read, this.clock), this.clock, {
      counts: false,
      scope: 'Distributed: per process, over the shards it owns.',
    });
  }

  /** The flow-control gauges per queue, read from this process's live queue budgets when scraped. */
  watchQueueBudgets(read: QueueBudgetReader): void {
    this.prometheus?.budgets.watch(read);
  }

  /** `ferry_shards_owned`: the shards of work this process owns right now. */
  watchShardsOwned(owned: () => number): void {
    this.prometheus?.gauge('ferry_shards_owned', 'Shards of delivery and timer work this process owns right now.', [], (gauge) => gauge.set(owned()));
  }

  /**
   * The per-project allowance gauges, over the projects that accept work in this process; returns what notes
   * each one that does (a no-op when metrics are off).
   */
  watchProjectUsage(read: ProjectAllowanceReader): (projectId: string) => void {
    if (this.prometheus === null) return () => undefined;
    const gauges = new ProjectUsageGauges(this.prometheus, read, this.clock);
    return (projectId) => gauges.note(projectId);
  }

  async close(): Promise<void> {
    for (const close of this.closers.splice(0)) await close();
  }
}
