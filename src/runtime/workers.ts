import { readFileSync } from 'node:fs';
import { createThreadedTransport } from '../adapters/http/threaded-transport.js';
import { createHttpTransport } from '../adapters/http/transport.js';
import type { ServiceTelemetry } from '../adapters/telemetry/service-telemetry.js';
import type { AcceptRequests } from '../app/accept-requests.js';
import { OccurrenceWithdrawal } from '../app/enqueued-occurrence.js';
import { DEFAULT_GUARD_TIMINGS } from '../app/idempotency-guard.js';
import { ScheduleOccurrences } from '../app/schedule-occurrences.js';
import type { Config } from '../config/config.js';
import type { Clock } from '../domain/clock.js';
import type { Backend } from '../ports/backend.js';
import type { DeliveryTransport } from '../ports/delivery-transport.js';
import { budgetShare } from '../domain/flow/shares.js';
import type { RequestPlacement } from '../app/accept-plan.js';
import { overlapSlotsOver, requestStatusIn } from '../app/overlap-slots.js';
import { localShardChooser } from '../workers/placement/local-shards.js';
import { BudgetGate } from '../workers/delivery/budget-gate.js';
import { DeliveryEngine } from '../workers/delivery/engine.js';
import type { DeliveryEvent } from '../workers/delivery/events.js';
import { ProjectDeliveryCache } from '../workers/delivery/project-delivery.js';
import type { WorkPlacement } from '../workers/placement/work-placement.js';
import type { SchedulerEvent } from '../workers/scheduler/events.js';
import { ScheduleFiring } from '../workers/scheduler/firing-worker.js';
import { log } from './log.js';
import { embeddedDatabaseFile } from './storage.js';

export const USER_AGENT = 'Ferry/0.1 (+delivery)';

/** Occurrences fired at once by one process: enough for their storage writes to share commits. */
const SCHEDULER_CONCURRENCY = 256;
/**
 * An occurrence whose key is still held (by a process that died while firing it, until the claim's lease runs
 * out) is given up on after a second and tried again on a later look, instead of holding up the occurrences due
 * with it for the API's ten-second wait.
 */
export const OCCURRENCE_GUARD_TIMINGS = { ...DEFAULT_GUARD_TIMINGS, waitMs: 1_000 };

export function deliveryTransport(config: Config): DeliveryTransport {
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

export function deliveryEngine(
  config: Config,
  backend: Backend,
  transport: DeliveryTransport,
  placement: WorkPlacement,
  clock: Clock,
  onDeliveryEvent: (event: DeliveryEvent) => void,
  budgets: BudgetGate,
): DeliveryEngine {
  const projects = new ProjectDeliveryCache(backend.projects, clock);
  return new DeliveryEngine({
    requests: backend.requests,
    transport,
    clock,
    projectDelivery: (projectId) => projects.get(projectId),
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
    ...(config.distributed !== null ? { shardCount: config.distributed.shards } : {}),
    budgets,
    onEvent: (event) => {
      if (event.type === 'engine_error') log('error', 'delivery error', { error: event.error });
      onDeliveryEvent(event);
    },
  });
}

/**
 * Where this process's accepted requests go, distributed: by flow key, then (`FERRY_PLACEMENT=local`, not the default,
 * in a delivering process) on its own shards for queues without limits, else anywhere (`localShardChooser`).
 */
export function requestPlacement(config: Config, placement: WorkPlacement, gate: BudgetGate | null): RequestPlacement | null {
  const distributed = config.distributed;
  if (distributed === null) return null;
  const owned = placement.shards;
  if (distributed.placement === 'spread' || gate === null || owned === undefined) return { shardCount: distributed.shards };
  return { shardCount: distributed.shards, localShard: localShardChooser(owned, (projectId, queue) => gate.limited(projectId, 'queue', queue)) };
}

/**
 * The flow-control budgets this process enforces: in distributed mode, each its share by the shards it owns
 * (`budgetShare`); configurations are read from storage at start and every half second after.
 */
export function budgetGate(config: Config, backend: Backend, placement: WorkPlacement, clock: Clock): BudgetGate {
  const shards = placement.shards;
  const shardCount = config.distributed?.shards;
  return new BudgetGate({
    budgets: backend.budgets,
    clock,
    ...(shards !== undefined && shardCount !== undefined
      ? { shareOf: (kind, projectId, name) => budgetShare(kind, projectId, name, shards(), shardCount) }
      : {}),
    onError: (err) => log('warn', 'reading flow-control budgets failed', { error: String(err) }),
  });
}

export function scheduleFiring(
  config: Config,
  backend: Backend,
  acceptor: AcceptRequests,
  placement: WorkPlacement,
  clock: Clock,
  onSchedulerEvent: (event: SchedulerEvent) => void,
): ScheduleFiring {
  const occurrences = new ScheduleOccurrences(acceptor, backend.projects, clock);
  const withdrawal = new OccurrenceWithdrawal(backend, clock);
  return new ScheduleFiring({
    schedules: backend.schedules,
    fire: (schedule, at, dueAt) => occurrences.fire(schedule, at, dueAt),
    requestStatus: requestStatusIn(backend.requests),
    overlap: overlapSlotsOver(backend, clock),
    withdraw: (schedule, at, asOf) => withdrawal.withdraw(schedule, at, asOf),
    clock,
    idlePollMs: config.delivery.idlePollMs,
    leadMs: config.scheduleLeadMs,
    maxConcurrent: SCHEDULER_CONCURRENCY,
    ...(placement.shards ? { shards: placement.shards } : {}),
    onEvent: (event) => {
      if (event.type === 'scheduler_error') log('error', 'scheduler error', { error: event.error });
      else if (event.type === 'occurrence_missed') log('warn', 'occurrence missed', { schedule_id: event.scheduleId, at: new Date(event.at).toISOString() });
      onSchedulerEvent(event);
    },
  });
}

/**
 * The backlog and shard gauges, from what each backend answers cheaply: the embedded database counts its whole
 * backlog over an index; a distributed process knows only its own shards.
 */
export function watchWork(telemetry: ServiceTelemetry, config: Config, backend: Backend, place: WorkPlacement): void {
  const shards = place.shards;
  if (config.distributed === null || shards === undefined) {
    telemetry.watchEmbeddedBacklog(embeddedDatabaseFile(config));
    return;
  }
  telemetry.watchShardsOwned(() => shards().length);
  if (config.roles.delivery) telemetry.watchShardBacklog(async () => ({ counts: null, oldestDueAt: await backend.requests.nextDueAt(shards()) }));
}
