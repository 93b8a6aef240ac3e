import type { BulkAction } from '../domain/bulk-action.js';

/** A running bulk action, as the list of every project's running actions names it. */
export interface RunningBulkAction {
  readonly projectId: string;
  readonly id: string;
}

/**
 * Durable storage of bulk actions (`src/domain/bulk-action.ts`). Every change after the insert is conditional on
 * the version it was made from, so a cancel through the API and the progress of the process running the action
 * never overwrite each other, and of two processes that both believe they run an action, one loses.
 */
export interface BulkActionStore {
  /** Stores a new action (version 1). */
  insert(action: BulkAction): Promise<void>;
  /** The action, or null when it does not exist in this project. */
  get(projectId: string, id: string): Promise<BulkAction | null>;
  /** The project's actions newest first, those with an ID below `before` when given, at most `limit`. */
  list(projectId: string, before: string | null, limit: number): Promise<BulkAction[]>;
  /** Every running action of every project (a handful per project at most), for the processes that run them. */
  running(): Promise<RunningBulkAction[]>;
  /**
   * Replaces the stored action with `next` (whose version is `expectedVersion` + 1) if it is still at
   * `expectedVersion`; false, storing nothing, when it moved on.
   */
  update(next: BulkAction, expectedVersion: number): Promise<boolean>;
}
