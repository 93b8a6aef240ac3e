import { randomUUID } from 'node:crypto';
import { create, type DescMethod, type DescService } from '@bufbuild/protobuf';
import type { ConnectRouter, HandlerContext, MethodImpl, ServiceImpl } from '@connectrpc/connect';
import { unaryChain, type ChainOptions } from '../calls/chain.js';
import { readInputFirst } from './call-input.js';
import { answerConnect, type ConnectCall } from './connect-answer.js';
import { hookedRpc } from './connect-hook.js';
import { observedHandler, protocolOf, takeBegunCall } from './early-refusals.js';

export interface RouteOptions {
  /** The observer and the gate of the call chain. */
  readonly chain: ChainOptions;
  /**
   * For Ferry's API: the largest body Connect reads (a larger one is refused by Connect itself). Given, each call
   * is seen as it arrives, before Connect reads it: its input read by the JSON API's rules (see readInputFirst),
   * and, with an observer, the call reported whatever ends it.
   */
  readonly readMaxBytes?: number;
}

type Call = (request: unknown, context: HandlerContext) => unknown;

/**
 * Serves the RPCs of a service on a Connect router, every unary call through the one call chain (see chain.ts),
 * so that the same input gets the same answer, log line and metrics on every protocol. Streams (health watches,
 * reflection) are not API calls and are served as they are.
 */
export function routeService(router: ConnectRouter, service: DescService, impl: Partial<ServiceImpl<DescService>>, opts: RouteOptions): void {
  const { observer } = opts.chain;
  for (const method of service.methods) {
    const fn = (impl as Record<string, unknown>)[method.localName];
    if (typeof fn !== 'function') continue;
    const call = (fn as Call).bind(impl);
    if (method.methodKind !== 'unary') router.rpc(method, call as never);
    else if (opts.readMaxBytes === undefined) router.rpc(method, chained(method, call, opts.chain));
    else {
      const max = opts.readMaxBytes;
      hookedRpc(router, method, chained(method, call, opts.chain), (handler) => {
        const read = readInputFirst(method, handler, max);
        return observer === undefined ? read : observedHandler(observer, read);
      });
    }
  }
}

/** The implementation Connect calls for a unary RPC: the chain around the service's own. */
function chained(method: DescMethod, call: Call, chain: ChainOptions): MethodImpl<DescMethod> {
  const rpc = `${method.parent.typeName}/${method.name}`;
  // The response made a message inside the chain, as Connect would make it after: a response that is none fails
  // as a call of the chain (INTERNAL, observed), and Connect finds a message it leaves as it is.
  const run = unaryChain(chain, answerConnect<ConnectCall>, async (c) => create(method.output, (await call(c.request, c.context)) as never));
  const impl = (request: unknown, context: HandlerContext): Promise<unknown> => {
    // Observed from its arrival when the call was hooked: its request ID and start carry over.
    const begun = takeBegunCall(context.values);
    return run({
      protocol: protocolOf(context.requestHeader.get('content-type')),
      route: rpc,
      rpc,
      requestId: begun?.requestId ?? randomUUID(),
      startedAt: begun?.startedAt ?? performance.now(),
      context,
      answer: undefined,
      request,
    });
  };
  return impl as unknown as MethodImpl<DescMethod>;
}
