import { afterEach, beforeEach, expect } from 'vitest';
import { DEFAULT_SCHEDULE_POLICY } from '../../../src/domain/schedule/policy.js';
import { EMPTY_RUN_STATE } from '../../../src/domain/schedule/runs.js';
import type { AttemptRecord, RequestPatch, StoredRequest } from '../../../src/domain/request.js';
import type { Settlement } from '../../../src/domain/request-lifecycle/index.js';
import type { StoredSchedule } from '../../../src/domain/schedule/schedule.js';
import type { Backend } from '../../../src/ports/backend.js';
import type { Claim, RequestStore } from '../../../src/ports/requests.js';

/** Opens a backend on fresh, empty storage; every call gives storage no other test sees. */
export type BackendFactory = () => Promise<Backend>;

/** Fresh, empty storage that can be opened again after it was closed, to check what survives. */
export interface ReopenableStorage {
  open(): Promise<Backend>;
}

/** Opens a fresh backend before each test and closes it after; the getter returns the current one. */
export function useBackend(make: BackendFactory): () => Backend {
  let current: Backend | undefined;
  beforeEach(async () => {
    current = await make();
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return () => {
    if (current === undefined) throw new Error('The backend exists only while a test runs.');
    return current;
  };
}

/** The shard count the contract files give a distributed backend: where a callback is placed (`settleAttempt`). */
export const CONTRACT_SHARDS = 8;

export const PROJECT_A = 'prj_contract_a';
export const PROJECT_B = 'prj_contract_b';
export const T0 = Date.UTC(2030, 0, 15, 12, 0, 0);

let sequence = 0;

/** IDs that sort in creation order, so tests can state expected orders plainly. */
export function nextRequestId(): string {
  sequence += 1;
  return `req_contract_${String(sequence).padStart(8, '0')}`;
}

export function aRequest(overrides: Partial<StoredRequest> = {}): StoredRequest {
  const createdAt = overrides.createdAt ?? T0;
  return {
    id: nextRequestId(),
    projectId: PROJECT_A,
    url: 'https://example.com/hook',
    method: 'POST',
    headers: [],
    body: null,
    contentType: null,
    maxAttempts: 3,
    timeoutSeconds: 50,
    queue: 'default',
    flowKeys: [],
    metadata: {},
    waitingFor: null,
    callbacks: null,
    callbackForRequestId: null,
    callbackRequestIds: [],
    source: 'api',
    replayedFromRequestId: null,
    scheduleId: null,
    status: 'queued',
    scheduledAt: null,
    dueAt: createdAt,
    attemptCount: 0,
    createdAt,
    updatedAt: createdAt,
    startedAt: null,
    completedAt: null,
    cancelledAt: null,
    cancelRequestedAt: null,
    lastStatusCode: null,
    version: 1,
    ...overrides,
  };
}

/** Schedule IDs that sort in creation order, as `nextRequestId` does for requests. */
export function nextScheduleId(): string {
  sequence += 1;
  return `sch_contract_${String(sequence).padStart(8, '0')}`;
}

/** An active schedule created at `createdAt` (T0 by default), firing every minute from one minute later. */
export function aSchedule(overrides: Partial<StoredSchedule> = {}): StoredSchedule {
  const createdAt = overrides.createdAt ?? T0;
  const firstRunAt = createdAt + 60_000;
  return {
    id: nextScheduleId(),
    projectId: PROJECT_A,
    name: 'nightly report',
    timing: { type: 'interval', everySeconds: 60, startsAt: null, firstRunAt, endsAt: null },
    status: 'active',
    pauseReason: null,
    policy: DEFAULT_SCHEDULE_POLICY,
    runs: EMPTY_RUN_STATE,
    request: { url: 'https://example.com/cron', headers: [], body: null, retry: 3, flowKeys: [], callbacks: null, queue: 'default', timeoutSeconds: 50, metadata: {} },
    nextRunAt: firstRunAt,
    lastRunAt: null,
    lastRunOutcome: null,
    previousRunAt: null,
    previousRunOutcome: null,
    createdAt,
    updatedAt: createdAt,
    version: 1,
    ...overrides,
  };
}

/** The change that records a first attempt's success at `at`. */
export function succeededAt(at: number): RequestPatch {
  return { status: 'succeeded', attemptCount: 1, completedAt: at, updatedAt: at, dueAt: null };
}

/** An attempt settled with the change `set`, as `recordAttempt` takes it. */
export function settled(attempt: AttemptRecord, set: RequestPatch): Settlement {
  return { attempt, change: { set }, callback: null };
}

/** The one claim `claimDue` makes at `now` of request `id`, due then and alone due in the store. */
export async function claimOf(store: RequestStore, id: string, now: number, leaseUntil = now + 60_000): Promise<Claim> {
  const claims = await store.claimDue(now, 10, leaseUntil);
  expect(claims.map((c) => c.request.id)).toEqual([id]);
  return claims[0]!;
}

/**
 * Waits until the store shows `claims` as claimed: at once for a backend that stores claims as it makes them, once
 * stored for one that holds them in the claiming process for a while (see `RequestStore.claimDue`).
 */
export async function claimsStored(store: RequestStore, claims: readonly Claim[]): Promise<void> {
  for (const { request } of claims) {
    await expect
      .poll(() => store.get(request.projectId, request.id), { timeout: 15_000 })
      .toMatchObject({ status: 'delivering', dueAt: request.dueAt, version: request.version });
  }
}

export function anAttempt(requestId: string, attemptNumber: number, overrides: Partial<AttemptRecord> = {}): AttemptRecord {
  const startedAt = T0 + attemptNumber * 60_000;
  return {
    requestId,
    attemptNumber,
    status: 'failed',
    responseStatusCode: 500,
    errorMessage: null,
    durationMs: 120,
    startedAt,
    completedAt: startedAt + 120,
    retry: null,
    finalReason: null,
    response: null,
    ...overrides,
  };
}

/** Every byte value, then a sequence that is not valid UTF-8, then NULs: nothing may be decoded or trimmed. */
export function awkwardBytes(): Uint8Array {
  return new Uint8Array([...Array.from({ length: 256 }, (_, i) => i), 0xc3, 0x28, 0xff, 0xfe, 0, 0]);
}

/** Byte equality without the element-by-element deep compare of the assertion library, slow on large arrays. */
export function sameBytes(actual: Uint8Array | null | undefined, expected: Uint8Array): boolean {
  return actual instanceof Uint8Array && Buffer.from(actual.buffer, actual.byteOffset, actual.byteLength).equals(expected);
}

export function countFulfilled(results: ReadonlyArray<PromiseSettledResult<unknown>>): number {
  return results.filter((r) => r.status === 'fulfilled').length;
}

export function rejectionsOf(results: ReadonlyArray<PromiseSettledResult<unknown>>): unknown[] {
  return results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
}
