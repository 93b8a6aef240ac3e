import { randomUUID } from 'node:crypto';
import type { BudgetQueries } from '../app/budget-queries.js';
import { StatsQueries } from '../app/stats-queries.js';
import { StatsRecorder } from '../app/stats-recorder.js';
import type { Clock } from '../domain/clock.js';
import type { Backend } from '../ports/backend.js';
import type { DeliveryEvent } from '../workers/delivery/events.js';
import { log } from './log.js';

/** The overview's counting in this process: started here, written to storage in batches, flushed on stop. */
export function statsRecorder(backend: Backend, clock: Clock): StatsRecorder {
  const recorder = new StatsRecorder(backend.stats, clock, randomUUID(), { onProblem: (what, detail) => log('warn', what, detail) });
  recorder.start();
  return recorder;
}

/** What a delivery event adds to the overview: a request that ended, or an attempt followed by a retry. */
export function countDeliveryEvent(recorder: StatsRecorder, event: DeliveryEvent): void {
  if (event.type !== 'attempt_finished') return;
  if (event.requestStatus === 'succeeded') recorder.attemptEnded(event.projectId, 'delivered');
  else if (event.requestStatus === 'failed') recorder.attemptEnded(event.projectId, 'failed');
  // Still waiting with a delay chosen: another attempt follows (a cancel that won instead leaves it `cancelled`).
  else if (event.requestStatus === 'queued' && event.retryDelayMs !== null) recorder.attemptEnded(event.projectId, 'retried');
}

export function statsQueries(backend: Backend, recorder: StatsRecorder, budgets: BudgetQueries, clock: Clock): StatsQueries {
  return new StatsQueries(backend.stats, recorder, budgets, clock);
}
