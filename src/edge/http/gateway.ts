import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';
import type { TLSSocket } from 'node:tls';
import { create } from '@bufbuild/protobuf';
import type { DescService, Message } from '@bufbuild/protobuf';
import type { HandlerContext, ServiceImpl } from '@connectrpc/connect';
import { FerryError, quoteInput, type ErrorCode } from '../../domain/errors.js';
import { unaryChain, type ChainOptions } from '../calls/chain.js';
import { refusalAnswer, toFerryError } from '../calls/failure.js';
import { noteUnreadableInput } from '../calls/notes.js';
import { reportRefused, UNMATCHED } from '../calls/observe.js';
import type { UnaryHandler } from '../calls/unary-call.js';
import { GatewayCallContext } from './call-context.js';
import { ClientGone, readBody, TOO_LARGE } from './body.js';
import { answerEarly } from './early-answer.js';
import { sendError, type JsonResponse } from './envelope.js';
import { scanHeaders } from './headers.js';
import { answeringOf, answerJson, type JsonAnswering, type JsonCall } from './json-answer.js';
import { compileRequestBinder, type HttpInput, type RequestBinder } from './request-message.js';
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
  /** The observer and the gate of the call chain; absent, calls pass a chain with neither. */
  readonly chain?: ChainOptions;
}

/** Node's HTTP/1 and HTTP/2 compatibility objects: the gateway also runs behind a TLS server that speaks both. */
export type GatewayRequest = IncomingMessage | Http2ServerRequest;
export type GatewayResponse = JsonResponse;

const CALL_COMPLETE = new Error('The call is complete.');

type ServiceCall = (request: Message, context: HandlerContext) => unknown;

interface Entry extends JsonAnswering {
  readonly call: ServiceCall;
  readonly bind: RequestBinder;
  /** The route as the observer reports it (`POST /requests/{request_id}/cancel`), and its RPC's full name. */
  readonly name: string;
  readonly rpc: string;
}

/** A JSON call in the chain: its route, and the parts of the HTTP request its message is bound from. */
interface GatewayCall extends JsonCall {
  readonly entry: Entry;
  readonly input: HttpInput;
}

const NO_CHAIN: ChainOptions = { observer: undefined, gate: undefined };

/**
 * Builds the JSON HTTP API from the `(ferry.v1.http)` options of the given services: one Node request handler
 * that routes, answers what it refuses before reading the body, and passes every other call through the one call
 * chain (see chain.ts), whose innermost step binds the request message and calls the implementation. It writes no
 * logs; the chain's observer does.
 */
export function createGateway(opts: GatewayOptions): (req: GatewayRequest, res: GatewayResponse) => void {
  const entries: Entry[] = [];
  for (const { service, impl } of opts.services) {
    for (const route of readRoutes(service)) {
      const fn = (impl as Record<string, unknown>)[route.method.localName];
      if (typeof fn !== 'function') continue;
      entries.push({
        ...answeringOf(route),
        call: (fn as ServiceCall).bind(impl),
        bind: compileRequestBinder(route),
        name: `${route.httpMethod} ${route.template.source}`,
        rpc: `${route.service.typeName}/${route.method.name}`,
      });
    }
  }
  const router = new Router(entries);
  const chain = opts.chain ?? NO_CHAIN;
  const run = unaryChain(chain, answerJson<GatewayCall>, serve);

  return (req, res) => {
    handle(router, run, chain, req, res).catch((err: unknown) => {
      // Only reached when answering itself failed; a half-sent response can only be cut off.
      if (!res.headersSent && !(err instanceof ClientGone)) sendError(res, toFerryError(err), randomUUID());
      else res.destroy();
    });
  };
}

/**
 * The innermost step of a JSON call: binds the request message and calls the implementation. Input that cannot
 * be read is noted, and the implementation gets an empty message: it refuses the note once the caller has
 * authenticated (callerProject), as on gRPC and Connect.
 */
async function serve(call: GatewayCall): Promise<unknown> {
  const { entry } = call;
  let request: Message;
  try {
    request = entry.bind(call.input);
  } catch (err) {
    if (!(err instanceof FerryError)) throw err;
    noteUnreadableInput(call.context.values, err);
    request = create(entry.route.method.input);
  }
  return entry.call(request, call.context);
}

async function handle(
  router: Router<Entry>,
  run: UnaryHandler<GatewayCall, void>,
  chain: ChainOptions,
  req: GatewayRequest,
  res: GatewayResponse,
): Promise<void> {
  const startedAt = performance.now();
  const requestId = randomUUID();
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const method = req.method ?? '';
  const match = router.match(method, path);
  // A miss is answered before any body is read: a client may hold its request stream open until it has an answer.
  if (match === undefined) {
    const refusal = answerRouteMiss(router, req, res, method, path, requestId);
    const call = { protocol: 'json', route: UNMATCHED, rpc: UNMATCHED, requestId, durationMs: performance.now() - startedAt } as const;
    return reportRefused(chain.observer, call, refusalAnswer(refusal));
  }
  const { entry, captures } = match;
  const { route } = entry;
  const refuse = (refusal: FerryError, extra?: Readonly<Record<string, string>>): void => {
    answerEarly(req, res, refusal, requestId, extra);
    const call = { protocol: 'json', route: entry.name, rpc: entry.rpc, requestId, durationMs: performance.now() - startedAt } as const;
    reportRefused(chain.observer, call, refusalAnswer(refusal));
  };
  const headers = scanHeaders(req.rawHeaders, route.headers);
  if (headers.repeated !== undefined) return refuse(repeatedHeader(headers.repeated));
  if (headers.contentEncoding !== undefined && route.body.kind !== 'none' && !isIdentity(headers.contentEncoding)) {
    return refuse(encodedBody(headers.contentEncoding), IDENTITY_ONLY);
  }
  if (headers.contentLength !== undefined && Number(headers.contentLength) > route.maxBodyBytes) return refuse(tooLarge(route));
  let body: Buffer | typeof TOO_LARGE;
  try {
    body = await readBody(req, route.maxBodyBytes, route.body.kind !== 'none');
  } catch (err) {
    if (err instanceof ClientGone) return;
    throw err;
  }
  if (body === TOO_LARGE) return refuse(tooLarge(route));

  const context = new GatewayCallContext(
    route.service,
    route.method,
    method,
    headers.pairs,
    () => `${(req.socket as TLSSocket).encrypted ? 'https' : 'http'}://${headers.host ?? 'localhost'}${url}`,
  );
  // Aborting the context itself, rather than linking a signal of our own, saves an AbortSignal per call.
  res.once('close', () => {
    if (!res.writableEnded) context.abort(new ClientGone('The client closed the connection.'));
  });
  try {
    const input = { captures, query: q === -1 ? '' : url.slice(q + 1), headers, body };
    await run({ protocol: 'json', route: entry.name, rpc: entry.rpc, requestId, startedAt, context, answer: undefined, res, entry, input });
  } finally {
    // Connect signals handlers on completion too, so work tied to the signal stops with the call. A shared
    // reason spares the DOMException that a bare abort() builds, stack trace included, on every call.
    context.abort(CALL_COMPLETE);
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
