import { randomUUID } from 'node:crypto';
import type { DescMethod } from '@bufbuild/protobuf';
import { ConnectError, type Interceptor, type UnaryRequest } from '@connectrpc/connect';
import { codeToHttpStatus, codeToString } from '@connectrpc/connect/protocol-connect';
import type { FerryError } from '../../domain/errors.js';
import type { ApiCallObserver, CallProtocol } from '../../ports/telemetry.js';
import { notedAccepted, notedProject } from '../call-notes.js';
import { toFerryError } from '../errors.js';
import { REQUEST_ID_HEADER } from '../http/envelope.js';
import { connectErrorOf } from './errors.js';

/**
 * Reports every unary gRPC and Connect call to the observer once it is answered, and gives it a request ID, sent
 * as `Ferry-Request-Id` response metadata (on a failure, with the error) as the JSON API sends it: the ID the log
 * line of a failed call carries. It sits inside `errorInterceptor`, so it sees what the service threw and turns it
 * into the ConnectError the client gets, with the ID attached. Streams (health watches, reflection) are not API
 * calls and pass through.
 */
export function observedCalls(observer: ApiCallObserver): Interceptor {
  const names = new Map<DescMethod, string>();
  const nameOf = (method: DescMethod): string => {
    let name = names.get(method);
    if (name === undefined) names.set(method, (name = `${method.parent.typeName}/${method.name}`));
    return name;
  };
  return (next) => async (req) => {
    if (req.stream) return next(req);
    const startedAt = performance.now();
    const requestId = randomUUID();
    try {
      const res = await next(req);
      res.header.set(REQUEST_ID_HEADER, requestId);
      report(observer, req, nameOf(req.method), startedAt, requestId, null);
      return res;
    } catch (err) {
      const ferry = err instanceof ConnectError ? null : toFerryError(err);
      const answered = ferry === null ? (err as ConnectError) : connectErrorOf(ferry);
      answered.metadata.set(REQUEST_ID_HEADER, requestId);
      report(observer, req, nameOf(req.method), startedAt, requestId, { thrown: err, ferry, answered });
      throw answered;
    }
  };
}

/** A failed call: what the service threw, and what the client was answered. */
interface Failure {
  readonly thrown: unknown;
  /** Null when Connect itself (or a service) raised a ConnectError rather than a catalogue error. */
  readonly ferry: FerryError | null;
  readonly answered: ConnectError;
}

function report(observer: ApiCallObserver, req: UnaryRequest, rpc: string, startedAt: number, requestId: string, failure: Failure | null): void {
  const ferry = failure?.ferry ?? null;
  observer.observeCall({
    protocol: protocolOf(req.header.get('content-type')),
    route: rpc,
    rpc,
    status: failure === null ? 200 : ferry !== null ? ferry.status : codeToHttpStatus(failure.answered.code),
    code: failure === null ? undefined : ferry !== null ? ferry.code : codeToString(failure.answered.code),
    field: ferry?.field,
    durationMs: performance.now() - startedAt,
    requestId,
    projectId: notedProject(req.contextValues),
    accepted: failure === null ? notedAccepted(req.contextValues) : undefined,
    error: failure?.thrown,
  });
}

/** The protocol of a call, from its content type (Connect GET requests have none). */
function protocolOf(contentType: string | null): CallProtocol {
  if (contentType === null || !contentType.startsWith('application/grpc')) return 'connect';
  return contentType.startsWith('application/grpc-web') ? 'grpc-web' : 'grpc';
}
