import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openEmbeddedBackend } from '../adapters/embedded/backend.js';
import { lockDataDir } from '../adapters/embedded/data-dir-lock.js';
import { createThreadedTransport } from '../adapters/http/threaded-transport.js';
import { createHttpTransport } from '../adapters/http/transport.js';
import { ServiceTelemetry } from '../adapters/telemetry/service-telemetry.js';
import { startServiceTracing, type ServiceTracing } from '../adapters/telemetry/service-tracing.js';
import { AcceptRequests } from '../app/accept-requests.js';
import { AllowanceLeases } from '../app/allowance-leases.js';
import { Authenticator } from '../app/authenticate.js';
import { OccurrenceWithdrawal } from '../app/enqueued-occurrence.js';
import { DEFAULT_GUARD_TIMINGS, IdempotencyGuard } from '../app/idempotency-guard.js';
import { KeyUses } from '../app/key-uses.js';
import { ProjectAdmin } from '../app/project-admin.js';
import { RequestCommands } from '../app/request-commands.js';
import { RequestQueries } from '../app/request-queries.js';
import { ScheduleCommands } from '../app/schedule-commands.js';
import { ScheduleOccurrences } from '../app/schedule-occurrences.js';
import { ScheduleQueries } from '../app/schedule-queries.js';
import type { Config } from '../config/config.js';
import { systemClock, type Clock } from '../domain/clock.js';
import type { StoredRequest } from '../domain/request.js';
import { consoleRoutes } from '../edge/console/console-routes.js';
import { Readiness, type ReadinessCheck } from '../edge/health/readiness.js';
import { served, startServer, type RunningServer } from '../edge/server.js';
import { projectServiceImpl } from '../edge/rpc/project-service.js';
import { requestServiceImpl } from '../edge/rpc/request-service.js';
import { scheduleServiceImpl } from '../edge/rpc/schedule-service.js';
import { ProjectService } from '../gen/ferry/v1/project_service_pb.js';
import { RequestService } from '../gen/ferry/v1/request_service_pb.js';
import { ScheduleService } from '../gen/ferry/v1/schedule_service_pb.js';
import type { Backend } from '../ports/backend.js';
import type { DeliveryTransport } from '../ports/delivery-transport.js';
import type { Log } from '../ports/telemetry.js';
import { DeliveryEngine } from '../workers/delivery/engine.js';
import { logDeliveryEvent, recordDeliveryEvent, type DeliveryEvent } from '../workers/delivery/events.js';
import { SigningSecretCache } from '../workers/delivery/signing-secrets.js';
import type { DueWakeups } from '../workers/placement/due-wakeups.js';
import { embeddedPlacement } from '../workers/placement/embedded-placement.js';
import type { WorkPlacement } from '../workers/placement/work-placement.js';
import { recordSchedulerEvent, type SchedulerEvent } from '../workers/scheduler/events.js';
import { ScheduleFiring } from '../workers/scheduler/firing-worker.js';
import { log, logger } from './log.js';
import type * as DistributedStorageModule from './distributed-storage.js';
import { servedUsage } from './usage-wiring.js';

export const USER_AGENT = 'Ferry/0.1 (+delivery)';

/** Occurrences fired at once by one process: enough for their storage writes to share commits. */
const SCHEDULER_CONCURRENCY = 256;
/**
 * An occurrence whose key is still held (by a process that died while firing it, until the claim's lease runs
 * out) is given up on after a second and tried again on a later look, instead of holding up the occurrences due
 * with it for the API's ten-second wait.
 */
const OCCURRENCE_GUARD_TIMINGS = { ...DEFAULT_GUARD_TIMINGS, waitMs: 1_000 };
/**
 * How long a stop may take beyond the shutdown grace, for what follows the drain (stopping placement, closing
 * storage). Past it the stop gives up waiting: the process must exit whatever a dependency does.
 */
const STOP_MARGIN_MS = 3_000;

export { DataDirInUse } from '../adapters/embedded/data-dir-lock.js';

/** The embedded database file of a configuration. */
export function embeddedDatabaseFile(config: Config): string {
  return join(config.dataDir, 'ferry.db');
}

/**
 * The composition root: the only place that knows which adapters exist. `create: false` opens only an embedded
 * database that already exists.
 */
export async function openBackend(config: Config, options: { create?: boolean } = {}): Promise<Backend> {
  const d = config.distributed;
  if (d === null) return openEmbeddedBackend({ path: embeddedDatabaseFile(config), mustExist: options.create === false });
  return (await distributed()).openDistributedBackend(d);
}

type DistributedStorage = typeof DistributedStorageModule;

/** Loaded only when the configuration asks for Cassandra and Kafka. */
function distributed(): Promise<DistributedStorage> {
  return import('./distributed-storage.js');
}

/** Creates or upgrades the schema (and, distributed, the work topic); safe to run again and from several hosts. */
export async function migrateStorage(config: Config): Promise<void> {
  const d = config.distributed;
  if (d === null) {
    // Opening the embedded file applies every pending migration.
    await openEmbeddedBackend({ path: embeddedDatabaseFile(config) }).close();
    return;
  }
  await (await distributed()).migrateDistributed(d);
}

/**
 * Storage, and how work placed in it reaches delivery: the two always come as a matching pair. With them, what
 * readiness looks at beyond storage itself.
 */
interface OpenedStorage {
  readonly backend: Backend;
  readonly placement: () => Promise<WorkPlacement>;
  readonly checks: readonly ReadinessCheck[];
  readonly closeChecks: () => Promise<void>;
}

async function openStorage(config: Config, clock: Clock, kafkaLog: Log, tracing: ServiceTracing | null): Promise<OpenedStorage> {
  const d = config.distributed;
  if (d === null) {
    // One server per data directory, held until its storage is closed: two would deliver the same attempts.
    const lock = lockDataDir(config.dataDir, clock.now());
    const opened = await openBackend(config).catch((err: unknown) => {
      lock.release();
      throw err;
    });
    const backend: Backend = { ...opened, close: () => opened.close().finally(() => lock.release()) };
    return { backend, placement: async () => embeddedPlacement(backend.requests, clock), checks: [], closeChecks: async () => undefined };
  }
  return (await distributed()).openDistributedStorage(config, d, clock, kafkaLog, tracing ? (port, name) => tracing.kafka(port, name) : undefined);
}

export function projectAdmin(backend: Backend, clock: Clock = systemClock): ProjectAdmin {
  return new ProjectAdmin(backend.projects, clock);
}

function deliveryTransport(config: Config): DeliveryTransport {
  const settings = {
    allowPrivateDestinations: config.allowPrivateDestinations,
    ca: config.delivery.caFile ? readFileSync(config.delivery.caFile, 'utf8') : undefined,
    userAgent: USER_AGENT,
    // One connection per concurrent attempt: HTTP/1.1 sends one request at a time on a connection.
    connectionsPerOrigin: config.delivery.maxPerHost,
  };
  const threads = config.delivery.threads;
  return threads === 0 ? createHttpTransport(settings) : createThreadedTransport({ ...settings, threads });
}

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

export async function startService(config: Config, hooks: ServiceHooks = {}): Promise<RunningService> {
  const clock = hooks.clock ?? systemClock;
  logger.setLevel(config.log.level);
  const telemetry = await ServiceTelemetry.start({ ...config.metrics, host: config.host }, logger, clock);
  // Off (null) unless the standard OTEL_* variables ask for it; then API calls, storage, Kafka and attempts are spans.
  const tracing = startServiceTracing(config.tracing);
  const opened = await openStorage(config, clock, telemetry.kafkaLog(log), tracing).catch(async (err: unknown) => {
    await telemetry.close();
    await tracing?.shutdown();
    throw err;
  });
  const { placement: openPlacement, checks, closeChecks } = opened;
  const observedStorage = telemetry.observeStorage(opened.backend);
  const backend = tracing ? tracing.backend(observedStorage, config.distributed ? 'cassandra' : 'sqlite') : observedStorage;
  // The workers' events feed the metrics and the debug log, then whoever else listens (tests).
  const logDeliveries = logger.isEnabled('debug');
  const observed: ServiceHooks = {
    ...hooks,
    onDeliveryEvent: (event) => {
      recordDeliveryEvent(telemetry.metrics, event);
      if (logDeliveries) logDeliveryEvent(log, event);
      hooks.onDeliveryEvent?.(event);
    },
    onSchedulerEvent: (event) => {
      recordSchedulerEvent(telemetry.metrics, event);
      hooks.onSchedulerEvent?.(event);
    },
  };
  const readiness = new Readiness([{ name: 'storage', probe: () => backend.ready() }, ...checks], clock, {
    onCheckChanged: (check, state, reason) => log(state === 'ok' ? 'info' : 'warn', 'readiness check changed', { check, state, reason }),
  });
  let engine: DeliveryEngine | null = null;
  let scheduler: ScheduleFiring | null = null;
  let server: RunningServer | null = null;
  let allowance: AllowanceLeases | null = null;
  let placement: WorkPlacement | null = null;
  let transport: DeliveryTransport | null = null;
  try {
    const place = await openPlacement();
    placement = place;
    watchWork(telemetry, config, backend, place);
    // Requests accepted by the API and occurrences fired by the scheduler take the same path and allowance.
    const guard = new IdempotencyGuard(backend.idempotency, clock);
    const leases = new AllowanceLeases(backend.usage);
    allowance = leases;
    const { usage, noteAccepted } = servedUsage(backend, leases, telemetry, clock);
    const accepted = (stored: readonly StoredRequest[]): void => {
      place.accepted(stored);
      noteAccepted(stored);
    };
    const acceptor = new AcceptRequests(backend.requests, leases, guard, clock, accepted);
    let scheduleWakeups: DueWakeups | null = null;
    if (config.roles.delivery) {
      transport = tracing ? tracing.transport(deliveryTransport(config)) : deliveryTransport(config);
      engine = deliveryEngine(config, backend, transport, place, clock, observed);
      await place.startDelivery(engine);
      engine.start();
      const occurrenceGuard = new IdempotencyGuard(backend.idempotency, clock, OCCURRENCE_GUARD_TIMINGS);
      const occurrenceAcceptor = new AcceptRequests(backend.requests, leases, occurrenceGuard, clock, accepted);
      scheduler = scheduleFiring(config, backend, occurrenceAcceptor, place, clock, observed);
      scheduleWakeups = place.join(scheduler, config.delivery.idlePollMs);
      scheduler.start();
    }
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
        queries: new ScheduleQueries(backend.schedules, clock, cursorSecret),
      });
      server = await startServer({
        host: config.host,
        httpPort: config.httpPort,
        grpcPort: config.grpcPort,
        tls: config.tls,
        services: [served(RequestService, requests), served(ScheduleService, schedules), served(ProjectService, projectServiceImpl({ auth, usage }))],
        readiness,
        shutdownGraceMs: config.delivery.shutdownGraceMs,
        clock,
        observer: tracing ? tracing.observer(telemetry.observer) : telemetry.observer,
        // The web console's page and assets, beside the scrape route; its data comes through the API with a key.
        operationalRoutes: [...telemetry.operationalRoutes, ...(config.consoleEnabled ? consoleRoutes() : [])],
        ...(config.cors ? { cors: config.cors } : {}),
        ...(tracing ? { traceCall: tracing.traceCall } : {}),
      });
    }
  } catch (err) {
    await scheduler?.stop();
    await engine?.stop(0);
    await transport?.close();
    await placement?.stop().catch(() => undefined);
    await closeChecks().catch(() => undefined);
    await backend.close();
    await telemetry.close();
    await tracing?.shutdown();
    throw err;
  }
  const release = holdProcessOpen();
  const graceMs = config.delivery.shutdownGraceMs;
  const shutDown = async (): Promise<void> => {
    // The API and the scheduler stop accepting while attempts in flight finish: both within the one grace.
    const accepting = (async () => {
      await Promise.all([server?.drain(), scheduler?.stop()]);
      await allowance?.releaseAll().catch((err: unknown) => log('warn', 'allowance release failed', { error: String(err) }));
    })();
    await Promise.all([accepting, engine?.stop(graceMs)]);
    // Readiness answers `draining` until here; then whatever connections remain are closed or cut.
    await server?.close();
    await transport?.close();
    await placement?.stop();
    await closeChecks();
    await backend.close();
    await telemetry.close();
    await tracing?.shutdown();
  };
  let stopped: Promise<void> | undefined;
  return {
    server,
    readiness,
    stop() {
      stopped ??= (async () => {
        readiness.startDraining();
        log('info', 'draining', { grace_ms: graceMs });
        const deadline = new AbortController();
        try {
          const late = clock.sleep(graceMs + STOP_MARGIN_MS, deadline.signal).then(() => !deadline.signal.aborted);
          const work = shutDown();
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

function deliveryEngine(
  config: Config,
  backend: Backend,
  transport: DeliveryTransport,
  placement: WorkPlacement,
  clock: Clock,
  hooks: ServiceHooks,
): DeliveryEngine {
  const secrets = new SigningSecretCache(backend.projects, clock);
  return new DeliveryEngine({
    requests: backend.requests,
    transport,
    clock,
    signingSecrets: (projectId) => secrets.get(projectId),
    retry: {
      baseMs: config.delivery.retryBaseMs,
      capMs: config.delivery.retryCapMs,
      retryAfterCapMs: config.delivery.retryAfterCapMs,
    },
    maxInFlight: config.delivery.maxInFlight,
    maxPerHost: config.delivery.maxPerHost,
    maxPerQueue: config.delivery.maxPerQueue,
    idlePollMs: config.delivery.idlePollMs,
    userAgent: USER_AGENT,
    ...(placement.shards ? { shards: placement.shards } : {}),
    onEvent: (event) => {
      if (event.type === 'engine_error') log('error', 'delivery error', { error: event.error });
      hooks.onDeliveryEvent?.(event);
    },
  });
}

function scheduleFiring(
  config: Config,
  backend: Backend,
  acceptor: AcceptRequests,
  placement: WorkPlacement,
  clock: Clock,
  hooks: ServiceHooks,
): ScheduleFiring {
  const occurrences = new ScheduleOccurrences(acceptor, backend.projects, clock);
  const withdrawal = new OccurrenceWithdrawal(backend, clock);
  return new ScheduleFiring({
    schedules: backend.schedules,
    fire: (schedule, at) => occurrences.fire(schedule, at),
    withdraw: (schedule, at, asOf) => withdrawal.withdraw(schedule, at, asOf),
    clock,
    idlePollMs: config.delivery.idlePollMs,
    leadMs: config.scheduleLeadMs,
    maxConcurrent: SCHEDULER_CONCURRENCY,
    ...(placement.shards ? { shards: placement.shards } : {}),
    onEvent: (event) => {
      if (event.type === 'scheduler_error') log('error', 'scheduler error', { error: event.error });
      else if (event.type === 'occurrence_missed') log('warn', 'occurrence missed', { schedule_id: event.scheduleId, at: new Date(event.at).toISOString() });
      hooks.onSchedulerEvent?.(event);
    },
  });
}

/**
 * The backlog and shard gauges, from what each backend answers cheaply: the embedded database counts its whole
 * backlog over an index; a distributed process knows only its own shards.
 */
function watchWork(telemetry: ServiceTelemetry, config: Config, backend: Backend, place: WorkPlacement): void {
  const shards = place.shards;
  if (config.distributed === null || shards === undefined) {
    telemetry.watchEmbeddedBacklog(embeddedDatabaseFile(config));
    return;
  }
  telemetry.watchShardsOwned(() => shards().length);
  if (config.roles.delivery) telemetry.watchShardBacklog(async () => ({ counts: null, oldestDueAt: await backend.requests.nextDueAt(shards()) }));
}

/**
 * The workers' timers never hold the process open (see `Clock.setTimer`), and a process that only delivers may
 * have nothing else that does: the running service holds it, until it has stopped.
 */
function holdProcessOpen(): () => void {
  const handle = setInterval(() => undefined, 3_600_000);
  return () => clearInterval(handle);
}
