import { randomUUID } from 'node:crypto';
import type { DescMethod } from '@bufbuild/protobuf';
import { Code, ConnectError, createContextKey, createContextValues, type Interceptor, type UnaryRequest } from '@connectrpc/connect';
import type { UniversalHandler, UniversalServerRequest, UniversalServerResponse } from '@connectrpc/connect/protocol';
import { codeToHttpStatus, codeToString } from '@connectrpc/connect/protocol-connect';
import { FerryError } from '../../domain/errors.js';
import type { ApiCallObserver, CallProtocol } from '../../ports/telemetry.js';
import { notedAccepted, notedProject } from '../call-notes.js';
import { toFerryError } from '../errors.js';
import { errorEnvelope, jsonHeaders, REQUEST_ID_HEADER } from '../http/envelope.js';
import { connectErrorOf } from './errors.js';
import { wrappedHandler } from './wrapped-handler.js';

/** One call as the handler saw it begin; the interceptor reports it when the call gets that far. */
interface ObservedCall {
  readonly requestId: string;
  readonly startedAt: number;
  reported: boolean;
}

const OBSERVED = createContextKey<ObservedCall | undefined>(undefined, { description: 'ferry: the call as its observation began' });

/**
 * Reports every unary gRPC and Connect call to the observer once it is answered, and gives it a request ID, sent
 * as `Ferry-Request-Id` response metadata (on a failure, with the error) as the JSON API sends it: the ID the log
 * line of a failed call carries. It sits inside `errorInterceptor`, so it sees what the service threw and turns it
 * into the ConnectError the client gets, with the ID attached. Streams (health watches, reflection) are not API
 * calls and pass through. A call that Connect ends before any interceptor runs is reported by `observedHandler`.
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
    const begun = req.contextValues.get(OBSERVED);
    if (begun !== undefined) begun.reported = true;
    const startedAt = begun?.startedAt ?? performance.now();
    const requestId = begun?.requestId ?? randomUUID();
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

/**
 * Observes one API RPC's handler from the moment a call arrives, so that a call Connect ends before any
 * interceptor runs (a content type or HTTP method the RPC does not take, a malformed timeout or compression
 * header) is reported too, with a request ID like every other call. Connect answers the first two with an empty
 * body; those get the JSON envelope (as on the JSON API), since a client that sent them speaks none of Connect's
 * protocols.
 */
export function observedHandler(observer: ApiCallObserver, handler: UniversalHandler): UniversalHandler {
  const rpc = `${handler.service.typeName}/${handler.method.name}`;
  const observed = async (req: UniversalServerRequest): Promise<UniversalServerResponse> => {
    const call: ObservedCall = { requestId: randomUUID(), startedAt: performance.now(), reported: false };
    const values = req.contextValues ?? createContextValues();
    values.set(OBSERVED, call);
    const res = await handler(values === req.contextValues ? req : { ...req, contextValues: values });
    if (call.reported) return res;
    const protocol = protocolOf(req.header.get('content-type'));
    const tell = (status: number, code: string): void =>
      observer.observeCall({
        protocol,
        route: rpc,
        rpc,
        status,
        code,
        field: undefined,
        durationMs: performance.now() - call.startedAt,
        requestId: call.requestId,
        projectId: undefined,
        accepted: undefined,
        error: undefined,
      });
    if (res.body === undefined && (res.status === 415 || res.status === 405)) {
      const refusal = refusalOf(res.status, req, handler);
      const body = errorEnvelope(refusal, call.requestId);
      const header = new Headers(res.header);
      for (const [name, value] of Object.entries(jsonHeaders(body, call.requestId, res.status === 405 ? { Allow: handler.allowedMethods.join(', ') } : undefined))) {
        header.set(name, String(value));
      }
      tell(refusal.status, refusal.code);
      return { ...res, header, body: once(new TextEncoder().encode(body)) };
    }
    const header = res.header ?? new Headers();
    header.set(REQUEST_ID_HEADER, call.requestId);
    if (res.status !== 200) {
      // A Connect error: its code is in the body, which is small and already complete.
      const bytes = await readAll(res.body);
      tell(res.status, connectCodeOf(bytes) ?? codeToString(Code.Unknown));
      return { ...res, header, body: once(bytes) };
    }
    // gRPC and gRPC-web: the status comes last, in the trailers or (gRPC-web) in the last frame of the body.
    return { ...res, header, body: afterBody(res.body, res.trailer, (status) => status !== 0 && tell(codeToHttpStatus(status), codeToString(status))) };
  };
  return wrappedHandler(handler, observed);
}

function refusalOf(status: number, req: UniversalServerRequest, handler: UniversalHandler): FerryError {
  const path = handler.requestPath;
  if (status === 405) return new FerryError('METHOD_NOT_ALLOWED', `${path} does not take ${req.method}; it takes ${handler.allowedMethods.join(', ')}.`);
  const type = req.header.get('content-type');
  return new FerryError(
    'UNSUPPORTED_MEDIA_TYPE',
    `${path} does not read ${type === null ? 'a body without a Content-Type' : `Content-Type ${JSON.stringify(type.slice(0, 64))}`}; ` +
      'it takes application/json or application/proto (Connect), application/grpc or application/grpc-web, with +proto or +json.',
    'Content-Type',
  );
}

async function readAll(body: AsyncIterable<Uint8Array> | undefined): Promise<Uint8Array> {
  if (body === undefined) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks);
}

function connectCodeOf(bytes: Uint8Array): string | undefined {
  try {
    const code = (JSON.parse(new TextDecoder().decode(bytes)) as { code?: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

async function* once(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

/** The body as it is, telling `settled` the gRPC status once the last byte has been handed on. */
async function* afterBody(body: AsyncIterable<Uint8Array> | undefined, trailer: Headers | undefined, settled: (status: number) => void): AsyncIterable<Uint8Array> {
  let last: Uint8Array | undefined;
  if (body !== undefined) {
    for await (const chunk of body) {
      last = chunk;
      yield chunk;
    }
  }
  const status = trailer?.get('grpc-status') ?? (last === undefined ? null : grpcWebStatus(last));
  if (status !== null) settled(Number(status));
}

const GRPC_WEB_TRAILER_FLAG = 0x80;

/** The grpc-status of a gRPC-web body's trailer frame, when `chunk` holds it. */
function grpcWebStatus(chunk: Uint8Array): string | null {
  const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  for (let at = 0; at + 5 <= chunk.byteLength; at += 5 + view.getUint32(at + 1)) {
    if ((chunk[at]! & GRPC_WEB_TRAILER_FLAG) === 0) continue;
    const text = new TextDecoder().decode(chunk.subarray(at + 5, at + 5 + view.getUint32(at + 1)));
    return /^grpc-status:\s*(\d+)/im.exec(text)?.[1] ?? null;
  }
  return null;
}

/** The protocol of a call, from its content type (Connect GET requests have none). */
function protocolOf(contentType: string | null): CallProtocol {
  if (contentType === null || !contentType.startsWith('application/grpc')) return 'connect';
  return contentType.startsWith('application/grpc-web') ? 'grpc-web' : 'grpc';
}
