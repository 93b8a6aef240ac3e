import { decideCancel } from '../domain/lifecycle.js';
import type { Acceptance } from '../domain/request.js';
import type { StoredSchedule } from '../domain/schedule/schedule.js';
import type { IdempotencyStore } from '../ports/idempotency.js';
import type { RequestStore } from '../ports/requests.js';
import { occurrenceKey } from './schedule-occurrences.js';

const MAX_TRIES = 5;

/**
 * Cancels the request of the schedule's occurrence that was enqueued ahead of its instant and is not due yet, if
 * there is one: pausing or deleting a schedule stops its future occurrences, that one included. The request is
 * found through the occurrence's idempotency record, which names it.
 */
export async function cancelEnqueuedOccurrence(
  idempotency: IdempotencyStore,
  requests: RequestStore,
  schedule: StoredSchedule,
  now: number,
): Promise<void> {
  const at = schedule.lastRunAt;
  if (at === null || at <= now || schedule.lastRunOutcome !== 'enqueued') return;
  const record = await idempotency.get(schedule.id, occurrenceKey(at), now);
  if (record === null || record.outcome === null) return;
  const [accepted] = JSON.parse(record.outcome) as Acceptance[];
  if (accepted === undefined) return;
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    const request = await requests.get(schedule.projectId, accepted.id);
    if (request === null) return;
    const decision = decideCancel(request, now);
    if (decision.kind !== 'cancel_now' && decision.kind !== 'cancel_after_attempt') return;
    if (decision.patch === null) return;
    // A cancel like the API's: the request's deliverer makes it final. Not recorded: the request moved on; look again.
    if (await requests.requestCancel(schedule.projectId, request.id, now)) return;
  }
}
