import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';

export type OperationalRequest = IncomingMessage | Http2ServerRequest;
export type OperationalResponse = ServerResponse | Http2ServerResponse;

/**
 * A plain HTTP route for probes and scrapers (`/healthz`, `/readyz`), served before the API: outside API-key
 * authentication and the `{success, data, …}` envelope, and costing an API call nothing but one path lookup.
 */
export interface OperationalRoute {
  /** The exact path; the query string is ignored. */
  readonly path: string;
  /** Answers GET and HEAD; other methods of the path fall through to the API (which answers ROUTE_NOT_FOUND). */
  handle(req: OperationalRequest, res: OperationalResponse): void | Promise<void>;
}

/** Finds the route for a request, or undefined to hand the request to the API. */
export function operationalRouter(routes: readonly OperationalRoute[]): (req: OperationalRequest) => OperationalRoute | undefined {
  const byPath = new Map(routes.map((r) => [r.path, r]));
  return (req) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return undefined;
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    return byPath.get(q === -1 ? url : url.slice(0, q));
  };
}

/** Answers a small JSON document that no cache keeps; HEAD gets the status and headers alone. */
export function sendOperationalJson(req: OperationalRequest, res: OperationalResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  // Both response kinds take the same arguments; their typings just disagree on the overloads.
  (res as ServerResponse).writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
  });
  if (req.method === 'HEAD') res.end();
  else res.end(body);
}
