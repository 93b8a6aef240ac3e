import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import { ERROR_CATALOGUE, type FerryError, type RpcCode } from '../../domain/errors.js';
import { ErrorDetailSchema } from '../../gen/ferry/v1/errors_pb.js';
import { toFerryError } from '../errors.js';

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
  deadline_exceeded: Code.DeadlineExceeded,
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
  // Connect sends an error's metadata as response headers, gRPC as trailers: Retry-After reaches both.
  const metadata = ferry.retryAfterSeconds === undefined ? undefined : { 'Retry-After': String(ferry.retryAfterSeconds) };
  return new ConnectError(ferry.message, CODES[ERROR_CATALOGUE[ferry.code].rpc], metadata, [
    { desc: ErrorDetailSchema, value: create(ErrorDetailSchema, { code: ferry.code, field: ferry.field ?? '' }) },
  ]);
}
