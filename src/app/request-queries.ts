import type { Clock } from '../domain/clock.js';
import { decodeCursor, encodeCursor, filterHashOf } from '../domain/cursor.js';
import { retentionCutoff } from '../domain/request-lifecycle/index.js';
import type { Project } from '../domain/project.js';
import type { AttemptRecord, StoredRequest } from '../domain/request.js';
import { validateListQuery, type ListQueryInput } from '../domain/validation/index.js';
import type { RequestStore } from '../ports/requests.js';
import { visibleRequest } from './visible-request.js';

export interface RequestPage {
  readonly items: StoredRequest[];
  readonly nextCursor: string | null;
  readonly historyRetentionDays: number;
  readonly historyCutoffAt: number;
  readonly hasHiddenHistory: boolean;
}

/** The read side of the request API; every read is scoped to the caller's project and its retention. */
export class RequestQueries {
  constructor(
    private readonly requests: RequestStore,
    private readonly clock: Clock,
    private readonly cursorSecret: Uint8Array,
  ) {}

  async list(project: Project, input: ListQueryInput): Promise<RequestPage> {
    const now = this.clock.now();
    const { cursor, limit, ...filters } = validateListQuery(input, now);
    const filterHash = filterHashOf(filters);
    const after = cursor === undefined ? undefined : decodeCursor(cursor, filterHash, this.cursorSecret);
    const cutoff = retentionCutoff(now, project.retentionDays);
    // Nothing created after now: a schedule's occurrence enqueued ahead is created as of its instant (`existsAt`).
    const to = Math.min(filters.to ?? now + 1, now + 1);
    const [rows, hidden] = await Promise.all([
      this.requests.list({ ...filters, to, projectId: project.id, terminalCutoff: cutoff, after, limit: limit + 1 }),
      this.requests.hasTerminalBefore(project.id, cutoff),
    ]);
    const items = rows.slice(0, limit);
    const last = items.at(-1);
    const nextCursor =
      rows.length > limit && last !== undefined
        ? encodeCursor({ createdAt: last.createdAt, id: last.id }, filterHash, this.cursorSecret)
        : null;
    return {
      items,
      nextCursor,
      historyRetentionDays: project.retentionDays,
      historyCutoffAt: cutoff,
      hasHiddenHistory: hidden,
    };
  }

  async get(project: Project, requestId: string): Promise<{ request: StoredRequest; attempts: AttemptRecord[] }> {
    const request = await visibleRequest(this.requests, project, requestId, this.clock.now());
    const attempts = await this.requests.listAttempts(project.id, request.id);
    return { request, attempts };
  }

  async attempts(project: Project, requestId: string): Promise<AttemptRecord[]> {
    const request = await visibleRequest(this.requests, project, requestId, this.clock.now());
    return this.requests.listAttempts(project.id, request.id);
  }
}
