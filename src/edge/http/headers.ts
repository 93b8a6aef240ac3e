import { setOwn } from './json-util.js';
import type { HeaderRoute } from './routes.js';

/** What one pass over the raw request headers yields. */
export interface ScannedHeaders {
  /** Every header as sent, for the handler context. */
  readonly pairs: [string, string][];
  readonly contentLength: string | undefined;
  readonly contentType: string | undefined;
  /** The Content-Encoding lines, joined with ", " when repeated. */
  readonly contentEncoding: string | undefined;
  readonly host: string | undefined;
  /** Per binding of the route: the value, the collected prefix map, or undefined when absent. */
  readonly bound: (string | Record<string, string> | undefined)[];
  /**
   * The name of the first header that takes one value but came more than once (Content-Type or a header bound to a
   * singular field that is not a list), as the API spells it; undefined when there is none.
   */
  readonly repeated: string | undefined;
}

/**
 * Reads `req.rawHeaders` once. Node's parsed `req.headers` keeps only the first of some repeated headers
 * (Content-Type, Authorization) and lower-cases every name, while a single-valued header must be refused when
 * repeated rather than read as its first line, and prefix bindings need the name as the client spelled it.
 */
export function scanHeaders(raw: readonly string[], bindings: readonly HeaderRoute[]): ScannedHeaders {
  const pairs: [string, string][] = [];
  let contentLength: string | undefined;
  let contentType: string | undefined;
  let contentEncoding: string | undefined;
  let host: string | undefined;
  let repeated: string | undefined;
  const bound: (string | Record<string, string> | undefined)[] = bindings.length === 0 ? [] : new Array(bindings.length);
  let prefixKeys: Map<string, string>[] | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    const value = raw[i + 1]!;
    if (name.charCodeAt(0) === 58 /* : */) {
      // HTTP/2 pseudo-headers are not headers; only the authority matters, as the host.
      if (name === ':authority') host ??= value;
      continue;
    }
    pairs.push([name, value]);
    const lower = name.toLowerCase();
    if (lower === 'content-length') contentLength = value;
    else if (lower === 'host') host ??= value;
    else if (lower === 'content-encoding') contentEncoding = contentEncoding === undefined ? value : `${contentEncoding}, ${value}`;
    else if (lower === 'content-type') {
      if (contentType !== undefined) repeated ??= 'Content-Type';
      contentType = value;
    }
    for (let b = 0; b < bindings.length; b++) {
      const binding = bindings[b]!;
      if (!binding.prefix) {
        if (lower === binding.lowerName) {
          const earlier = bound[b];
          if (earlier !== undefined && !binding.list) repeated ??= binding.name;
          bound[b] = earlier !== undefined && binding.list ? `${earlier as string}, ${value}` : value;
        }
        continue;
      }
      if (lower.length < binding.lowerName.length || !lower.startsWith(binding.lowerName)) continue;
      // Keys compare case-insensitively, like the header names they come from, but keep the first spelling.
      prefixKeys ??= [];
      const keys = (prefixKeys[b] ??= new Map());
      const rest = name.slice(binding.lowerName.length);
      const restLower = lower.slice(binding.lowerName.length);
      const map = (bound[b] ??= {}) as Record<string, string>;
      const key = keys.get(restLower);
      if (key === undefined) {
        keys.set(restLower, rest);
        setOwn(map, rest, value);
      } else {
        setOwn(map, key, `${map[key]}, ${value}`);
      }
    }
  }
  return { pairs, contentLength, contentType, contentEncoding, host, bound, repeated };
}
