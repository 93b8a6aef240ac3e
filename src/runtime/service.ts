import { randomBytes } from 'node:crypto';
import { ServiceTelemetry } from '../adapters/telemetry/service-telemetry.js';
import { startServiceTracing } from '../adapters/telemetry/service-tracing.js';
import { AcceptRequests } from '../app/accept-requests.js';
import { AllowanceLeases } from '../app/allowance-leases.js';
import { Authenticator } from '../app/authenticate.js';
import { BudgetCommands } from '../app/budget-commands.js';
import { BudgetQueries } from '../app/budget-queries.js';
import { BulkActionBatches } from '../app/bulk-action-batches.js';
import { BulkActionCommands } from '../app/bulk-action-commands.js';
import { IdempotencyGuard } from '../app/idempotency-guard.js';
import { KeyUses } from '../app/key-uses.js';
import { QueueUses } from '../app/queue-uses.js';
import { RequestCommands } from '../app/request-commands.js';
import { RequestQueries } from '../app/request-queries.js';
import { ScheduleCommands } from '../app/schedule-commands.js';
import { ScheduleQueries } from '../app/schedule-queries.js';
import { ScheduleOccurrences } from '../app/schedule-occurrences.js';
import { ScheduleRunCommands } from '../app/schedule-run-commands.js';
import type { Config } from '../config/config.js';
import { systemClock, type Clock } from '../domain/clock.js';
import type { StoredRequest } from '../domain/request.js';
import { consoleRoutes } from '../edge/console/console-routes.js';
import { Readiness } from '../edge/health/readiness.js';
import { served, startServer, type RunningServer } from '../edge/server.js';
import { budgetServiceImpl } from '../edge/rpc/budget-service.js';
import { bulkActionServiceImpl } from '../edge/rpc/bulk-action-service.js';
import { projectServiceImpl } from '../edge/rpc/project-service.js';
import { requestServiceImpl } from '../edge/rpc/request-service.js';
import { scheduleServiceImpl } from '../edge/rpc/schedule-service.js';
import { statsServiceImpl } from '../edge/rpc/stats-service.js';
import { BudgetService } from '../gen/ferry/v1/budget_service_pb.js';
import { BulkActionService } from '../gen/ferry/v1/bulk_action_service_pb.js';
import { ProjectService } from '../gen/ferry/v1/project_service_pb.js';
import { RequestService } from '../gen/ferry/v1/request_service_pb.js';
import { ScheduleService } from '../gen/ferry/v1/schedule_service_pb.js';
import { StatsService } from '../gen/ferry/v1/stats_service_pb.js';
import { logDeliveryEvent, recordDeliveryEvent, type DeliveryEvent } from '../workers/delivery/events.js';
import type { DueWakeups } from '../workers/placement/due-wakeups.js';
import { recordSchedulerEvent, type SchedulerEvent } from '../workers/scheduler/events.js';
import { budgetWiring } from './budget-wiring.js';
import { bulkActionRunner } from './bulk-wiring.js';
import { log, logger } from './log.js';
import { openOnStack, type ResourceStack } from './resource-stack.js';
import { countDeliveryEvent, statsQueries, statsRecorder } from './stats-wiring.js';
import { openStorage } from './storage.js';
import { servedUsage } from './usage-wiring.js';
import { budgetGate, deliveryEngine, deliveryTransport, OCCURRENCE_GUARD_TIMINGS, requestPlacement, scheduleFiring, watchWork } from './workers.js';

export { DataDirInUse, embeddedDatabaseFile, migrateStorage, openBackend, projectAdmin } from './storage.js';

/**
 * How long a stop may take beyond the shutdown grace, for what follows the drain (stopping placement, closing
 * storage). Past it the stop gives up waiting: the process must exit whatever a dependency does.
 */
const STOP_MARGIN_MS = 3_000;

export interface RunningService {
  /** The API listeners, when this process serves the API. */
  readonly server: RunningServer | null;
  /** Whether this process should be sent work; answered by `/readyz` and the gRPC health service. */
  readonly readiness: Readiness;
  /**
   * Drains (readiness reports it at once; new API calls are refused, those under way and attempts in flight get
   * the shutdown grace), stops listening, then closes storage. Resolves within the grace plus STOP_MARGIN_MS
   * whatever clients and dependencies do.
   */
  stop(): Promise<void>;
}

export interface ServiceHooks {
  readonly clock?: Clock;
  readonly onDeliveryEvent?: (event: DeliveryEvent) => void;
  readonly onSchedulerEvent?: (event: SchedulerEvent) => void;
}

/** The service once open: what it answers with, and how it stops taking work before its resources are closed. */
interface OpenedService {
  readonly server: RunningServer | null;
  readonly readiness: Readiness;
  /** Stops accepting (API, scheduler) while attempts in flight finish, all within `graceMs`. */
  drain(graceMs: number): Promise<void>;
}

/**
 * The composition root: the only place that knows which adapters exist. Everything it opens goes on a resource
 * stack as it is opened, so that a stop, or a start that fails midway, closes what is open in reverse order.
 */
export async function startService(config: Config, hooks: ServiceHooks = {}): Promise<RunningService> {
  const clock = hooks.clock ?? systemClock;
  logger.setLevel(config.log.level);
  const { opened, resources } = await openOnStack((stack) => openService(config, hooks, clock, stack));
  const release = holdProcessOpen();
  const graceMs = config.delivery.shutdownGraceMs;
  let stopped: Promise<void> | undefined;
  return {
    server: opened.server,
    readiness: opened.readiness,
    stop() {
      stopped ??= (async () => {
        opened.readiness.startDraining();
        log('info', 'draining', { grace_ms: graceMs });
        const deadline = new AbortController();
        try {
          const late = clock.sleep(graceMs + STOP_MARGIN_MS, deadline.signal).then(() => !deadline.signal.aborted);
          // Readiness answers `draining` until the drain is over; then the server, workers and storage close.
          const work = opened.drain(graceMs).then(() => resources.close());
          // A failure after the deadline has nobody left to tell; one before it fails the stop.
          work.catch(() => undefined);
          if (await Promise.race([work.then(() => false), late])) {
            log('warn', 'stop deadline passed: exiting before storage and placement finished closing', { deadline_ms: graceMs + STOP_MARGIN_MS });
          }
        } finally {
          deadline.abort();
          release();
          log('info', 'stopped');
        }
      })();
      return stopped;
    },
  };
}

async function openService(config: Config, hooks: ServiceHooks, clock: Clock, resources: ResourceStack): Promise<OpenedService> {
  // Off (null) unless the standard OTEL_* variables ask for it; then API calls, storage, Kafka and attempts are
  // spans. Opened first so that it is shut down last, when everything traced has closed.
  const tracing = startServiceTracing(config.tracing);
  if (tracing !== null) resources.defer(() => tracing.shutdown());
  const telemetry = await ServiceTelemetry.start({ ...config.metrics, host: config.host }, logger, clock);
  resources.defer(() => telemetry.close());
  const opened = await openStorage(config, clock, telemetry.kafkaLog(log), tracing);
  const observedStorage = telemetry.observeStorage(opened.backend);
  const backend = tracing ? tracing.backend(observedStorage, config.distributed ? 'cassandra' : 'sqlite') : observedStorage;
  resources.defer(() => backend.close());
  resources.defer(opened.closeChecks);
  // Counted in memory and written in batches; the last counts are written on stop, before storage closes.
  const stats = statsRecorder(backend, clock);
  resources.defer(() => stats.stop());
  // The workers' events feed the metrics and the debug log, then whoever else listens (tests).
  const logDeliveries = logger.isEnabled('debug');
  const onDeliveryEvent = (event: DeliveryEvent): void => {
    recordDeliveryEvent(telemetry.metrics, event);
    countDeliveryEvent(stats, event);
    if (logDeliveries) logDeliveryEvent(log, event);
    hooks.onDeliveryEvent?.(event);
  };
  const onSchedulerEvent = (event: SchedulerEvent): void => {
    recordSchedulerEvent(telemetry.metrics, event);
    hooks.onSchedulerEvent?.(event);
  };
  const readiness = new Readiness([{ name: 'storage', probe: () => backend.ready() }, ...opened.checks], clock, {
    onCheckChanged: (check, state, reason) => log(state === 'ok' ? 'info' : 'warn', 'readiness check changed', { check, state, reason }),
  });
  const place = await opened.placement();
  resources.defer(() => place.stop());
  watchWork(telemetry, config, backend, place);
  // Requests accepted by the API and occurrences fired by the scheduler take the same path and allowance.
  const guard = new IdempotencyGuard(backend.idempotency, clock);
  const leases = new AllowanceLeases(backend.usage);
  const { usage, noteAccepted } = servedUsage(backend, leases, telemetry, clock);
  const accepted = (stored: readonly StoredRequest[]): void => {
    place.accepted(stored);
    noteAccepted(stored);
    stats.accepted(stored);
  };
  // A queue's first use in this process is written beside the insert; a failed write is logged and tried again later.
  const queueUses = new QueueUses(backend.budgets, clock, (err) => log('warn', 'queue use not recorded', { error: String(err) }));
  // Every attempt must fit its budgets: read from storage here, enforced by the engine, shown by the API.
  const gate = config.roles.delivery ? budgetGate(config, backend, place, clock) : null;
  if (gate !== null) {
    await gate.start();
    resources.defer(() => gate.stop());
    telemetry.watchQueueBudgets(() => [...gate.states('queue')]);
  }
  const placement = requestPlacement(config, place, gate);
  const budgets = budgetWiring(backend, clock, gate);
  resources.defer(() => budgets.stop());
  const acceptor = new AcceptRequests(backend.requests, leases, guard, clock, accepted, queueUses, placement);
  // The drain stops the workers with the grace; the stack stops them again, which is then the same stop.
  let stopEngine = async (_graceMs: number): Promise<void> => undefined;
  let stopScheduler = async (): Promise<void> => undefined;
  let stopBulk = async (): Promise<void> => undefined;
  let scheduleWakeups: DueWakeups | null = null;
  const bulkBatches = new BulkActionBatches(backend.requests, acceptor, clock, { allowPrivateDestinations: config.allowPrivateDestinations });
  let wakeBulk = (): void => undefined;
  if (config.roles.delivery) {
    const transport = tracing ? tracing.transport(deliveryTransport(config)) : deliveryTransport(config);
    resources.defer(() => transport.close());
    const engine = deliveryEngine(config, backend, transport, place, clock, onDeliveryEvent, gate!);
    stopEngine = once((graceMs: number) => engine.stop(graceMs));
    resources.defer(() => stopEngine(0));
    await place.startDelivery(engine);
    engine.start();
    const occurrenceGuard = new IdempotencyGuard(backend.idempotency, clock, OCCURRENCE_GUARD_TIMINGS);
    const occurrenceAcceptor = new AcceptRequests(backend.requests, leases, occurrenceGuard, clock, accepted, queueUses, placement);
    const scheduler = scheduleFiring(config, backend, occurrenceAcceptor, place, clock, onSchedulerEvent);
    stopScheduler = once(() => scheduler.stop());
    resources.defer(stopScheduler);
    scheduleWakeups = place.join(scheduler, config.delivery.idlePollMs);
    scheduler.start();
    const bulk = bulkActionRunner(config, backend, leases, accepted, queueUses, place, clock);
    stopBulk = once(() => bulk.stop());
    resources.defer(stopBulk);
    place.join(bulk, config.delivery.idlePollMs);
    bulk.start();
    wakeBulk = () => bulk.wake();
  }
  let server: RunningServer | null = null;
  if (config.roles.api) {
    const cursorSecret = await backend.secrets.getOrCreate('cursor', randomBytes(32));
    // A key's last use is a write beside the call; a failed one is already counted and logged by storage's observer.
    const auth = new Authenticator(backend.projects, clock, config.authCacheMs, new KeyUses(backend.projects, clock));
    const options = { allowPrivateDestinations: config.allowPrivateDestinations };
    const requests = requestServiceImpl({
      auth,
      commands: new RequestCommands(acceptor, backend.requests, backend.idempotency, clock, options),
      queries: new RequestQueries(backend.requests, clock, cursorSecret),
    });
    const wakeups = scheduleWakeups;
    const schedules = scheduleServiceImpl({
      auth,
      commands: new ScheduleCommands(backend, guard, clock, options, (changed) => {
        if (changed.nextRunAt !== null) wakeups?.stored([changed.nextRunAt]);
      }),
      queries: new ScheduleQueries(backend.schedules, clock, cursorSecret, backend.requests),
      runs: new ScheduleRunCommands(backend, new ScheduleOccurrences(acceptor, backend.projects, clock), clock),
    });
    const budgetQueries = new BudgetQueries(backend.budgets, budgets.states, cursorSecret);
    const budgetService = budgetServiceImpl({
      auth,
      commands: new BudgetCommands(backend.budgets, budgetQueries, clock, budgets.onChanged),
      queries: budgetQueries,
    });
    const bulkActions = bulkActionServiceImpl({
      auth,
      commands: new BulkActionCommands(backend.bulkActions, bulkBatches, guard, clock, () => wakeBulk()),
    });
    const started = await startServer({
      host: config.host,
      httpPort: config.httpPort,
      grpcPort: config.grpcPort,
      tls: config.tls,
      services: [
        served(RequestService, requests),
        served(ScheduleService, schedules),
        served(BudgetService, budgetService),
        served(BulkActionService, bulkActions),
        served(ProjectService, projectServiceImpl({ auth, usage })),
        served(StatsService, statsServiceImpl({ auth, stats: statsQueries(backend, stats, budgetQueries, clock) })),
      ],
      readiness,
      shutdownGraceMs: config.delivery.shutdownGraceMs,
      clock,
      observer: tracing ? tracing.observer(telemetry.observer) : telemetry.observer,
      // The web console's page and assets, beside the scrape route; its data comes through the API with a key.
      operationalRoutes: [...telemetry.operationalRoutes, ...(config.consoleEnabled ? consoleRoutes() : [])],
      ...(config.cors ? { cors: config.cors } : {}),
      ...(tracing ? { traceCall: tracing.traceCall } : {}),
    });
    resources.defer(() => started.close());
    server = started;
  }
  const api = server;
  return {
    server,
    readiness,
    async drain(graceMs) {
      // The API and the scheduler stop accepting while attempts in flight finish: both within the one grace.
      const accepting = (async () => {
        await Promise.all([api?.drain(), stopScheduler(), stopBulk()]);
        await leases.releaseAll().catch((err: unknown) => log('warn', 'allowance release failed', { error: String(err) }));
      })();
      await Promise.all([accepting, stopEngine(graceMs)]);
    },
  };
}

/** A stop made once: later calls get the first one's promise, whatever they pass. */
function once<A extends unknown[]>(stop: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  let stopping: Promise<void> | undefined;
  return (...args) => (stopping ??= stop(...args));
}

/**
 * The workers' timers never hold the process open (see `Clock.setTimer`), and a process that only delivers may
 * have nothing else that does: the running service holds it, until it has stopped.
 */
function holdProcessOpen(): () => void {
  const handle = setInterval(() => undefined, 3_600_000);
  return () => clearInterval(handle);
}
