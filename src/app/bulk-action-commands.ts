import { MAX_RUNNING_BULK_ACTIONS, noSkips, type BulkAction, type BulkSelection } from '../domain/bulk-action.js';
import type { Clock } from '../domain/clock.js';
import { FerryError, quoteInput } from '../domain/errors.js';
import { fingerprint } from '../domain/fingerprint.js';
import { isBulkActionId, newBulkActionId } from '../domain/ids.js';
import type { Project } from '../domain/project.js';
import { validateBulkAction, validateIdempotencyKey, validatePageSize, type BulkActionInput, type ValidBulkSelection } from '../domain/validation/index.js';
import type { BulkActionStore } from '../ports/bulk-actions.js';
import type { BulkActionBatches } from './bulk-action-batches.js';
import type { IdempotencyGuard } from './idempotency-guard.js';

export type CreateOutcome = { readonly dryRun: true; readonly matched: number } | { readonly dryRun: false; readonly action: BulkAction };

export interface BulkActionPage {
  readonly items: readonly BulkAction[];
  readonly nextCursor: string | null;
}

/**
 * The bulk action API: create (or count, for a dry run), read, list and cancel. The work itself is done by the
 * process that runs the action (`BulkActionRunner`), told of a new one through `onCreated`.
 */
export class BulkActionCommands {
  constructor(
    private readonly store: BulkActionStore,
    private readonly batches: BulkActionBatches,
    private readonly guard: IdempotencyGuard,
    private readonly clock: Clock,
    private readonly onCreated: (action: BulkAction) => void = () => undefined,
  ) {}

  /**
   * A dry run counts what the action would match now and changes nothing. A real one needs an Idempotency-Key (the
   * same key and input answer the same action), fits the project's limit of running actions, and is stored with
   * its count before it is answered; it runs in the background from then on.
   */
  async create(project: Project, input: BulkActionInput & { dryRun?: boolean }, idempotencyKey: string | undefined): Promise<CreateOutcome> {
    const now = this.clock.now();
    const valid = validateBulkAction(input, now);
    // A key given with a dry run is checked too, though unused: a call that is wrong is wrong either way.
    validateIdempotencyKey(idempotencyKey, false);
    if (input.dryRun === true) {
      return { dryRun: true, matched: await this.batches.count(project, this.selectionAt(valid.selection, now)) };
    }
    if (idempotencyKey === undefined) {
      throw new FerryError('MISSING_FIELD', 'A bulk action needs an Idempotency-Key header, so that a retried call starts it once.', 'Idempotency-Key');
    }
    const key = validateIdempotencyKey(idempotencyKey, true)!;
    const { dryRun: _dryRun, ...definition } = input;
    const call = { key, fingerprint: fingerprint('bulk-action', definition), field: 'Idempotency-Key' };
    const planned = newBulkActionId(now);
    const [acquired] = await this.guard.acquire(project.id, [call], [JSON.stringify({ id: planned })]);
    if (acquired !== undefined && !acquired.claimed) return { dryRun: false, action: await this.earlier(project, acquired.outcome) };
    const resumedId = acquired?.claimed === true && acquired.resumed !== null ? (JSON.parse(acquired.resumed) as { id: string }).id : null;
    const id = resumedId ?? planned;
    let inserting = false;
    try {
      const existing = resumedId === null ? null : await this.store.get(project.id, resumedId);
      if (existing !== null) {
        await this.guard.complete(project.id, [{ key, outcome: JSON.stringify({ id }) }]);
        return { dryRun: false, action: existing };
      }
      // Checked before the insert, not with it: two creates at the same instant may both pass, and the project then
      // runs one more than the limit for a while. The limit bounds the load of a project, it guards no data.
      const running = (await this.store.running()).filter((r) => r.projectId === project.id).length;
      if (running >= MAX_RUNNING_BULK_ACTIONS) {
        throw new FerryError('BULK_ACTIONS_LIMIT', `The project already runs ${running} bulk actions; at most ${MAX_RUNNING_BULK_ACTIONS} run at once.`, undefined, 5);
      }
      const selection = this.selectionAt(valid.selection, now);
      const matched = await this.batches.count(project, selection);
      const action: BulkAction = {
        id,
        projectId: project.id,
        action: valid.action,
        state: 'running',
        selection,
        matched,
        done: 0,
        skipped: noSkips(),
        position: null,
        createdAt: now,
        updatedAt: now,
        completedAt: null,
        version: 1,
      };
      inserting = true;
      await this.store.insert(action);
      await this.guard.complete(project.id, [{ key, outcome: JSON.stringify({ id }) }]);
      this.onCreated(action);
      return { dryRun: false, action };
    } catch (err) {
      const release = inserting || resumedId !== null ? this.guard.abandon(project.id, [key]) : this.guard.release(project.id, [key]);
      await release.catch(() => undefined);
      throw err;
    }
  }

  async get(project: Project, id: string): Promise<BulkAction> {
    const found = isBulkActionId(id) ? await this.store.get(project.id, id) : null;
    if (found === null) throw new FerryError('NOT_FOUND', `No bulk action ${quoteInput(id)} in this project.`);
    return found;
  }

  /** Newest first; the cursor is the last ID of the page (IDs sort by creation time and reveal nothing else). */
  async list(project: Project, input: { limit?: number; cursor?: string }): Promise<BulkActionPage> {
    const limit = validatePageSize(input.limit);
    if (input.cursor !== undefined && !isBulkActionId(input.cursor)) {
      throw new FerryError('INVALID_CURSOR', 'The cursor is malformed; pass next_cursor from the previous page unchanged.', 'cursor');
    }
    const rows = await this.store.list(project.id, input.cursor ?? null, limit + 1);
    const items = rows.slice(0, limit);
    return { items, nextCursor: rows.length > limit ? items.at(-1)!.id : null };
  }

  /**
   * Stops a running action: it ends `cancelled` and no batch starts after this; a batch under way may still finish
   * what it began (its progress is then not recorded, the counts stay as they were). An action that ended already
   * is answered as it is.
   */
  async cancel(project: Project, id: string): Promise<BulkAction> {
    for (let attempt = 0; attempt < 10; attempt++) {
      const current = await this.get(project, id);
      if (current.state !== 'running') return current;
      const now = this.clock.now();
      const next: BulkAction = { ...current, state: 'cancelled', updatedAt: now, completedAt: now, version: current.version + 1 };
      if (await this.store.update(next, current.version)) return next;
    }
    throw new FerryError('STORAGE_UNAVAILABLE', 'The bulk action kept changing while it was being cancelled; retry.');
  }

  /** A filter's matches are the requests created before `now`; see `BulkActionBatches`. */
  private selectionAt(selection: ValidBulkSelection, now: number): BulkSelection {
    return selection.kind === 'ids' ? selection : { kind: 'filter', filter: selection.filter, before: now };
  }

  private async earlier(project: Project, outcome: string): Promise<BulkAction> {
    const { id } = JSON.parse(outcome) as { id: string };
    const found = await this.store.get(project.id, id);
    if (found === null) throw new FerryError('STORAGE_UNAVAILABLE', 'The bulk action of this idempotency key is not readable yet; retry.');
    return found;
  }
}
