import { FerryError } from '../../domain/errors.js';
import type { SharedStage } from './unary-call.js';

/**
 * How long a call refused during the drain is told to wait (`Retry-After`): a load balancer that has seen the
 * readiness change sends the retry to another process, and a restarted one is listening again within seconds.
 */
export const SHUTTING_DOWN_RETRY_AFTER_SECONDS = 1;

/**
 * Counts the API calls under way, so a drain knows when the last one is done, and refuses new ones once the
 * drain began: they fail with SHUTTING_DOWN (503, gRPC `unavailable`) and a `Retry-After`, which clients retry, on
 * another instance once their load balancer has seen the readiness change. It is the gate stage of the one chain
 * every protocol's calls pass (see chain.ts), so this is the one place that decides.
 */
export class ApiCallGate {
  private inFlight = 0;
  private shut = false;
  private idleWaiters: Array<() => void> = [];

  get closed(): boolean {
    return this.shut;
  }

  /** The chain's gate stage: each call counted while under way, and refused once the drain began. */
  readonly stage: SharedStage = (next) => (call) => this.run(() => next(call));

  /** Refuses every later call; resolves once the calls under way have ended. */
  close(): Promise<void> {
    this.shut = true;
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private async run<T>(call: () => Promise<T>): Promise<T> {
    if (this.shut) {
      throw new FerryError('SHUTTING_DOWN', 'This Ferry process is shutting down; retry the call.', undefined, SHUTTING_DOWN_RETRY_AFTER_SECONDS);
    }
    this.inFlight += 1;
    try {
      return await call();
    } finally {
      this.inFlight -= 1;
      if (this.inFlight === 0 && this.shut) {
        const waiters = this.idleWaiters;
        this.idleWaiters = [];
        for (const w of waiters) w();
      }
    }
  }
}
