import { create } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import { ERROR_CATALOGUE, type FerryError, type RpcCode } from '../../domain/errors.js';
import { ErrorDetailSchema } from '../../gen/ferry/v1/errors_pb.js';

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

/** A catalogue error as gRPC and Connect answer it: its RPC code, with the catalogue code and field in an ErrorDetail. */
export function connectErrorOf(ferry: FerryError): ConnectError {
  // Connect sends an error's metadata as response headers, gRPC as trailers: Retry-After reaches both.
  const metadata = ferry.retryAfterSeconds === undefined ? undefined : { 'Retry-After': String(ferry.retryAfterSeconds) };
  return new ConnectError(ferry.message, CODES[ERROR_CATALOGUE[ferry.code].rpc], metadata, [
    { desc: ErrorDetailSchema, value: create(ErrorDetailSchema, { code: ferry.code, field: ferry.field ?? '' }) },
  ]);
}
