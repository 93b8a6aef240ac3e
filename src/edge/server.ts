import { readFileSync } from 'node:fs';
import http, { type ServerResponse } from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import type { DescService } from '@bufbuild/protobuf';
import { Code, ConnectError, type ConnectRouter, type ServiceImpl } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import type { Clock } from '../domain/clock.js';
import type { ApiCallObserver } from '../ports/telemetry.js';
import { file_ferry_v1_errors } from '../gen/ferry/v1/errors_pb.js';
import { Health } from '../gen/grpc/health/v1/health_pb.js';
import { ServerReflection } from '../gen/grpc/reflection/v1/reflection_pb.js';
import { ServerReflection as ServerReflectionV1Alpha } from '../gen/grpc/reflection/v1alpha/reflection_pb.js';
import { ApiCallGate } from './calls/gate.js';
import type { ChainOptions } from './calls/chain.js';
import { healthRoutes } from './health/http-routes.js';
import { operationalRouter, type OperationalRequest, type OperationalResponse, type OperationalRoute } from './health/operational-routes.js';
import type { Readiness } from './health/readiness.js';
import { clientErrorHandler } from './http/client-errors.js';
import { corsHandler, type CorsPolicy } from './http/cors.js';
import { createGateway } from './http/gateway.js';
import { callContextValues } from './request-headers.js';
import { healthServiceImpl } from './rpc/health-service.js';
import { reflectionServices } from './rpc/reflection-service.js';
import { routeService } from './rpc/service-routes.js';

export interface ServedService {
  readonly service: DescService;
  readonly impl: Partial<ServiceImpl<DescService>>;
}

/** Pairs a service with its implementation; the one place where the service's own types are erased. */
export function served<S extends DescService>(service: S, impl: ServiceImpl<S>): ServedService {
  return { service, impl: impl as unknown as Partial<ServiceImpl<DescService>> };
}

export interface ServerOptions {
  readonly host: string;
  readonly httpPort: number;
  readonly grpcPort: number;
  readonly tls: { readonly certFile: string; readonly keyFile: string } | null;
  /** Ferry's API, served over gRPC, Connect and the JSON HTTP gateway. */
  readonly services: readonly ServedService[];
  /** Answers `/readyz` and the gRPC health service. */
  readonly readiness: Readiness;
  /** How long a drain waits for API calls under way before their connections are cut. */
  readonly shutdownGraceMs: number;
  readonly clock: Clock;
  /** Told of every answered API call, on every protocol. */
  readonly observer?: ApiCallObserver;
  /** More operational routes beside the health ones (`/metrics`). */
  readonly operationalRoutes?: readonly OperationalRoute[];
  /** Which other origins' browser pages may call the API; absent: none (browsers allow the same origin only). */
  readonly cors?: CorsPolicy;
  /** Runs each API call (`serve`) inside a trace span, when tracing is on; operational routes are not traced. */
  readonly traceCall?: (req: OperationalRequest, res: OperationalResponse, serve: () => void) => void;
}

export interface RunningServer {
  readonly httpPort: number;
  readonly grpcPort: number;
  /**
   * Starts the drain: API calls from now on are refused (see ApiCallGate), idle HTTP/1.1 connections close,
   * HTTP/2 connections are told GOAWAY. Health and readiness keep answering. Resolves once no API call is under
   * way, or the grace is over. Calling it again returns the same drain.
   */
  drain(): Promise<void>;
  /**
   * Drains (if not yet), ends streams still open (health watches), stops listening and closes every connection,
   * destroying those still open a moment later: it resolves within the grace plus about a second, whatever the
   * clients do.
   */
  close(): Promise<void>;
}

/** The largest message any RPC accepts: the batch body limit. */
const READ_MAX_BYTES = 32 * 1024 * 1024;
const MAX_HEADER_BYTES = 64 * 1024;
/** After the drain, how long connections get to close by themselves before they are destroyed. */
const CLOSE_LINGER_MS = 1_000;

type Listener = http.Server | http2.Http2Server | http2.Http2SecureServer;

/**
 * Serves every protocol from one handler: operational routes (`/healthz`, `/readyz`) first, then the Connect
 * router, which answers gRPC, gRPC-Web and Connect paths and hands everything else to the JSON HTTP gateway.
 * Cleartext gRPC needs HTTP/2 with prior knowledge, which Node cannot serve beside HTTP/1.1 on one cleartext
 * port, hence two listeners; with TLS, ALPN lets both share each port.
 */
export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const gate = new ApiCallGate();
  // Every unary call of every protocol passes the same chain (see calls/chain.ts); the health checks skip its
  // gate, since they must be answered while the process drains.
  const api: ChainOptions = { observer: opts.observer, gate };
  const health: ChainOptions = { observer: opts.observer, gate: undefined };
  const [reflection, reflectionV1Alpha] = reflectionServices([...opts.services.map((s) => s.service), Health], [file_ferry_v1_errors]);
  const shutdown = new AbortController();
  const connect = connectNodeAdapter({
    routes: (router: ConnectRouter) => {
      for (const s of opts.services) routeService(router, s.service, s.impl, { chain: api, readMaxBytes: READ_MAX_BYTES });
      const healthService = served(Health, healthServiceImpl(opts.readiness, opts.services.map((s) => s.service.typeName)));
      routeService(router, healthService.service, healthService.impl, { chain: health });
      router.service(ServerReflection, reflection);
      router.service(ServerReflectionV1Alpha, reflectionV1Alpha);
    },
    readMaxBytes: READ_MAX_BYTES,
    // Keeps the headers as sent, so a repeated header reads as on the JSON API (see requestHeader).
    contextValues: callContextValues,
    // Aborted once the drain is over: streams still open (health watches) end, and handlers still running learn.
    shutdownSignal: shutdown.signal,
    fallback: createGateway({ services: opts.services, chain: api }),
  });
  // Served before the API: probes and scrapers, each one more entry here.
  const operational = operationalRouter([...healthRoutes(opts.readiness), ...(opts.operationalRoutes ?? [])] satisfies OperationalRoute[]);
  const cors = opts.cors && corsHandler(opts.cors);
  // The latest HTTP/1 response of each connection, so that a request Node cannot read is never answered into it.
  const responses = new WeakMap<object, ServerResponse>();
  const handler = (req: OperationalRequest, res: OperationalResponse): void => {
    if (!('stream' in req)) responses.set(req.socket, res as ServerResponse);
    const route = operational(req);
    if (route !== undefined) {
      void Promise.resolve(route.handle(req, res)).catch(() => res.destroy());
      return;
    }
    if (cors && cors(req, res)) return;
    // While draining, an HTTP/1.1 connection closes after its answer rather than carry calls that are refused.
    if (gate.closed && 'shouldKeepAlive' in res) res.shouldKeepAlive = false;
    if (opts.traceCall) opts.traceCall(req, res, () => connect(req, res));
    else connect(req, res);
  };

  // Destination headers may total 32 KiB, so the header limits sit above Node's 16 KiB default.
  const h2 = { settings: { maxHeaderListSize: MAX_HEADER_BYTES }, maxSendHeaderBlockLength: MAX_HEADER_BYTES };
  const tls = opts.tls && {
    ...h2,
    cert: readFileSync(opts.tls.certFile),
    key: readFileSync(opts.tls.keyFile),
    allowHTTP1: true,
    maxHeaderSize: MAX_HEADER_BYTES,
  };
  const httpServer = tls
    ? http2.createSecureServer(tls, handler)
    : http.createServer({ keepAliveTimeout: 65_000, maxHeaderSize: MAX_HEADER_BYTES }, handler);
  const grpcServer = tls ? http2.createSecureServer(tls, handler) : http2.createServer(h2, handler);
  const clientError = clientErrorHandler({
    maxHeaderBytes: MAX_HEADER_BYTES,
    answering: (socket) => {
      const res = responses.get(socket);
      return res !== undefined && res.headersSent && !res.writableFinished;
    },
    observer: opts.observer,
  });
  // HTTP/1.1 is served on the HTTP port, and with TLS on both ports.
  for (const server of tls ? [httpServer, grpcServer] : [httpServer]) server.on('clientError', clientError);
  const connections = new OpenConnections();
  connections.track(httpServer);
  connections.track(grpcServer);

  const listen = (server: Listener, port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, opts.host, () => resolve((server.address() as AddressInfo).port));
    });
  const httpPort = await listen(httpServer, opts.httpPort);
  const grpcPort = await listen(grpcServer, opts.grpcPort);

  let drained: Promise<void> | undefined;
  const drain = (): Promise<void> => {
    drained ??= (async () => {
      const idle = gate.close();
      if ('closeIdleConnections' in httpServer) httpServer.closeIdleConnections();
      connections.goAway();
      await Promise.race([idle, opts.clock.sleep(opts.shutdownGraceMs)]);
    })();
    return drained;
  };
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= (async () => {
      await drain();
      shutdown.abort(new ConnectError('Ferry is shutting down.', Code.Unavailable));
      const stopped = Promise.all([httpServer, grpcServer].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
      if ('closeIdleConnections' in httpServer) httpServer.closeIdleConnections();
      connections.goAway();
      await Promise.race([connections.allClosed(), opts.clock.sleep(CLOSE_LINGER_MS)]);
      connections.destroy();
      await stopped;
    })();
    return closed;
  };
  return { httpPort, grpcPort, drain, close };
}

/**
 * Every connection of both listeners, so that shutdown can end them: a listener's own close() waits for each
 * one, and an HTTP/2 client may keep a connection open for as long as it likes.
 */
class OpenConnections {
  private readonly sockets = new Set<Socket>();
  private readonly sessions = new Set<http2.ServerHttp2Session>();
  private emptied: Array<() => void> = [];

  track(server: Listener): void {
    // The raw TCP socket, also under TLS: destroying it ends whatever runs on top.
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => {
        this.sockets.delete(socket);
        if (this.sockets.size === 0) for (const done of this.emptied.splice(0)) done();
      });
    });
    server.on('session', (session: http2.ServerHttp2Session) => {
      this.sessions.add(session);
      session.once('close', () => this.sessions.delete(session));
    });
  }

  /** GOAWAY on every HTTP/2 connection: streams under way may finish, no new one may start. */
  goAway(): void {
    for (const session of this.sessions) if (!session.closed) session.close();
  }

  allClosed(): Promise<void> {
    if (this.sockets.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.emptied.push(resolve));
  }

  destroy(): void {
    for (const session of this.sessions) session.destroy();
    for (const socket of this.sockets) socket.destroy();
  }
}
