import type { UniversalHandler, UniversalServerRequest, UniversalServerResponse } from '@connectrpc/connect/protocol';

/**
 * A Connect handler that answers through `serve` instead of `handler`, keeping what the router reads of a handler
 * (its service, method, path, protocols, methods and content types): the one way this edge wraps a handler.
 */
export function wrappedHandler(
  handler: UniversalHandler,
  serve: (req: UniversalServerRequest) => Promise<UniversalServerResponse>,
): UniversalHandler {
  return Object.assign(serve, {
    service: handler.service,
    method: handler.method,
    requestPath: handler.requestPath,
    protocolNames: handler.protocolNames,
    allowedMethods: handler.allowedMethods,
    supportedContentType: handler.supportedContentType,
  });
}
