import { expect } from 'vitest';
import { AcceptRequests } from '../../src/app/accept-requests.js';
import { AllowanceLeases } from '../../src/app/allowance-leases.js';
import { OccurrenceWithdrawal } from '../../src/app/enqueued-occurrence.js';
import { IdempotencyGuard } from '../../src/app/idempotency-guard.js';
import { occurrenceKey, ScheduleOccurrences } from '../../src/app/schedule-occurrences.js';
import { systemClock, type Clock } from '../../src/domain/clock.js';
import type { Acceptance, StoredRequest } from '../../src/domain/request.js';
import type { SchedulePatch, StoredSchedule } from '../../src/domain/schedule/schedule.js';
import type { Backend } from '../../src/ports/backend.js';
import type { IdempotencyStore } from '../../src/ports/idempotency.js';
import type { ScheduleStore } from '../../src/ports/schedules.js';
import type { SchedulerEvent } from '../../src/workers/scheduler/events.js';
import { ScheduleFiring } from '../../src/workers/scheduler/firing-worker.js';
import { openTestBackend } from './deployment.js';
import { overlapSlotsOver, requestStatusIn } from '../../src/app/overlap-slots.js';

/*
 * Looking at a deployment's schedule occurrences behind the API: which request each occurrence made, and firing
 * them in-process with the very parts `ferry serve` uses.
 */

/** Opens the deployment's storage for `use` and closes it again, also when `use` fails. */
export async function withStorage<T>(dataDir: string, use: (backend: Backend) => Promise<T>): Promise<T> {
  const backend = await openTestBackend(dataDir);
  try {
    return await use(backend);
  } finally {
    await backend.close();
  }
}

/** Every request of the project's schedules, grouped by schedule ID. */
export async function recurringRequests(backend: Backend, projectId: string): Promise<Map<string, StoredRequest[]>> {
  const all = await backend.requests.list({ projectId, source: 'recurring', terminalCutoff: 0, limit: 10_000 });
  const bySchedule = new Map<string, StoredRequest[]>();
  for (const r of all) {
    expect(r.scheduleId, `recurring request ${r.id} has no schedule`).not.toBeNull();
    bySchedule.set(r.scheduleId!, [...(bySchedule.get(r.scheduleId!) ?? []), r]);
  }
  return bySchedule;
}

/**
 * The request IDs the occurrence of `schedule` at `at` answered with, from its idempotency record (the instant and
 * the schedule's revision, its `updatedAt`, in the schedule's scope); null when that occurrence never fired under
 * this revision, [] while its firing is unfinished.
 */
export async function occurrenceRequestIds(
  backend: Backend,
  schedule: Pick<StoredSchedule, 'id' | 'updatedAt'>,
  at: number,
): Promise<string[] | null> {
  const record = await backend.idempotency.get(schedule.id, occurrenceKey(at, schedule.updatedAt), Date.now());
  if (record === null) return null;
  return record.outcome === null ? [] : (JSON.parse(record.outcome) as Acceptance[]).map((a) => a.id);
}

/** The identity and revision of a schedule as the API answers it: its `updated_at` is its revision, to the millisecond. */
export function revisionOf(s: { readonly id: string; readonly updated_at: string }): Pick<StoredSchedule, 'id' | 'updatedAt'> {
  return { id: s.id, updatedAt: Date.parse(s.updated_at) };
}

/**
 * Asserts that the schedule made exactly one request for each of `instants` and no other: each occurrence's record
 * (under the schedule's revision as stored now) names one request, the requests are distinct, and they are all the
 * schedule's requests in storage (withdrawn ones never existed, and are not listed). Answers the request ID of each
 * instant.
 */
export async function expectOneRequestPerOccurrence(
  backend: Backend,
  projectId: string,
  scheduleId: string,
  instants: readonly number[],
): Promise<string[]> {
  const schedule = await backend.schedules.get(projectId, scheduleId);
  expect(schedule, `schedule ${scheduleId}`).not.toBeNull();
  const stored = (await recurringRequests(backend, projectId)).get(scheduleId) ?? [];
  const ids: string[] = [];
  for (const at of instants) {
    const named = await occurrenceRequestIds(backend, schedule!, at);
    expect(named, `occurrence ${new Date(at).toISOString()} of ${scheduleId}`).toHaveLength(1);
    ids.push(named![0]!);
  }
  expect(new Set(ids).size, 'two occurrences named the same request').toBe(ids.length);
  expect(stored.map((r) => r.id).sort(), `requests of schedule ${scheduleId}`).toEqual([...ids].sort());
  return ids;
}

/**
 * Changes a stored schedule behind the API, as a conditional write on its current version. Its revision (its
 * `updatedAt`, part of each occurrence's identity) stays unless `patch` sets it: such a rewrite sets up a state the
 * scheduler itself could leave, not a change made through the API.
 */
export async function rewrite(backend: Backend, projectId: string, id: string, patch: SchedulePatch): Promise<StoredSchedule> {
  const current = await backend.schedules.get(projectId, id);
  expect(current, `schedule ${id}`).not.toBeNull();
  return backend.schedules.update(projectId, id, current!.version, patch);
}

/**
 * A firing worker built as `ferry serve` builds it (see `src/runtime/service.ts`), over `backend`, firing every
 * due schedule (no shard scope). `schedules` may wrap the backend's store.
 */
export function firingWorker(
  backend: Backend,
  opts: { schedules?: ScheduleStore; clock?: Clock; leadMs?: number; onEvent?: (e: SchedulerEvent) => void } = {},
): { worker: ScheduleFiring; allowance: AllowanceLeases } {
  const clock = opts.clock ?? systemClock;
  const guard = new IdempotencyGuard(backend.idempotency, clock);
  const allowance = new AllowanceLeases(backend.usage);
  const acceptor = new AcceptRequests(backend.requests, allowance, guard, clock);
  const occurrences = new ScheduleOccurrences(acceptor, backend.projects, clock);
  const withdrawal = new OccurrenceWithdrawal(backend, clock);
  const worker = new ScheduleFiring({
    schedules: opts.schedules ?? backend.schedules,
    fire: (schedule, at) => occurrences.fire(schedule, at),
    requestStatus: requestStatusIn(backend.requests),
    overlap: overlapSlotsOver(backend, clock),
    withdraw: (schedule, at, asOf) => withdrawal.withdraw(schedule, at, asOf),
    clock,
    idlePollMs: 60_000,
    leadMs: opts.leadMs ?? 0,
    maxConcurrent: 256,
    ...(opts.onEvent ? { onEvent: opts.onEvent } : {}),
  });
  return { worker, allowance };
}

/**
 * How long before the restart the dying process of `diesBeforeRecording` took its claims: the restarted process
 * takes a claim over once it is older than the lease (30 s), so a claim stamped this long ago is taken over a few
 * seconds after the restart rather than half a minute, by the same rule.
 */
const DIED_AGO_MS = 25_000;

/**
 * Occurrences fired as `ferry serve` fires them, by a process that dies right after storing an occurrence's
 * request: its idempotency record never gets the outcome (the write hangs forever), so the claim stays open with
 * its plan, exactly as a SIGKILL between the two writes leaves it. Its claims are stamped `DIED_AGO_MS` back.
 */
export function diesBeforeRecording(backend: Backend): ScheduleOccurrences {
  const s = backend.idempotency;
  const idempotency: IdempotencyStore = {
    claimAll: (claims, now) => s.claimAll(claims.map((c) => ({ ...c, claimedAt: c.claimedAt - DIED_AGO_MS })), now),
    takeOver: (claim, staleBefore) => s.takeOver(claim, staleBefore),
    completeAll: () => new Promise<void>(() => undefined),
    releaseAll: (p, keys) => s.releaseAll(p, keys),
    abandonAll: (p, keys) => s.abandonAll(p, keys),
    get: (p, key, now) => s.get(p, key, now),
  };
  const guard = new IdempotencyGuard(idempotency, systemClock);
  const acceptor = new AcceptRequests(backend.requests, new AllowanceLeases(backend.usage), guard, systemClock);
  return new ScheduleOccurrences(acceptor, backend.projects, systemClock);
}

/** Follows a process's log and keeps the lines that report scheduler errors or missed occurrences. */
export function schedulerLog(follow: (f: (text: string) => void) => void): { errors: string[]; missed: string[] } {
  const seen = { errors: [] as string[], missed: [] as string[] };
  let partial = '';
  follow((text) => {
    const lines = (partial + text).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      if (line.includes('"scheduler error"')) seen.errors.push(line);
      if (line.includes('"occurrence missed"')) seen.missed.push(line);
    }
  });
  return seen;
}
