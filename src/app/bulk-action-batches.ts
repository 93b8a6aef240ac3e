import { bulkReplayKey, type BulkAction, type BulkPosition, type BulkSelection, type SkipReason } from '../domain/bulk-action.js';
import type { Clock } from '../domain/clock.js';
import { FerryError } from '../domain/errors.js';
import { fingerprint } from '../domain/fingerprint.js';
import { isRequestId } from '../domain/ids.js';
import type { Project } from '../domain/project.js';
import { definitionOf, type StoredRequest } from '../domain/request.js';
import { canReplay, decideCancel, isHiddenByRetention, retentionCutoff } from '../domain/request-lifecycle/index.js';
import { existsAt } from '../domain/schedule/enqueued-ahead.js';
import { validateDefinition } from '../domain/validation/index.js';
import type { RequestStore } from '../ports/requests.js';
import type { AcceptRequests, NewRequest } from './accept-requests.js';

/** Requests read per page when a filter's matches are counted. */
const COUNT_PAGE = 500;
/** Cancels asked at once within a batch. */
const CANCELS_AT_ONCE = 16;
/**
 * Replays accepted (validated and committed) together within a batch. Kept small: a slice is one write of the
 * writer thread and one stretch of the main thread, and an API call that arrives meanwhile waits for it
 * (test/bench/README.md#bulk-replay).
 */
const REPLAYS_AT_ONCE = 20;

/** One batch's requests, and the position the walk goes on from after them; `position` null when none follow. */
interface Page {
  readonly requests: ReadonlyArray<{ readonly id: string; readonly request: StoredRequest | null }>;
  readonly next: BulkPosition;
  readonly last: boolean;
}

export interface BatchOutcome {
  readonly done: number;
  readonly skipped: Partial<Record<SkipReason, number>>;
  readonly position: BulkPosition;
  /** True when the batch was the selection's last. */
  readonly finished: boolean;
}

export interface BulkBatchOptions {
  readonly allowPrivateDestinations: boolean;
}

/**
 * The walk over a bulk action's requests and what it does to each, a batch at a time. A filter's matches are the
 * request list's, walked by its cursor position in list order (created_at, id descending) and bounded to requests
 * created before the action: the walk and the count that `matched` and a dry run report are the same query, so a
 * run acts on exactly what was counted, and nothing has to be copied out of the request list when the action is
 * created (a materialised list of 100,000 IDs would be written once and read once, for nothing the bound does not
 * give). Requests move between statuses meanwhile; a filtered status that a request has left is seen at the
 * request's turn (e.g. a replay of a request someone replayed by hand is still made: the original stays failed).
 */
export class BulkActionBatches {
  constructor(
    private readonly requests: RequestStore,
    private readonly acceptor: AcceptRequests,
    private readonly clock: Clock,
    private readonly options: BulkBatchOptions,
  ) {}

  /** How many requests the selection holds now: every ID given, or every request the bounded filter lists. */
  async count(project: Project, selection: BulkSelection, pause: () => Promise<void> = async () => undefined): Promise<number> {
    if (selection.kind === 'ids') return selection.ids.length;
    let total = 0;
    let position: BulkPosition = null;
    for (;;) {
      const page = await this.page(project, selection, position, COUNT_PAGE);
      total += page.requests.length;
      if (page.last) return total;
      position = page.next;
      await pause();
    }
  }

  /** Acts on the next `size` requests of the action after its stored position. */
  async run(project: Project, action: BulkAction, size: number): Promise<BatchOutcome> {
    const page = await this.page(project, action.selection, action.position, size);
    const skipped: Partial<Record<SkipReason, number>> = {};
    const skip = (reason: SkipReason): void => {
      skipped[reason] = (skipped[reason] ?? 0) + 1;
    };
    const found: StoredRequest[] = [];
    for (const { request } of page.requests) {
      if (request === null) skip('not_found');
      else found.push(request);
    }
    const done = action.action === 'cancel' ? await this.cancel(project, found, skip) : await this.replay(project, action.id, found, skip);
    return { done, skipped, position: page.next, finished: page.last };
  }

  private async cancel(project: Project, found: readonly StoredRequest[], skip: (reason: SkipReason) => void): Promise<number> {
    let done = 0;
    const one = async (r: StoredRequest): Promise<void> => {
      let current: StoredRequest | null = r;
      // As a single cancel: decided on the request as read, and again on what it became when it moved meanwhile.
      for (let tries = 0; tries < 5 && current !== null; tries++) {
        const now = this.clock.now();
        const decision = decideCancel(current, now);
        if (decision.kind === 'already_cancelled') return skip('already_cancelled');
        if (decision.kind === 'completed') return skip('ended');
        if (decision.change === null || (await this.requests.requestCancel(project.id, current.id, now))) {
          done++;
          return;
        }
        current = await this.requests.get(project.id, current.id);
      }
      skip(current === null ? 'not_found' : 'active');
    };
    for (let i = 0; i < found.length; i += CANCELS_AT_ONCE) await Promise.all(found.slice(i, i + CANCELS_AT_ONCE).map(one));
    return done;
  }

  /**
   * Replays as a single replay makes them (same definition, queue, flow keys; source `replay`), accepted together,
   * each with an item key made of the action's and the original's IDs: a batch done again after a crash finds
   * the replays it made before instead of making more.
   */
  private async replay(project: Project, bulkId: string, found: readonly StoredRequest[], skip: (reason: SkipReason) => void): Promise<number> {
    let done = 0;
    for (let i = 0; i < found.length; i += REPLAYS_AT_ONCE) {
      const items = this.replayItems(bulkId, found.slice(i, i + REPLAYS_AT_ONCE), skip);
      if (items.length > 0) await this.acceptor.accept(project, null, items);
      done += items.length;
    }
    return done;
  }

  private replayItems(bulkId: string, originals: readonly StoredRequest[], skip: (reason: SkipReason) => void): NewRequest[] {
    const items: NewRequest[] = [];
    for (const original of originals) {
      if (!canReplay(original)) {
        skip('active');
        continue;
      }
      try {
        validateDefinition(original, { allowPrivateDestinations: this.options.allowPrivateDestinations });
      } catch (err) {
        if (!(err instanceof FerryError)) throw err;
        skip('invalid_definition');
        continue;
      }
      items.push({
        definition: definitionOf(original),
        deliverAt: null,
        source: 'replay',
        replayedFromRequestId: original.id,
        scheduleId: null,
        itemKey: { key: bulkReplayKey(bulkId, original.id), fingerprint: fingerprint('replay', original.id), field: 'ids' },
      });
    }
    return items;
  }

  private async page(project: Project, selection: BulkSelection, position: BulkPosition, size: number): Promise<Page> {
    const now = this.clock.now();
    const cutoff = retentionCutoff(now, project.retentionDays);
    if (selection.kind === 'ids') {
      const start = position !== null && 'index' in position ? position.index : 0;
      const ids = selection.ids.slice(start, start + size);
      const requests = await Promise.all(
        ids.map(async (id) => {
          const r = isRequestId(id) ? await this.requests.get(project.id, id) : null;
          // Seen as GET /requests/{id} sees it: another project's, an expired one and a future occurrence are absent.
          const visible = r !== null && existsAt(r, now) && !isHiddenByRetention(r, cutoff);
          return { id, request: visible ? r : null };
        }),
      );
      const end = start + ids.length;
      return { requests, next: { index: end }, last: end >= selection.ids.length };
    }
    const after = position !== null && 'createdAt' in position ? position : undefined;
    const to = Math.min(selection.filter.to ?? Number.MAX_SAFE_INTEGER, selection.before);
    const rows = await this.requests.list({
      ...selection.filter,
      to,
      projectId: project.id,
      terminalCutoff: cutoff,
      ...(after !== undefined ? { after } : {}),
      limit: size,
    });
    const last = rows.at(-1);
    return {
      requests: rows.map((r) => ({ id: r.id, request: r })),
      next: last === undefined ? (position ?? null) : { createdAt: last.createdAt, id: last.id },
      last: rows.length < size,
    };
  }
}
