import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import { REQUEST_ID_HEADER } from './envelope.js';

/** Which other origins' pages may call the API from a browser: any, or these (as browsers spell `Origin`). */
export interface CorsPolicy {
  readonly anyOrigin: boolean;
  readonly origins: readonly string[];
}

/** Every method of the JSON API and the Connect paths. */
const ALLOWED_METHODS = 'GET, POST, PATCH, DELETE';

/**
 * What a page's script may read of an answer besides the simple headers: the request ID, when to retry, and the
 * gRPC-web status (its errors arrive in headers when no message came).
 */
const EXPOSED_HEADERS = [REQUEST_ID_HEADER, 'Retry-After', 'Grpc-Status', 'Grpc-Message', 'Grpc-Status-Details-Bin'].join(', ');

/** How long a browser may keep a preflight's answer (Chromium keeps at most 2 hours). */
const PREFLIGHT_MAX_AGE_SECONDS = 7200;

/** Header names as a preflight lists them: tokens separated by commas. */
const HEADER_LIST = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+(?:[ \t]*,[ \t]*[!#$%&'*+\-.^_`|~0-9A-Za-z]+)*$/;

/**
 * Cross-origin resource sharing for the JSON API and the Connect paths. A preflight (`OPTIONS` with `Origin` and
 * `Access-Control-Request-Method`) from an allowed origin is answered here, 204 with the methods and the very
 * headers it asked for: Ferry's API takes any `X-Forward-*` header, which no fixed list could name. Every other
 * call from an allowed origin gets `Access-Control-Allow-Origin` and the headers its script may read. Credentials
 * are never allowed: the API key travels in `Authorization`, which a page sets itself, never in a cookie.
 *
 * Returns true when it answered the request (a preflight), false when the API is to answer it.
 */
export function corsHandler(policy: CorsPolicy): (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) => boolean {
  const allowed = new Set(policy.origins);
  return (req, res) => {
    // Each answer depends on the Origin it was asked with, which a cache must know.
    if (!policy.anyOrigin) res.setHeader('Vary', 'Origin');
    const origin = req.headers.origin;
    if (origin === undefined || (!policy.anyOrigin && !allowed.has(origin))) return false;
    const allowOrigin = policy.anyOrigin ? '*' : origin;
    const requestedMethod = req.headers['access-control-request-method'];
    if (req.method !== 'OPTIONS' || requestedMethod === undefined) {
      res.setHeader('Access-Control-Allow-Origin', allowOrigin);
      res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
      return false;
    }
    const requestedHeaders = req.headers['access-control-request-headers'];
    const headers: Record<string, string | number> = {
      'Access-Control-Allow-Origin': allowOrigin,
      'Access-Control-Allow-Methods': ALLOWED_METHODS,
      'Access-Control-Max-Age': PREFLIGHT_MAX_AGE_SECONDS,
      Vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
    };
    if (requestedHeaders !== undefined && HEADER_LIST.test(requestedHeaders)) headers['Access-Control-Allow-Headers'] = requestedHeaders;
    // Both response kinds take the same arguments; their typings just disagree on the overloads.
    (res as ServerResponse).writeHead(204, headers);
    res.end();
    return true;
  };
}
