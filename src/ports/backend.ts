import type { BudgetStateBoard, BudgetStore } from './budgets.js';
import type { BulkActionStore } from './bulk-actions.js';
import type { IdempotencyStore } from './idempotency.js';
import type { ProjectStore } from './projects.js';
import type { RequestStore } from './requests.js';
import type { ScheduleStore } from './schedules.js';
import type { SecretStore } from './secrets.js';
import type { StatsStore } from './stats.js';
import type { UsageStore } from './usage.js';

/** Everything a storage backend provides. One factory per backend builds it. */
export interface Backend {
  readonly requests: RequestStore;
  readonly schedules: ScheduleStore;
  readonly idempotency: IdempotencyStore;
  readonly usage: UsageStore;
  readonly projects: ProjectStore;
  readonly secrets: SecretStore;
  readonly budgets: BudgetStore;
  readonly bulkActions: BulkActionStore;
  readonly stats: StatsStore;
  /** Present where several processes deliver from the same storage (distributed): see `BudgetStateBoard`. */
  readonly budgetBoard?: BudgetStateBoard;
  /**
   * The readiness probe: resolves when storage can durably take writes now, rejects (with StorageUnavailable
   * naming the reason) when it cannot, or once closed. Cheap enough to run every second; it may hang while
   * storage does, so callers bound it.
   */
  ready(): Promise<void>;
  /** Waits for in-flight writes and releases resources. */
  close(): Promise<void>;
}
