import { ConnectError } from '@connectrpc/connect';
import { CallFailure, succeeded } from '../calls/failure.js';
import type { Answer, UnaryCall, UnaryHandler } from '../calls/unary-call.js';
import { REQUEST_ID_HEADER } from '../http/envelope.js';
import { httpStatusOfCode, nameOfCode } from './connect-hook.js';
import { connectErrorOf } from './errors.js';

/** A gRPC, gRPC-web or Connect call in the chain: the request message Connect decoded. */
export interface ConnectCall extends UnaryCall {
  readonly request: unknown;
}

const OK = succeeded(200);

/**
 * The answer stage of gRPC, gRPC-web and Connect: the response for Connect to encode, or the failure's catalogue
 * error as a ConnectError carrying its code and field in an ErrorDetail. The request ID goes in the response
 * headers, and with a failure in the error's metadata (trailers on gRPC), as the JSON API sends it.
 */
export function answerConnect<C extends ConnectCall>(next: UnaryHandler<C>): UnaryHandler<C> {
  return async (call) => {
    try {
      const response = await next(call);
      call.context.responseHeader.set(REQUEST_ID_HEADER, call.requestId);
      call.answer = OK;
      return response;
    } catch (err) {
      const failure = CallFailure.of(err);
      const { thrown } = failure;
      // A ConnectError is an answer already: the gRPC health service raises them (an unknown service name).
      const answered = thrown instanceof ConnectError ? thrown : connectErrorOf(failure.ferry);
      answered.metadata.set(REQUEST_ID_HEADER, call.requestId);
      call.answer = thrown instanceof ConnectError ? connectAnswer(thrown) : failure.answer;
      throw answered;
    }
  };
}

function connectAnswer(err: ConnectError): Answer {
  return { status: httpStatusOfCode(err.code), code: nameOfCode(err.code), field: undefined, thrown: err };
}
