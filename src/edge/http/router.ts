import { matchPathTemplate } from './path-template.js';
import type { Route } from './routes.js';

export interface RouteMatch<T> {
  readonly entry: T;
  readonly captures: readonly string[];
}

const NO_CAPTURES: readonly string[] = [];

/**
 * Finds the route of a method and path. Paths without captures (the hot `/send` among them) are one map lookup;
 * the others are compared segment by segment against the templates with the same number of segments. A literal
 * path wins over a template, so `/requests/batch` is never read as a request ID.
 */
export class Router<T extends { readonly route: Route }> {
  private readonly literal = new Map<string, Map<string, T>>();
  private readonly templated = new Map<number, T[]>();

  constructor(entries: Iterable<T>) {
    const seen = new Set<string>();
    for (const entry of entries) {
      const { httpMethod, template } = entry.route;
      const key = `${httpMethod} ${template.segments.map((s) => s.literal ?? '{}').join('/')}`;
      if (seen.has(key)) throw new Error(`two routes for ${httpMethod} ${template.source}`);
      seen.add(key);
      if (template.params.length === 0) {
        let byMethod = this.literal.get(template.source);
        if (byMethod === undefined) this.literal.set(template.source, (byMethod = new Map()));
        byMethod.set(httpMethod, entry);
      } else {
        const n = template.segments.length;
        let list = this.templated.get(n);
        if (list === undefined) this.templated.set(n, (list = []));
        list.push(entry);
      }
    }
  }

  match(method: string, path: string): RouteMatch<T> | undefined {
    const exact = this.literal.get(path)?.get(method);
    if (exact !== undefined) return { entry: exact, captures: NO_CAPTURES };
    if (this.templated.size === 0 || path.length < 2 || path.charCodeAt(0) !== 47 /* / */) return undefined;
    const parts = path.slice(1).split('/');
    const candidates = this.templated.get(parts.length);
    if (candidates === undefined) return undefined;
    for (const entry of candidates) {
      if (entry.route.httpMethod !== method) continue;
      const captures = matchPathTemplate(entry.route.template, parts);
      if (captures !== undefined) return { entry, captures };
    }
    return undefined;
  }

  /** The methods that have a route for this path, for the Allow header of a 405; empty for a path with none. */
  methodsOf(path: string): string[] {
    const methods = new Set(this.literal.get(path)?.keys());
    if (path.length >= 2 && path.charCodeAt(0) === 47 /* / */) {
      const parts = path.slice(1).split('/');
      for (const entry of this.templated.get(parts.length) ?? []) {
        if (matchPathTemplate(entry.route.template, parts) !== undefined) methods.add(entry.route.httpMethod);
      }
    }
    return [...methods];
  }
}
