import type { DescMethod } from '@bufbuild/protobuf';
import type { Code, ConnectRouter, MethodImpl } from '@connectrpc/connect';
import type { UniversalHandler, UniversalServerRequest, UniversalServerResponse } from '@connectrpc/connect/protocol';
import { codeToHttpStatus, codeToString, parseContentType as connectContentType } from '@connectrpc/connect/protocol-connect';
import { parseContentType as grpcContentType } from '@connectrpc/connect/protocol-grpc';
import { parseContentType as grpcWebContentType } from '@connectrpc/connect/protocol-grpc-web';

/*
 * The one file that reaches below connect-es's public API: its handler layer (the `protocol*` modules, whose
 * functions are marked internal and may change in any release). Interceptors run only after Connect has read and
 * decoded a request, and Ferry must see a call before that: to read its input by the JSON API's rules (see
 * call-input.ts) and to observe the calls Connect ends early (see early-refusals.ts). Everything else of the edge
 * uses the public API, and test/unit/connect-hook.test.ts fails when the library changes what is relied on here.
 */

/** Connect's handler of one RPC: the request and response as HTTP, before decoding and after encoding. */
export type RpcHandler = UniversalHandler;
export type RpcRequest = UniversalServerRequest;
export type RpcResponse = UniversalServerResponse;

/**
 * Registers a unary RPC with `hook` around the handler Connect builds for it. The router keeps its handlers in
 * the order they were added, and `connectNodeAdapter` reads them once its `routes` have run, so the handler just
 * added is replaced in place; a router that kept them otherwise fails here at start-up, not on a call.
 */
export function hookedRpc<M extends DescMethod>(router: ConnectRouter, method: M, impl: MethodImpl<M>, hook: (handler: RpcHandler) => RpcHandler): void {
  router.rpc(method, impl);
  const at = router.handlers.length - 1;
  const handler = router.handlers[at];
  if (handler?.method !== method) throw new Error(`The Connect router did not add the handler of ${method.parent.typeName}/${method.name} last.`);
  router.handlers[at] = hook(handler);
}

/**
 * A handler that answers through `serve` instead of `handler`, keeping what the router reads of a handler (its
 * service, method, path, protocols, methods and content types): the one way this edge wraps a handler.
 */
export function wrappedHandler(handler: RpcHandler, serve: (req: RpcRequest) => Promise<RpcResponse>): RpcHandler {
  return Object.assign(serve, {
    service: handler.service,
    method: handler.method,
    requestPath: handler.requestPath,
    protocolNames: handler.protocolNames,
    allowedMethods: handler.allowedMethods,
    supportedContentType: handler.supportedContentType,
  });
}

/** The HTTP status Connect answers an error code with. */
export function httpStatusOfCode(code: Code): number {
  return codeToHttpStatus(code);
}

/** An error code's name as Connect writes it (`not_found`). */
export function nameOfCode(code: Code): string {
  return codeToString(code);
}

/** How a unary request message travels: alone (Connect) or in one gRPC frame, and in which encoding. */
export interface UnaryFraming {
  readonly enveloped: boolean;
  readonly binary: boolean;
  /** The header naming the body's compression. */
  readonly codingHeader: 'content-encoding' | 'grpc-encoding';
}

/** The framing of a unary request by its content type, as Connect reads it; undefined for streams and gRPC-web text. */
export function unaryFraming(contentType: string | null): UnaryFraming | undefined {
  if (contentType === null) return undefined;
  const connect = connectContentType(contentType);
  if (connect !== undefined) return connect.stream ? undefined : { enveloped: false, binary: connect.binary, codingHeader: 'content-encoding' };
  const grpc = grpcContentType(contentType) ?? grpcWebContentType(contentType);
  if (grpc === undefined || ('text' in grpc && grpc.text)) return undefined;
  return { enveloped: true, binary: grpc.binary, codingHeader: 'grpc-encoding' };
}
