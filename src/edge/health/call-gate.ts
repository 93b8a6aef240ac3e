import type { DescService } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import { FerryError } from '../../domain/errors.js';

interface Service {
  readonly service: DescService;
  readonly impl: Partial<ServiceImpl<DescService>>;
}

type Call = (...args: unknown[]) => Promise<unknown>;

/**
 * How long a call refused during the drain is told to wait (`Retry-After`): a load balancer that has seen the
 * readiness change sends the retry to another process, and a restarted one is listening again within seconds.
 */
export const SHUTTING_DOWN_RETRY_AFTER_SECONDS = 1;

/**
 * Counts the API calls under way, so a drain knows when the last one is done, and refuses new ones once the
 * drain began: they fail with SHUTTING_DOWN (503, gRPC `unavailable`) and a `Retry-After`, which clients retry, on
 * another instance once their load balancer has seen the readiness change. Every protocol goes through the
 * wrapped implementations, so this is the one place that decides.
 */
export class ApiCallGate {
  private inFlight = 0;
  private shut = false;
  private idleWaiters: Array<() => void> = [];

  get closed(): boolean {
    return this.shut;
  }

  /** The same service, each unary method counted and refused while draining. Ferry's API has only unary methods. */
  guard<S extends Service>(s: S): S {
    const impl: Record<string, unknown> = { ...s.impl };
    for (const method of s.service.methods) {
      const call = impl[method.localName];
      if (method.methodKind !== 'unary' || typeof call !== 'function') continue;
      impl[method.localName] = (...args: unknown[]) => this.run(() => (call as Call).apply(s.impl, args));
    }
    return { ...s, impl };
  }

  /** Refuses every later call; resolves once the calls under way have ended. */
  close(): Promise<void> {
    this.shut = true;
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private async run(call: () => Promise<unknown>): Promise<unknown> {
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
