import type { Backend } from '../../ports/backend.js';
import { StorageUnavailable } from '../../ports/errors.js';
import type { Log, ServiceMetrics } from '../../ports/telemetry.js';

/** The backend's stores; `budgetBoard` only where the backend has one (distributed), and absent stays absent. */
const STORES = ['requests', 'schedules', 'idempotency', 'usage', 'projects', 'secrets', 'budgets', 'stats', 'budgetBoard', 'bulkActions'] as const;

/**
 * Whether storage answers, as the calls made to it find out: the first `StorageUnavailable` after a success logs
 * that storage is unavailable, and the first success of a call started after that failure logs that it is back
 * (a call that was already under way when storage went away proves nothing). A flapping storage logs each change.
 */
export class StorageAvailability {
  private unavailableSince: number | null = null;
  /** Calls started so far; a failure remembers the count, and only later calls can prove recovery. */
  private started = 0;
  private failedAfter = 0;

  constructor(
    private readonly log: Log,
    private readonly now: () => number,
  ) {}

  /** Numbers a call as it starts. */
  start(): number {
    return ++this.started;
  }

  succeeded(call: number): void {
    if (this.unavailableSince === null || call <= this.failedAfter) return;
    const ms = this.now() - this.unavailableSince;
    this.unavailableSince = null;
    this.log('info', 'storage available again', { unavailable_ms: ms });
  }

  failed(store: string, operation: string, err: StorageUnavailable): void {
    this.failedAfter = this.started;
    if (this.unavailableSince !== null) return;
    this.unavailableSince = this.now();
    this.log('warn', 'storage unavailable', { store, operation, error: err.message });
  }
}

/**
 * The backend with every store call watched: a `StorageUnavailable` is counted in `ferry_storage_errors_total`
 * by store, and changes of availability are logged. Counting here, around the port, sees every failure once,
 * whoever made the call (an API call, the delivery engine, the scheduler, allowance leases), whereas the callers
 * each report failures in their own way, or retry them without reporting. Other errors (version conflicts,
 * refusals) are the callers' business and pass untouched.
 */
export function observedBackend<B extends Backend>(backend: B, metrics: Pick<ServiceMetrics, 'storageError'> | null, availability: StorageAvailability): B {
  const observed = { ...backend } as Record<string, unknown>;
  for (const name of STORES) {
    const store = backend[name];
    if (store !== undefined) observed[name] = observedStore(store, name, metrics, availability);
  }
  return observed as B;
}

/**
 * A store whose methods report their failures. The wrappers are made once per method, here, and each forwards to
 * the store's own method on the store itself; anything else (fields, getters) is read from the store through the
 * prototype chain.
 */
function observedStore<S extends object>(store: S, name: string, metrics: Pick<ServiceMetrics, 'storageError'> | null, availability: StorageAvailability): S {
  const observed = Object.create(store) as Record<string, unknown>;
  for (const method of methodNames(store)) {
    const original = (store as Record<string, unknown>)[method] as (...args: unknown[]) => unknown;
    observed[method] = function (...args: unknown[]): unknown {
      const call = availability.start();
      const result = original.apply(store, args);
      if (!(result instanceof Promise)) return result;
      return result.then(
        (value: unknown) => {
          availability.succeeded(call);
          return value;
        },
        (err: unknown) => {
          if (err instanceof StorageUnavailable) {
            metrics?.storageError(name);
            availability.failed(name, method, err);
          }
          throw err;
        },
      );
    };
  }
  return observed as S;
}

/** The methods of a class instance (its prototypes' functions, up to Object's), or an object literal's own. */
function methodNames(store: object): string[] {
  const names = new Set<string>();
  for (let o: object | null = store; o !== null && o !== Object.prototype; o = Object.getPrototypeOf(o) as object | null) {
    for (const key of Object.getOwnPropertyNames(o)) {
      if (key === 'constructor') continue;
      const d = Object.getOwnPropertyDescriptor(o, key);
      if (d !== undefined && typeof d.value === 'function') names.add(key);
    }
  }
  return [...names];
}
