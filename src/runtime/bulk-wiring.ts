import { monitorEventLoopDelay } from 'node:perf_hooks';
import { AcceptRequests } from '../app/accept-requests.js';
import type { RequestPlacement } from '../app/accept-plan.js';
import type { AllowanceLeases } from '../app/allowance-leases.js';
import { BulkActionBatches } from '../app/bulk-action-batches.js';
import { DEFAULT_GUARD_TIMINGS, IdempotencyGuard } from '../app/idempotency-guard.js';
import type { QueueUses } from '../app/queue-uses.js';
import type { Config } from '../config/config.js';
import type { Clock } from '../domain/clock.js';
import type { StoredRequest } from '../domain/request.js';
import { shardOf } from '../domain/shards.js';
import type { Backend } from '../ports/backend.js';
import { BulkActionRunner } from '../workers/bulk/bulk-runner.js';
import type { WorkPlacement } from '../workers/placement/work-placement.js';
import { log } from './log.js';

/** How often the main thread's lateness is sampled. */
const DELAY_RESOLUTION_MS = 10;

/**
 * How late the main thread ran its timers (p99) since the previous call, in milliseconds (`BulkPace`'s signal).
 * The histogram records each whole sampling interval, the resolution included (an idle loop reads about 10.1 ms
 * at a 10 ms resolution): that part is taken off, leaving the lateness an accept would wait.
 */
function mainThreadDelay(): () => number {
  const histogram = monitorEventLoopDelay({ resolution: DELAY_RESOLUTION_MS });
  histogram.enable();
  return () => {
    const p99 = histogram.count === 0 ? 0 : histogram.percentile(99) / 1e6;
    histogram.reset();
    return Math.max(0, p99 - DELAY_RESOLUTION_MS);
  };
}

/**
 * The replays of a batch whose item keys a process that died still holds are taken over after ten seconds, and a
 * batch that meets one gives up after a second and is tried again: a bulk action resumes soon after a crash. A
 * batch of a live process is stored within the lease by far (a few hundred milliseconds).
 */
const BULK_GUARD_TIMINGS = { ...DEFAULT_GUARD_TIMINGS, leaseMs: 10_000, waitMs: 1_000 };
const BULK_RETRY_MS = 2_000;

/**
 * The runner of bulk actions in a delivering process: it runs the actions whose ID falls in a shard this process
 * owns (every action, embedded), so exactly one process runs each, and the next owner of the shard resumes it.
 */
export function bulkActionRunner(
  config: Config,
  backend: Backend,
  leases: AllowanceLeases,
  accepted: (stored: readonly StoredRequest[]) => void,
  queueUses: QueueUses,
  place: WorkPlacement,
  clock: Clock,
): BulkActionRunner {
  const placement: RequestPlacement | null = config.distributed === null ? null : { shardCount: config.distributed.shards };
  const guard = new IdempotencyGuard(backend.idempotency, clock, BULK_GUARD_TIMINGS);
  const acceptor = new AcceptRequests(backend.requests, leases, guard, clock, accepted, queueUses, placement);
  const batches = new BulkActionBatches(backend.requests, acceptor, clock, { allowPrivateDestinations: config.allowPrivateDestinations });
  const shards = place.shards;
  const shardCount = config.distributed?.shards ?? 1;
  return new BulkActionRunner({
    store: backend.bulkActions,
    batches,
    projects: backend.projects,
    clock,
    owns: shards === undefined ? () => true : (id) => shards().includes(shardOf(id, shardCount)),
    log,
    loadDelay: mainThreadDelay(),
    options: { batchSize: config.bulk.batchSize, pauseMs: config.bulk.pauseMs, pollMs: config.delivery.idlePollMs, retryMs: BULK_RETRY_MS },
  });
}
