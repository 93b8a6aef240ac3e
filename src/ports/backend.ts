import type { IdempotencyStore } from './idempotency.js';
import type { ProjectStore } from './projects.js';
import type { RequestStore } from './requests.js';
import type { ScheduleStore } from './schedules.js';
import type { SecretStore } from './secrets.js';
import type { UsageStore } from './usage.js';

/** Everything a storage backend provides. One factory per backend builds it. */
export interface Backend {
  readonly requests: RequestStore;
  readonly schedules: ScheduleStore;
  readonly idempotency: IdempotencyStore;
  readonly usage: UsageStore;
  readonly projects: ProjectStore;
  readonly secrets: SecretStore;
  /** Waits for in-flight writes and releases resources. */
  close(): Promise<void>;
}
