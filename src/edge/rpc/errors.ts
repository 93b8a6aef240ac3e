import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import { ERROR_CATALOGUE, type RpcCode } from '../../domain/errors.js';
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
};

/** Reports every failure as a ConnectError carrying the catalogue code and field in an ErrorDetail. */
export const errorInterceptor: Interceptor = (next) => async (req) => {
  try {
    return await next(req);
  } catch (err) {
    if (err instanceof ConnectError) throw err;
    const ferry = toFerryError(err);
    throw new ConnectError(ferry.message, CODES[ERROR_CATALOGUE[ferry.code].rpc], undefined, [
      { desc: ErrorDetailSchema, value: create(ErrorDetailSchema, { code: ferry.code, field: ferry.field ?? '' }) },
    ]);
  }
};
