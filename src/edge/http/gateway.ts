import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import type { TLSSocket } from 'node:tls';
import { create } from '@bufbuild/protobuf';
import type { DescService, Message } from '@bufbuild/protobuf';
import type { HandlerContext, ServiceImpl } from '@connectrpc/connect';
import { FerryError, quoteInput, type ErrorCode } from '../../domain/errors.js';
import type { ApiCallObserver } from '../../ports/telemetry.js';
import { toFerryError } from '../errors.js';
import { GatewayCallContext } from './call-context.js';
import { ClientGone, readBody, TOO_LARGE } from './body.js';
import { answerEarly } from './early-answer.js';
import { sendEmpty, sendError, sendJson, successEnvelope } from './envelope.js';
import { scanHeaders } from './headers.js';
import { fieldWriter, messageWriter, type ValueWriter } from './json-writer.js';
import { compileRequestBinder, type RequestBinder } from './request-message.js';
import { Router } from './router.js';
import { readRoutes, type Route } from './routes.js';

/** A service to expose over JSON HTTP, with the implementation that answers its calls. */
export interface GatewayService<S extends DescService = DescService> {
  readonly service: S;
  readonly impl: Partial<ServiceImpl<S>>;
}

export interface GatewayOptions {
  /** Only these services are routed; an RPC missing from a partial implementation has no route. */
  readonly services: ReadonlyArray<GatewayService>;
  /** Told of every answered call. */
  readonly observer?: ApiCallObserver;
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
  /** The route as the observer reports it (`POST /requests/{request_id}/cancel`), and its RPC's full name. */
  readonly name: string;
  readonly rpc: string;
}

/** The route and RPC reported for a call that matched no route. */
const UNMATCHED = 'unmatched';

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
      entries.push({
        route,
        call: (fn as UnaryCall).bind(impl),
        bind: compileRequestBinder(route),
        writeData: dataWriter(route),
        writeMeta: metaWriter(route),
        name: `${route.httpMethod} ${route.template.source}`,
        rpc: `${route.service.typeName}/${route.method.name}`,
      });
    }
  }
  const router = new Router(entries);

  return (req, res) => {
    handle(router, req, res, opts.observer).catch((err: unknown) => {
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

async function handle(router: Router<Entry>, req: GatewayRequest, res: GatewayResponse, observer: ApiCallObserver | undefined): Promise<void> {
  const startedAt = performance.now();
  const requestId = randomUUID();
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const method = req.method ?? '';
  const match = router.match(method, path);
  // A miss is answered before any body is read: a client may hold its request stream open until it has an answer.
  if (match === undefined) return observe(observer, startedAt, undefined, requestId, answerRouteMiss(router, req, res, method, path, requestId));
  const { entry, captures } = match;
  const { route } = entry;
  const headers = scanHeaders(req.rawHeaders, route.headers);
  if (headers.repeated !== undefined) return refuse(observer, startedAt, entry, req, res, repeatedHeader(headers.repeated), requestId);
  if (headers.contentEncoding !== undefined && route.body.kind !== 'none' && !isIdentity(headers.contentEncoding)) {
    return refuse(observer, startedAt, entry, req, res, encodedBody(headers.contentEncoding), requestId, IDENTITY_ONLY);
  }
  if (headers.contentLength !== undefined && Number(headers.contentLength) > route.maxBodyBytes) {
    return refuse(observer, startedAt, entry, req, res, tooLarge(route), requestId);
  }
  let body: Buffer | typeof TOO_LARGE;
  try {
    body = await readBody(req, route.maxBodyBytes, route.body.kind !== 'none');
  } catch (err) {
    if (err instanceof ClientGone) return;
    throw err;
  }
  if (body === TOO_LARGE) return refuse(observer, startedAt, entry, req, res, tooLarge(route), requestId);

  let context: GatewayCallContext | undefined;
  try {
    const ctx = new GatewayCallContext(
      route.service,
      route.method,
      method,
      headers.pairs,
      () => `${(req.socket as TLSSocket).encrypted ? 'https' : 'http'}://${headers.host ?? 'localhost'}${url}`,
    );
    context = ctx;
    let request: Message;
    try {
      request = entry.bind({ captures, query: q === -1 ? '' : url.slice(q + 1), headers, body });
    } catch (err) {
      if (!(err instanceof FerryError)) throw err;
      // Answered by the service once the caller has authenticated (callerProject), as on gRPC and Connect.
      ctx.unreadable = err;
      request = create(route.method.input);
    }
    // Aborting the context itself, rather than linking a signal of our own, saves an AbortSignal per call.
    res.once('close', () => {
      if (!res.writableEnded) ctx.abort(new ClientGone('The client closed the connection.'));
    });
    const result = await entry.call(request, ctx);
    if (res.destroyed) return;
    const response = create(route.method.output, result as never) as unknown as Record<string, unknown>;
    const status = successStatus(route, response);
    if (route.emptyResponse) sendEmpty(res, status, requestId);
    else sendJson(res, status, successEnvelope(entry.writeData(response), requestId, entry.writeMeta?.(response)), requestId);
    observe(observer, startedAt, entry, requestId, status, undefined, ctx);
  } catch (err) {
    if (res.headersSent || res.destroyed) return;
    const failure = toFerryError(err);
    sendError(res, failure, requestId);
    observe(observer, startedAt, entry, requestId, failure, err, context);
  } finally {
    // Connect signals handlers on completion too, so work tied to the signal stops with the call. A shared
    // reason spares the DOMException that a bare abort() builds, stack trace included, on every call.
    context?.abort(CALL_COMPLETE);
  }
}

/** 405 with the methods of the path in `Allow` when the path has routes, else 404; answers the error sent. */
function answerRouteMiss(router: Router<Entry>, req: GatewayRequest, res: GatewayResponse, method: string, path: string, requestId: string): FerryError {
  const allowed = router.methodsOf(path);
  if (allowed.length === 0) {
    const unrouted = new FerryError('ROUTE_NOT_FOUND', `No route for ${method} ${quoteInput(path)}.`);
    answerEarly(req, res, unrouted, requestId);
    return unrouted;
  }
  const allow = allowed.join(', ');
  const refusal = new FerryError('METHOD_NOT_ALLOWED', `${quoteInput(path)} does not take ${method}; it takes ${allow}.`);
  answerEarly(req, res, refusal, requestId, { Allow: allow });
  return refusal;
}

/** Answers a refusal before the body is read (see `answerEarly`), and reports it. */
function refuse(
  observer: ApiCallObserver | undefined,
  startedAt: number,
  entry: Entry,
  req: GatewayRequest,
  res: GatewayResponse,
  refusal: FerryError,
  requestId: string,
  extra?: Readonly<Record<string, string>>,
): void {
  answerEarly(req, res, refusal, requestId, extra);
  observe(observer, startedAt, entry, requestId, refusal);
}

/**
 * Tells the observer of an answered call: its status, or the error it was answered with (and what was thrown
 * behind that). The one place the gateway reports calls; calls whose client left before the answer are not.
 */
function observe(
  observer: ApiCallObserver | undefined,
  startedAt: number,
  entry: Entry | undefined,
  requestId: string,
  answer: number | FerryError,
  thrown?: unknown,
  ctx?: GatewayCallContext,
): void {
  if (observer === undefined) return;
  const failed = typeof answer === 'number' ? undefined : answer;
  observer.observeCall({
    protocol: 'json',
    route: entry?.name ?? UNMATCHED,
    rpc: entry?.rpc ?? UNMATCHED,
    status: failed === undefined ? (answer as number) : failed.status,
    code: failed?.code,
    field: failed?.field,
    durationMs: performance.now() - startedAt,
    requestId,
    projectId: ctx?.projectId,
    accepted: failed === undefined ? ctx?.accepted : undefined,
    error: thrown,
  });
}

/** The code of a repeated single-valued header: the one its value would get if it were malformed. */
const REPEATED_HEADER_CODES: Readonly<Record<string, ErrorCode>> = {
  'content-type': 'INVALID_CONTENT_TYPE',
  'idempotency-key': 'INVALID_IDEMPOTENCY_KEY',
};

function repeatedHeader(name: string): FerryError {
  const code = REPEATED_HEADER_CODES[name.toLowerCase()] ?? 'INVALID_FIELD';
  return new FerryError(code, `The ${name} header is given more than once; it takes a single value.`, name);
}

/** RFC 9110 section 15.5.16: a 415 for a content coding says in Accept-Encoding which codings the path takes. */
const IDENTITY_ONLY = { 'Accept-Encoding': 'identity' };

function isIdentity(contentEncoding: string): boolean {
  return contentEncoding.trim().toLowerCase() === 'identity';
}

/**
 * A request body is read as sent: a raw body is delivered byte for byte with its Content-Type, and a JSON body is
 * read as UTF-8, so a coded (compressed) body would be stored coded or refused as text it is not.
 */
function encodedBody(contentEncoding: string): FerryError {
  return new FerryError(
    'UNSUPPORTED_MEDIA_TYPE',
    `The body has Content-Encoding ${quoteInput(contentEncoding)}; request bodies take no content coding, send them as they are.`,
    'Content-Encoding',
  );
}

/** A raw body is a field of its own, named in the error like every field; a JSON body is the request as a whole. */
function tooLarge(route: Route): FerryError {
  const field = route.body.kind === 'raw' ? route.body.field.name : undefined;
  return new FerryError('PAYLOAD_TOO_LARGE', `The body is over its limit of ${route.maxBodyBytes} bytes.`, field);
}

function successStatus(route: Route, response: Record<string, unknown>): number {
  for (const o of route.statusOverrides) if (response[o.field.localName] === o.value) return o.status;
  return route.successStatus;
}
