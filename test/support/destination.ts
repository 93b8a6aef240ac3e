import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { sharedSelfSignedCertificate, type TestCertificate } from './certs.js';

/** One HTTP request as the destination received it. */
export interface ReceivedRequest {
  readonly method: string;
  /** The request target as sent, query included. */
  readonly path: string;
  /** Lower-cased names; a repeated header's values joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  /** Names and values exactly as they arrived, in order: [name, value, name, value, ...]. */
  readonly rawHeaders: readonly string[];
  readonly body: Buffer;
  readonly receivedAt: number;
}

/** One TCP connection the destination accepted, whether or not anything was ever sent on it. */
export interface AcceptedConnection {
  readonly remoteAddress: string | undefined;
  readonly acceptedAt: number;
  /** Raw bytes read from the client so far, TLS records included. */
  readonly bytesReceived: number;
  /** Raw bytes written to the client so far, TLS records included. */
  readonly bytesSent: number;
  readonly closed: boolean;
}

/** What a scripted handler gets to answer one request. */
export interface Exchange {
  readonly request: ReceivedRequest;
  readonly res: ServerResponse;
  /** Aborted when the client goes away or the destination closes, so delays and trickles stop. */
  readonly signal: AbortSignal;
  /** Drops the TCP connection with a reset instead of answering. */
  reset(): void;
}

export type Handler = (exchange: Exchange) => void | Promise<void>;

export interface Destination {
  /** https://127.0.0.1:PORT, without a trailing slash. */
  readonly url: string;
  readonly port: number;
  readonly certFile: string;
  readonly cert: Buffer;
  readonly requests: readonly ReceivedRequest[];
  readonly connections: readonly AcceptedConnection[];
  /** TLS handshakes that completed. */
  readonly handshakes: number;
  /** Scripts the answer for one path (matched without the query); unscripted paths answer 200 with an empty body. */
  on(path: string, handler: Handler): void;
  requestsTo(path: string): ReceivedRequest[];
  waitForRequests(path: string, count: number, deadlineMs?: number): Promise<ReceivedRequest[]>;
  waitForConnections(count: number, deadlineMs?: number): Promise<AcceptedConnection[]>;
  waitForAllConnectionsClosed(deadlineMs?: number): Promise<void>;
  close(): Promise<void>;
}

export interface DestinationOptions {
  /** Where to listen (default 127.0.0.1); '::' also accepts IPv6 loopback connections. */
  readonly listenHost?: string;
  readonly certificate?: TestCertificate;
  /** False keeps no record of requests and connections, so long soaks do not grow the test process. */
  readonly record?: boolean;
}

const DEFAULT_DEADLINE_MS = 5_000;

/** Polls `condition` until it holds, failing with `what` once the deadline has passed. */
export async function waitFor(condition: () => boolean, what: string, deadlineMs = DEFAULT_DEADLINE_MS): Promise<void> {
  const giveUpAt = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > giveUpAt) throw new Error(`Timed out after ${deadlineMs} ms waiting for ${what}.`);
    await sleep(5);
  }
}

/** A scriptable HTTPS server on loopback that records every connection and request it sees. */
export async function startDestination(options: DestinationOptions = {}): Promise<Destination> {
  const certificate = options.certificate ?? sharedSelfSignedCertificate();
  const routes = new Map<string, Handler>();
  const requests: ReceivedRequest[] = [];
  const connections: AcceptedConnection[] = [];
  const rawSockets = new Set<Socket>();
  const closing = new AbortController();
  let handshakes = 0;

  const server = createServer({ key: readFileSync(certificate.keyFile), cert: certificate.cert });
  server.on('connection', (raw: Socket) => {
    rawSockets.add(raw);
    let closed = false;
    raw.once('close', () => {
      closed = true;
      rawSockets.delete(raw);
    });
    if (options.record !== false) connections.push({
      remoteAddress: raw.remoteAddress,
      acceptedAt: Date.now(),
      get bytesReceived() { return raw.bytesRead; },
      get bytesSent() { return raw.bytesWritten; },
      get closed() { return closed; },
    });
  });
  server.on('secureConnection', () => { handshakes += 1; });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    void handle(req, res);
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const receivedAt = Date.now();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const request: ReceivedRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: lowerCasedHeaders(req.rawHeaders),
      rawHeaders: [...req.rawHeaders],
      body: Buffer.concat(chunks),
      receivedAt,
    };
    if (options.record !== false) requests.push(request);
    const gone = new AbortController();
    res.once('close', () => gone.abort());
    const signal = AbortSignal.any([gone.signal, closing.signal]);
    const reset = (): void => {
      const raw = [...rawSockets].find((s) => s.remotePort === req.socket.remotePort);
      if (raw) raw.resetAndDestroy();
      else req.socket.destroy();
    };
    const handler = routes.get(pathOf(request.path)) ?? replies.status(200);
    try {
      await handler({ request, res, signal, reset });
    } catch {
      if (!res.headersSent && !res.destroyed) res.writeHead(500).end();
      else res.destroy();
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, options.listenHost ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  const requestsTo = (path: string): ReceivedRequest[] => requests.filter((r) => pathOf(r.path) === path);

  return {
    url: `https://127.0.0.1:${port}`,
    port,
    certFile: certificate.certFile,
    cert: certificate.cert,
    requests,
    connections,
    get handshakes() { return handshakes; },
    on(path, handler) { routes.set(path, handler); },
    requestsTo,
    async waitForRequests(path, count, deadlineMs) {
      await waitFor(() => requestsTo(path).length >= count, `${count} request(s) to ${path}`, deadlineMs);
      return requestsTo(path);
    },
    async waitForConnections(count, deadlineMs) {
      await waitFor(() => connections.length >= count, `${count} connection(s)`, deadlineMs);
      return [...connections];
    },
    async waitForAllConnectionsClosed(deadlineMs) {
      await waitFor(() => connections.every((c) => c.closed), 'every connection to close', deadlineMs);
    },
    async close() {
      closing.abort();
      for (const raw of rawSockets) raw.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Ready-made handlers for `destination.on`. */
export const replies = {
  /** Answers at once with this status, headers and body. */
  status(status: number, headers: Record<string, string> = {}, body: string | Buffer = ''): Handler {
    return ({ res }) => {
      res.writeHead(status, headers).end(body);
    };
  },

  redirect(status: number, location: string): Handler {
    return replies.status(status, { Location: location });
  },

  /** Waits before sending the status line, as a slow application would. */
  delayedHeaders(delayMs: number, status = 200): Handler {
    return async ({ res, signal }) => {
      if (!(await pause(delayMs, signal))) return;
      res.writeHead(status).end();
    };
  },

  /** Sends the headers at once, then the body a chunk at a time. */
  trickle({ chunks, chunkBytes = 1, intervalMs, status = 200 }: { chunks: number; chunkBytes?: number; intervalMs: number; status?: number }): Handler {
    return async ({ res, signal }) => {
      res.writeHead(status, { 'Content-Length': String(chunks * chunkBytes) });
      res.flushHeaders();
      for (let i = 0; i < chunks; i += 1) {
        if (!(await pause(intervalMs, signal))) return;
        res.write(Buffer.alloc(chunkBytes, 0x61));
      }
      res.end();
    };
  },

  /** Answers with a body of `bytes` bytes, written only as fast as the client reads. */
  largeBody(bytes: number, status = 200): Handler {
    return async ({ res, signal }) => {
      res.writeHead(status, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(bytes) });
      const chunk = Buffer.alloc(64 * 1024, 0x62);
      let left = bytes;
      while (left > 0 && !signal.aborted) {
        const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= part.length;
        if (!res.write(part)) await once(res, 'drain', { signal }).catch(() => undefined);
      }
      if (!signal.aborted) res.end();
    };
  },

  /** Drops the connection with a TCP reset instead of answering. */
  reset(): Handler {
    return ({ reset }) => reset();
  },

  /** Never answers; the request stays open until the client or the destination gives up. */
  hang(): Handler {
    return async ({ signal }) => {
      await pause(2 ** 31 - 1, signal);
    };
  },
};

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

function pathOf(target: string): string {
  const query = target.indexOf('?');
  return query === -1 ? target : target.slice(0, query);
}

function lowerCasedHeaders(raw: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    const value = raw[i + 1]!;
    headers[name] = Object.hasOwn(headers, name) ? `${headers[name]}, ${value}` : value;
  }
  return headers;
}
