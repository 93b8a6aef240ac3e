import type { DescService } from '@bufbuild/protobuf';
import type { ConnectRouter, ServiceImpl } from '@connectrpc/connect';
import type { ApiCallObserver } from '../../ports/telemetry.js';
import { readInputFirst } from './call-input.js';
import { observedHandler } from './observed-calls.js';

export interface RouteOptions {
  /** The largest body Connect reads; a larger one is refused by Connect itself. */
  readonly readMaxBytes: number;
  /** Told of every call, also of those that end before any interceptor runs. */
  readonly observer?: ApiCallObserver;
}

/**
 * Serves the RPCs of a service on a Connect router the way the JSON API serves their routes, so that the same
 * input gets the same answer on every protocol: each unary RPC's request message is read first by the JSON API's
 * rules (see readInputFirst), and its calls are observed from the start, whatever ends them.
 */
export function routeService(router: ConnectRouter, service: DescService, impl: Partial<ServiceImpl<DescService>>, opts: RouteOptions): void {
  for (const method of service.methods) {
    const call = (impl as Record<string, unknown>)[method.localName];
    if (typeof call !== 'function') continue;
    router.rpc(method, call.bind(impl) as never);
    if (method.methodKind !== 'unary') continue;
    // The router keeps its handlers in the order they were added: the last one is this RPC's.
    const at = router.handlers.length - 1;
    const read = readInputFirst(method, router.handlers[at]!, opts.readMaxBytes);
    router.handlers[at] = opts.observer === undefined ? read : observedHandler(opts.observer, read);
  }
}
