import { readFileSync } from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { DescService } from '@bufbuild/protobuf';
import type { ConnectRouter, ServiceImpl } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { createGateway } from './http/gateway.js';
import { errorInterceptor } from './rpc/errors.js';

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
  readonly services: readonly ServedService[];
}

export interface RunningServer {
  readonly httpPort: number;
  readonly grpcPort: number;
  /** Stops accepting connections and waits for in-flight calls to finish. */
  close(): Promise<void>;
}

/** The largest message any RPC accepts: the batch body limit. */
const READ_MAX_BYTES = 32 * 1024 * 1024;
const MAX_HEADER_BYTES = 64 * 1024;

/**
 * Serves every protocol from one handler: the Connect router answers gRPC, gRPC-Web and Connect paths and hands
 * everything else to the JSON HTTP gateway. Cleartext gRPC needs HTTP/2 with prior knowledge, which Node cannot
 * serve beside HTTP/1.1 on one cleartext port, hence two listeners; with TLS, ALPN lets both share each port.
 */
export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const gateway = createGateway({ services: opts.services.map((s) => ({ service: s.service, impl: s.impl })) });
  const handler = connectNodeAdapter({
    routes: (router: ConnectRouter) => {
      for (const s of opts.services) router.service(s.service, s.impl as ServiceImpl<DescService>);
    },
    interceptors: [errorInterceptor],
    readMaxBytes: READ_MAX_BYTES,
    fallback: gateway,
  });

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

  const listen = (server: http.Server | http2.Http2Server | http2.Http2SecureServer, port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, opts.host, () => resolve((server.address() as AddressInfo).port));
    });
  const httpPort = await listen(httpServer, opts.httpPort);
  const grpcPort = await listen(grpcServer, opts.grpcPort);

  return {
    httpPort,
    grpcPort,
    async close() {
      const closed = (server: { close(cb: () => void): unknown }) => new Promise<void>((resolve) => server.close(() => resolve()));
      if ('closeIdleConnections' in httpServer) httpServer.closeIdleConnections();
      await Promise.all([closed(httpServer), closed(grpcServer)]);
    },
  };
}
