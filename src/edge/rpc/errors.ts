import { create, toBinary } from '@bufbuild/protobuf';
import type { DescMethod, DescService, JsonReadOptions, JsonWriteOptions, Message } from '@bufbuild/protobuf';
import { Code, ConnectError, type ConnectRouter, type HandlerContext, type Interceptor, type ServiceImpl } from '@connectrpc/connect';
import { ERROR_CATALOGUE, FerryError, type RpcCode } from '../../domain/errors.js';
import { ErrorDetailSchema } from '../../gen/ferry/v1/errors_pb.js';
import { toFerryError } from '../errors.js';
import { rpcJsonReader } from '../http/rpc-json.js';
import { routeOf } from '../http/routes.js';

const CODES: Record<RpcCode, Code> = {
  invalid_argument: Code.InvalidArgument,
  not_found: Code.NotFound,
  already_exists: Code.AlreadyExists,
  aborted: Code.Aborted,
  failed_precondition: Code.FailedPrecondition,
  resource_exhausted: Code.ResourceExhausted,
  unauthenticated: Code.Unauthenticated,
  unavailable: Code.Unavailable,
  internal: Code.Internal,
  unimplemented: Code.Unimplemented,
};

/** Reports every failure as a ConnectError carrying the catalogue code and field in an ErrorDetail. */
export const errorInterceptor: Interceptor = (next) => async (req) => {
  try {
    return await next(req);
  } catch (err) {
    throw toConnectError(err);
  }
};

/** A failure as Connect reports it: a ConnectError already is one; anything else goes through the catalogue. */
export function toConnectError(err: unknown): ConnectError {
  return err instanceof ConnectError ? err : connectErrorOf(toFerryError(err));
}

export function connectErrorOf(ferry: FerryError): ConnectError {
  return new ConnectError(ferry.message, CODES[ERROR_CATALOGUE[ferry.code].rpc], undefined, [
    { desc: ErrorDetailSchema, value: create(ErrorDetailSchema, { code: ferry.code, field: ferry.field ?? '' }) },
  ]);
}

type UnaryCall = (request: Message, context: HandlerContext) => unknown;

/**
 * Serves the RPCs of a service on a Connect router the way the JSON API serves their routes, so that the same
 * input gets the same answer on every protocol: a JSON request is read by the JSON API's reader (rpc-json.ts),
 * and a request over its route's size limit is refused. Connect decodes a request before any interceptor runs,
 * so decoding failures get their ErrorDetail here rather than from errorInterceptor.
 */
export function routeService(router: ConnectRouter, service: DescService, impl: Partial<ServiceImpl<DescService>>): void {
  for (const method of service.methods) {
    const call = (impl as Record<string, unknown>)[method.localName];
    if (typeof call !== 'function') continue;
    if (method.methodKind !== 'unary') {
      router.rpc(method, call.bind(impl) as never);
      continue;
    }
    const read = rpcJsonReader(method);
    // Connect's JSON serialization turns the request bytes into text with `textDecoder` before it decodes them
    // (createJsonSerialization in connect-es 2); a ConnectError thrown there reaches the client as it is.
    const jsonOptions: Partial<JsonReadOptions & JsonWriteOptions> & { textDecoder: { decode(bytes?: Uint8Array): string } } = {
      textDecoder: {
        decode(bytes) {
          try {
            return read(bytes ?? new Uint8Array());
          } catch (err) {
            throw toConnectError(err);
          }
        },
      },
    };
    router.rpc(method, limitBinarySize(method, (call as UnaryCall).bind(impl)) as never, { jsonOptions });
  }
}

/**
 * Applies the size limit of the RPC's JSON route to a binary request as well, measured in its own encoding; a
 * JSON request was measured as it was read.
 */
function limitBinarySize(method: DescMethod, call: UnaryCall): UnaryCall {
  const route = routeOf(method);
  if (route?.body.kind !== 'json') return call;
  const limit = route.maxBodyBytes;
  return (request, context) => {
    const type = context.requestHeader.get('content-type') ?? '';
    if (!type.includes('json') && toBinary(method.input, request).byteLength > limit) {
      throw new FerryError('PAYLOAD_TOO_LARGE', `The body is over its limit of ${limit} bytes.`);
    }
    return call(request, context);
  };
}
