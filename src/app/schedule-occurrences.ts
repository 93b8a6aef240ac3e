import type { Clock } from '../domain/clock.js';
import { FerryError } from '../domain/errors.js';
import { fingerprint } from '../domain/fingerprint.js';
import type { Project } from '../domain/project.js';
import type { Acceptance } from '../domain/request.js';
import { occurrenceCreatedAt } from '../domain/schedule/enqueued-ahead.js';
import type { FiredOccurrence } from '../domain/schedule/runs.js';
import type { StoredSchedule } from '../domain/schedule/schedule.js';
import type { ProjectStore } from '../ports/projects.js';
import type { AcceptRequests, NewRequest } from './accept-requests.js';

/** Projects change seldom; firing thousands of occurrences a minute should not read each one's project every time. */
const PROJECT_CACHE_MS = 5_000;
const MAX_CACHED_PROJECTS = 10_000;

/**
 * Turns a schedule's occurrence into an ordinary request, through the same accept path as every other request.
 *
 * An occurrence is identified by its schedule, its instant and the schedule's revision (its `updatedAt`, see
 * `revisedAt`): its idempotency key is the instant and the revision, in the scope of the schedule's ID. A second
 * firing of the same occurrence (after a crash right after the first, or by another process racing for it) finds
 * the first one's request instead of creating another, and waits for it while the first is still under way. An
 * occurrence withdrawn before its instant because the schedule changed (see `OccurrenceWithdrawal`) is fired again
 * under the new revision: a new key, so the withdrawn one's record does not answer for it.
 */
export class ScheduleOccurrences {
  private readonly projects = new Map<string, { project: Project; until: number }>();

  constructor(
    private readonly acceptor: AcceptRequests,
    private readonly projectStore: ProjectStore,
    private readonly clock: Clock,
  ) {}

  /**
   * Creates the request of `schedule`'s occurrence at `at`, due at `dueAt` (the instant plus its jitter, see
   * `jitter.ts`) and created as of the instant when enqueued ahead (see `enqueued-ahead.ts`); skipped when the
   * monthly allowance is reached. The key is the instant's: a jitter never makes a second request.
   */
  async fire(schedule: StoredSchedule, at: number, dueAt = at): Promise<FiredOccurrence> {
    const project = await this.project(schedule.projectId);
    const revision = schedule.updatedAt;
    const key = { key: occurrenceKey(at, revision), fingerprint: fingerprint('occurrence', [schedule.id, at, revision]), field: 'schedule' };
    const options = { keyScope: schedule.id, createdAt: occurrenceCreatedAt(at, this.clock.now()) };
    try {
      const [accepted] = await this.acceptor.accept(project, key, [occurrenceRequest(schedule, dueAt)], options);
      return { outcome: 'enqueued', requestId: accepted!.id };
    } catch (err) {
      if (err instanceof FerryError && err.code === 'MONTHLY_ALLOWANCE_EXCEEDED') return { outcome: 'skipped_usage_limit', requestId: null };
      throw err;
    }
  }

  /**
   * One request now, outside the timing, under the caller's key in the schedule's scope (apart from the keys of
   * occurrences and backfills by its prefix). Over the monthly allowance it fails as any create does.
   */
  async trigger(project: Project, schedule: StoredSchedule, callerKey: string): Promise<Acceptance> {
    const key = { key: `trigger:${callerKey}`, fingerprint: fingerprint('trigger', [schedule.id]), field: 'Idempotency-Key' };
    const [accepted] = await this.acceptor.accept(project, key, [occurrenceRequest(schedule, null)], { keyScope: schedule.id });
    return accepted!;
  }

  /**
   * One request per instant, due now, each under a key made of the schedule and the instant alone: an instant
   * backfilled again (a retry, a second call, a racing process, a restart after kill -9) finds its request instead of
   * creating another. Answers the requests in the order of `instants`, and how many of them this call created.
   */
  async backfill(project: Project, schedule: StoredSchedule, instants: readonly number[]): Promise<{ accepted: Acceptance[]; created: number }> {
    const accepted: Acceptance[] = [];
    let created = 0;
    for (let i = 0; i < instants.length; i += BACKFILL_CHUNK) {
      const items = instants.slice(i, i + BACKFILL_CHUNK).map((at) => ({
        ...occurrenceRequest(schedule, null),
        itemKey: { key: backfillKey(at), fingerprint: fingerprint('backfill', [schedule.id, at]), field: 'instant' },
      }));
      const chunk = await this.acceptor.acceptCounted(project, null, items, { itemKeyScope: schedule.id });
      accepted.push(...chunk.accepted);
      created += chunk.inserted;
    }
    return { accepted, created };
  }

  private async project(id: string): Promise<Project> {
    const now = this.clock.now();
    const cached = this.projects.get(id);
    if (cached !== undefined && cached.until > now) return cached.project;
    const project = await this.projectStore.getProject(id);
    if (project === null) throw new Error(`Project ${id} of a schedule does not exist.`);
    if (this.projects.size >= MAX_CACHED_PROJECTS) this.projects.clear();
    this.projects.set(id, { project, until: now + PROJECT_CACHE_MS });
    return project;
  }
}

/** The idempotency key of the occurrence at `at` under the schedule's revision `revision`, in the scope of its ID. */
export function occurrenceKey(at: number, revision: number): string {
  return `occurrence:${at}:${revision}`;
}

/** The key of the backfilled instant `at`, in the scope of the schedule's ID; no revision: an instant is backfilled once. */
export function backfillKey(at: number): string {
  return `backfill:${at}`;
}

/** Backfilled requests accepted per call: the size of a batch. */
const BACKFILL_CHUNK = 100;

/**
 * Every occurrence is a POST of the schedule's JSON body, with its headers, retry budget, flow keys, queue, timeout
 * and metadata; due at its instant, or at once (`at` null).
 */
function occurrenceRequest(s: StoredSchedule, at: number | null): NewRequest {
  const { url, headers, body, retry, flowKeys, callbacks, queue, timeoutSeconds, metadata } = s.request;
  return {
    definition: {
      url,
      method: 'POST',
      headers,
      body,
      contentType: body === null ? null : 'application/json',
      maxAttempts: retry + 1,
      timeoutSeconds,
      queue,
      flowKeys: flowKeys ?? [],
      metadata: { ...metadata },
      callbacks: callbacks ?? null,
    },
    deliverAt: at,
    source: 'recurring',
    replayedFromRequestId: null,
    scheduleId: s.id,
    itemKey: null,
  };
}
