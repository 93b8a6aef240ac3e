import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import { constants as h2 } from 'node:http2';
import type { TLSSocket } from 'node:tls';
import { create } from '@bufbuild/protobuf';
import type { DescService, Message } from '@bufbuild/protobuf';
import type { HandlerContext, ServiceImpl } from '@connectrpc/connect';
import { FerryError } from '../../domain/errors.js';
import { toFerryError } from '../errors.js';
import { GatewayCallContext } from './call-context.js';
import { ClientGone, readBody, TOO_LARGE } from './body.js';
import { sendEmpty, sendError, sendJson, successEnvelope } from './envelope.js';
import { scanHeaders } from './headers.js';
import { fieldWriter, messageWriter, type ValueWriter } from './json-writer.js';
import { compileRequestBinder, type RequestBinder } from './request-message.js';
import { Router } from './router.js';
import { DEFAULT_MAX_BODY_BYTES, readRoutes, type Route } from './routes.js';

/** A service to expose over JSON HTTP, with the implementation that answers its calls. */
export interface GatewayService<S extends DescService = DescService> {
  readonly service: S;
  readonly impl: Partial<ServiceImpl<S>>;
}

export interface GatewayOptions {
  /** Only these services are routed; an RPC missing from a partial implementation has no route. */
  readonly services: ReadonlyArray<GatewayService>;
}

/**
 * Node's HTTP/1 and HTTP/2 compatibility objects: the gateway also runs behind a TLS server that speaks both.
 * `write` is left out because the two typings of it disagree and the gateway only ever calls `end`.
 */
export type GatewayRequest = IncomingMessage | Http2ServerRequest;
export type GatewayResponse = Omit<ServerResponse, 'write'> | Omit<Http2ServerResponse, 'write'>;


const CALL_COMPLETE = new Error('The call is complete.');

type UnaryCall = (request: Message, context: HandlerContext) => unknown;

interface Entry {
  readonly route: Route;
  readonly call: UnaryCall;
  readonly bind: RequestBinder;
  readonly writeData: ValueWriter;
  /** Writes `meta`, or undefined when the route's `meta` is always null. */
  readonly writeMeta: ValueWriter | undefined;
}

/**
 * Builds the JSON HTTP API from the `(ferry.v1.http)` options of the given services: one Node request handler
 * that routes, binds the request message, calls the implementation and answers in the envelope. It writes no
 * logs; whoever mounts it observes the server.
 */
export function createGateway(opts: GatewayOptions): (req: GatewayRequest, res: GatewayResponse) => void {
  const entries: Entry[] = [];
  for (const { service, impl } of opts.services) {
    for (const route of readRoutes(service)) {
      const fn = (impl as Record<string, unknown>)[route.method.localName];
      if (typeof fn !== 'function') continue;
      entries.push({ route, call: (fn as UnaryCall).bind(impl), bind: compileRequestBinder(route), writeData: dataWriter(route), writeMeta: metaWriter(route) });
    }
  }
  const router = new Router(entries);

  return (req, res) => {
    handle(router, req, res).catch((err: unknown) => {
      // Only reached when answering itself failed; a half-sent response can only be cut off.
      if (!res.headersSent && !(err instanceof ClientGone)) sendError(res, toFerryError(err), randomUUID());
      else res.destroy();
    });
  };
}

/** Writes the `data` of the envelope: the `response_body` field, or else the whole response message. */
function dataWriter(route: Route): ValueWriter {
  const field = route.responseField;
  if (field === undefined) return messageWriter(route.method.output);
  const write = fieldWriter(field);
  return (response) => write((response as Record<string, unknown>)[field.localName]);
}

/** Writes the `response_meta` field, when the route names one; an unset field leaves `meta` null. */
function metaWriter(route: Route): ValueWriter | undefined {
  const field = route.metaField;
  if (field === undefined) return undefined;
  const write = fieldWriter(field);
  return (response) => {
    const value = (response as Record<string, unknown>)[field.localName];
    return value === undefined ? 'null' : write(value);
  };
}

async function handle(router: Router<Entry>, req: GatewayRequest, res: GatewayResponse): Promise<void> {
  const requestId = randomUUID();
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const method = req.method ?? '';
  const match = router.match(method, path);
  const route = match?.entry.route;
  const headers = scanHeaders(req.rawHeaders, route?.headers ?? []);
  const limit = route?.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;

  if (headers.contentLength !== undefined && Number(headers.contentLength) > limit) return refuseTooLarge(req, res, limit, requestId);
  let body: Buffer | typeof TOO_LARGE;
  try {
    body = await readBody(req, limit, route !== undefined && route.body.kind !== 'none');
  } catch (err) {
    if (err instanceof ClientGone) return;
    throw err;
  }
  if (body === TOO_LARGE) return refuseTooLarge(req, res, limit, requestId);
  if (match === undefined) {
    return sendError(res, new FerryError('ROUTE_NOT_FOUND', `No route for ${method} ${path}.`), requestId);
  }

  const { entry, captures } = match;
  let context: GatewayCallContext | undefined;
  try {
    const request = entry.bind({ captures, query: q === -1 ? '' : url.slice(q + 1), headers, body });
    const ctx = new GatewayCallContext(
      entry.route.service,
      entry.route.method,
      method,
      headers.pairs,
      () => `${(req.socket as TLSSocket).encrypted ? 'https' : 'http'}://${headers.host ?? 'localhost'}${url}`,
    );
    context = ctx;
    // Aborting the context itself, rather than linking a signal of our own, saves an AbortSignal per call.
    res.once('close', () => {
      if (!res.writableEnded) ctx.abort(new ClientGone('The client closed the connection.'));
    });
    const result = await entry.call(request, ctx);
    if (res.destroyed) return;
    const response = create(entry.route.method.output, result as never) as unknown as Record<string, unknown>;
    const status = successStatus(entry.route, response);
    if (entry.route.emptyResponse) sendEmpty(res, status, requestId);
    else sendJson(res, status, successEnvelope(entry.writeData(response), requestId, entry.writeMeta?.(response)), requestId);
  } catch (err) {
    if (res.headersSent || res.destroyed) return;
    sendError(res, toFerryError(err), requestId);
  } finally {
    // Connect signals handlers on completion too, so work tied to the signal stops with the call. A shared
    // reason spares the DOMException that a bare abort() builds, stack trace included, on every call.
    context?.abort(CALL_COMPLETE);
  }
}

function successStatus(route: Route, response: Record<string, unknown>): number {
  for (const o of route.statusOverrides) if (response[o.field.localName] === o.value) return o.status;
  return route.successStatus;
}

/**
 * After a 413 on HTTP/1, the rest of a body is read and dropped up to this many bytes so that the client, still
 * sending, reads the answer instead of a reset: closing a socket with unread bytes makes the kernel send RST, and
 * clients then report a broken pipe rather than the 413. Past this, the connection is cut.
 */
const DISCARD_AFTER_REFUSAL_BYTES = 64 * 1024 * 1024;

/**
 * Answers 413 without buffering the rest of the body. HTTP/1 discards a bounded remainder (see above) and keeps
 * the connection; HTTP/2 resets just the stream with NO_ERROR, which tells the client to stop sending
 * (RFC 9113, 8.1).
 */
function refuseTooLarge(req: GatewayRequest, res: GatewayResponse, limit: number, requestId: string): void {
  const refusal = new FerryError('PAYLOAD_TOO_LARGE', `The body is over its limit of ${limit} bytes.`);
  if ('stream' in req) {
    sendError(res, refusal, requestId);
    // close() waits for the response to flush before it resets. The compat response only reports 'finish' once
    // the stream is closed, so waiting for that would wait forever.
    req.stream.close(h2.NGHTTP2_NO_ERROR);
    // A closed stream is destroyed only once its readable side ends, which a paused one never would.
    req.resume();
    return;
  }
  const declared = Number(req.headers['content-length']);
  const bounded = Number.isFinite(declared) && declared <= DISCARD_AFTER_REFUSAL_BYTES;
  if (!bounded) (res as ServerResponse).setHeader('Connection', 'close');
  sendError(res, refusal, requestId);
  if (!bounded) return;
  let discarded = 0;
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > DISCARD_AFTER_REFUSAL_BYTES) req.socket.destroy();
  });
  req.resume();
}
