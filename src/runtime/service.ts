import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openEmbeddedBackend } from '../adapters/embedded/backend.js';
import { createThreadedTransport } from '../adapters/http/threaded-transport.js';
import { createHttpTransport } from '../adapters/http/transport.js';
import { AcceptRequests } from '../app/accept-requests.js';
import { AllowanceLeases } from '../app/allowance-leases.js';
import { Authenticator } from '../app/authenticate.js';
import { DEFAULT_GUARD_TIMINGS, IdempotencyGuard } from '../app/idempotency-guard.js';
import { ProjectAdmin } from '../app/project-admin.js';
import { RequestCommands } from '../app/request-commands.js';
import { RequestQueries } from '../app/request-queries.js';
import { ScheduleCommands } from '../app/schedule-commands.js';
import { ScheduleOccurrences } from '../app/schedule-occurrences.js';
import { ScheduleQueries } from '../app/schedule-queries.js';
import type { Config } from '../config/config.js';
import { systemClock, type Clock } from '../domain/clock.js';
import { served, startServer, type RunningServer } from '../edge/server.js';
import { requestServiceImpl } from '../edge/rpc/request-service.js';
import { scheduleServiceImpl } from '../edge/rpc/schedule-service.js';
import { RequestService } from '../gen/ferry/v1/request_service_pb.js';
import { ScheduleService } from '../gen/ferry/v1/schedule_service_pb.js';
import type { Backend } from '../ports/backend.js';
import type { DeliveryTransport } from '../ports/delivery-transport.js';
import { DeliveryEngine } from '../workers/delivery/engine.js';
import type { DeliveryEvent } from '../workers/delivery/events.js';
import { SigningSecretCache } from '../workers/delivery/signing-secrets.js';
import type { DueWakeups } from '../workers/placement/due-wakeups.js';
import { embeddedPlacement } from '../workers/placement/embedded-placement.js';
import type { WorkPlacement } from '../workers/placement/work-placement.js';
import type { SchedulerEvent } from '../workers/scheduler/events.js';
import { ScheduleFiring } from '../workers/scheduler/firing-worker.js';
import { log } from './log.js';
import type * as DistributedStorageModule from './distributed-storage.js';

export const USER_AGENT = 'Ferry/0.1 (+delivery)';

/** Occurrences fired at once by one process: enough for their storage writes to share commits. */
const SCHEDULER_CONCURRENCY = 256;
/**
 * An occurrence whose key is still held (by a process that died while firing it, until the claim's lease runs
 * out) is given up on after a second and tried again on a later look, instead of holding up the occurrences due
 * with it for the API's ten-second wait.
 */
const OCCURRENCE_GUARD_TIMINGS = { ...DEFAULT_GUARD_TIMINGS, waitMs: 1_000 };

/** The composition root: the only place that knows which adapters exist. */
export async function openBackend(config: Config): Promise<Backend> {
  const d = config.distributed;
  if (d === null) return openEmbeddedBackend({ path: join(config.dataDir, 'ferry.db') });
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
    await openEmbeddedBackend({ path: join(config.dataDir, 'ferry.db') }).close();
    return;
  }
  await (await distributed()).migrateDistributed(d);
}

/** Storage, and how work placed in it reaches delivery: the two always come as a matching pair. */
async function openStorage(config: Config, clock: Clock): Promise<{ backend: Backend; placement: () => Promise<WorkPlacement> }> {
  const d = config.distributed;
  if (d === null) {
    const backend = await openBackend(config);
    return { backend, placement: async () => embeddedPlacement(backend.requests, clock) };
  }
  return (await distributed()).openDistributedStorage(config, d, clock);
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
  /** Stops listening, finishes or hands back attempts in flight, then closes storage. */
  stop(): Promise<void>;
}

export interface ServiceHooks {
  readonly clock?: Clock;
  readonly onDeliveryEvent?: (event: DeliveryEvent) => void;
  readonly onSchedulerEvent?: (event: SchedulerEvent) => void;
}

export async function startService(config: Config, hooks: ServiceHooks = {}): Promise<RunningService> {
  const clock = hooks.clock ?? systemClock;
  const { backend, placement: openPlacement } = await openStorage(config, clock);
  let engine: DeliveryEngine | null = null;
  let scheduler: ScheduleFiring | null = null;
  let server: RunningServer | null = null;
  let allowance: AllowanceLeases | null = null;
  let placement: WorkPlacement | null = null;
  let transport: DeliveryTransport | null = null;
  try {
    const place = await openPlacement();
    placement = place;
    // Requests accepted by the API and occurrences fired by the scheduler take the same path and allowance.
    const guard = new IdempotencyGuard(backend.idempotency, clock);
    allowance = new AllowanceLeases(backend.usage);
    const acceptor = new AcceptRequests(backend.requests, allowance, guard, clock, (stored) => place.accepted(stored));
    let scheduleWakeups: DueWakeups | null = null;
    if (config.roles.delivery) {
      transport = deliveryTransport(config);
      engine = deliveryEngine(config, backend, transport, place, clock, hooks);
      await place.startDelivery(engine);
      engine.start();
      const occurrenceGuard = new IdempotencyGuard(backend.idempotency, clock, OCCURRENCE_GUARD_TIMINGS);
      const occurrenceAcceptor = new AcceptRequests(backend.requests, allowance, occurrenceGuard, clock, (stored) => place.accepted(stored));
      scheduler = scheduleFiring(config, backend, occurrenceAcceptor, place, clock, hooks);
      scheduleWakeups = place.join(scheduler, config.delivery.idlePollMs);
      scheduler.start();
    }
    if (config.roles.api) {
      const cursorSecret = await backend.secrets.getOrCreate('cursor', randomBytes(32));
      const auth = new Authenticator(backend.projects, clock, config.authCacheMs);
      const options = { allowPrivateDestinations: config.allowPrivateDestinations };
      const requests = requestServiceImpl({
        auth,
        commands: new RequestCommands(acceptor, backend.requests, clock, options),
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
        services: [served(RequestService, requests), served(ScheduleService, schedules)],
      });
    }
  } catch (err) {
    await scheduler?.stop();
    await engine?.stop(0);
    await transport?.close();
    await placement?.stop().catch(() => undefined);
    await backend.close();
    throw err;
  }
  const release = holdProcessOpen();
  return {
    server,
    async stop() {
      try {
        await server?.close();
        await scheduler?.stop();
        await allowance?.releaseAll().catch((err: unknown) => log('warn', 'allowance release failed', { error: String(err) }));
        await engine?.stop(config.delivery.shutdownGraceMs);
        await transport?.close();
        await placement?.stop();
        await backend.close();
      } finally {
        release();
      }
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
  return new ScheduleFiring({
    schedules: backend.schedules,
    fire: (schedule, at) => occurrences.fire(schedule, at),
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
 * The workers' timers never hold the process open (see `Clock.setTimer`), and a process that only delivers may
 * have nothing else that does: the running service holds it, until it has stopped.
 */
function holdProcessOpen(): () => void {
  const handle = setInterval(() => undefined, 3_600_000);
  return () => clearInterval(handle);
}
