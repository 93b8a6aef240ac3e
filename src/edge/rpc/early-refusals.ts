import { randomUUID } from 'node:crypto';
import { Code, createContextKey, createContextValues, type ContextValues } from '@connectrpc/connect';
import { FerryError } from '../../domain/errors.js';
import type { ApiCallObserver, CallProtocol } from '../../ports/telemetry.js';
import { reportRefused } from '../calls/observe.js';
import { errorEnvelope, jsonHeaders, REQUEST_ID_HEADER } from '../http/envelope.js';
import { httpStatusOfCode, nameOfCode, wrappedHandler, type RpcHandler, type RpcRequest, type RpcResponse } from './connect-hook.js';

/** A gRPC or Connect call as it arrived: the chain takes its request ID and start over when the call reaches it. */
export interface BegunCall {
  readonly requestId: string;
  readonly startedAt: number;
  /** Whether the call reached the chain, whose observe stage then reports it. */
  reachedChain: boolean;
}

const BEGUN = createContextKey<BegunCall | undefined>(undefined, { description: 'ferry: the call as it arrived' });

/** The call as it arrived, marked as having reached the chain; undefined when its arrival was not observed. */
export function takeBegunCall(values: ContextValues): BegunCall | undefined {
  const begun = values.get(BEGUN);
  if (begun !== undefined) begun.reachedChain = true;
  return begun;
}

/**
 * Observes one API RPC's handler from the moment a call arrives, so that a call Connect ends before it reaches
 * the chain (a content type or HTTP method the RPC does not take, a malformed timeout or compression header) is
 * reported too, with a request ID like every other call. Connect answers the first two with an empty body; those
 * get the JSON envelope (as on the JSON API), since a client that sent them speaks none of Connect's protocols.
 */
export function observedHandler(observer: ApiCallObserver, handler: RpcHandler): RpcHandler {
  const rpc = `${handler.service.typeName}/${handler.method.name}`;
  const observed = async (req: RpcRequest): Promise<RpcResponse> => {
    const call: BegunCall = { requestId: randomUUID(), startedAt: performance.now(), reachedChain: false };
    const values = req.contextValues ?? createContextValues();
    values.set(BEGUN, call);
    const res = await handler(values === req.contextValues ? req : { ...req, contextValues: values });
    if (call.reachedChain) return res;
    const protocol = protocolOf(req.header.get('content-type'));
    // Reported by status and code alone: what Connect refused names no field.
    const tell = (status: number, code: string): void =>
      reportRefused(
        observer,
        { protocol, route: rpc, rpc, requestId: call.requestId, durationMs: performance.now() - call.startedAt },
        { status, code, field: undefined, thrown: undefined },
      );
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
      tell(res.status, connectCodeOf(bytes) ?? nameOfCode(Code.Unknown));
      return { ...res, header, body: once(bytes) };
    }
    // gRPC and gRPC-web: the status comes last, in the trailers or (gRPC-web) in the last frame of the body.
    return { ...res, header, body: afterBody(res.body, res.trailer, (status) => status !== 0 && tell(httpStatusOfCode(status), nameOfCode(status))) };
  };
  return wrappedHandler(handler, observed);
}

/** The protocol of a gRPC or Connect call, from its content type (Connect GET requests have none). */
export function protocolOf(contentType: string | null): CallProtocol {
  if (contentType === null || !contentType.startsWith('application/grpc')) return 'connect';
  return contentType.startsWith('application/grpc-web') ? 'grpc-web' : 'grpc';
}

function refusalOf(status: number, req: RpcRequest, handler: RpcHandler): FerryError {
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
