/** One segment of a path template: a literal to compare, or a `{field}` capture. */
export type PathSegment = { readonly literal: string; readonly param?: undefined } | { readonly literal?: undefined; readonly param: string };

/** A path template compiled once at start-up, so matching never parses the template again. */
export interface PathTemplate {
  readonly source: string;
  readonly segments: readonly PathSegment[];
  /** The captured field names, in path order. */
  readonly params: readonly string[];
}

const PARAM = /^\{([a-z][a-z0-9_]*)\}$/;
const LITERAL = /^[A-Za-z0-9._~-]+$/;

export function compilePathTemplate(source: string): PathTemplate {
  if (!source.startsWith('/') || source.length < 2 || source.endsWith('/')) {
    throw new Error(`path template "${source}" must start with "/" and not end with one`);
  }
  const segments: PathSegment[] = [];
  const params: string[] = [];
  for (const part of source.slice(1).split('/')) {
    const param = PARAM.exec(part)?.[1];
    if (param !== undefined) {
      if (params.includes(param)) throw new Error(`path template "${source}" binds "${param}" twice`);
      params.push(param);
      segments.push({ param });
    } else if (LITERAL.test(part)) {
      segments.push({ literal: part });
    } else {
      throw new Error(`path template "${source}" has an invalid segment "${part}"`);
    }
  }
  return { source, segments, params };
}

/**
 * Matches already split path segments (without the leading empty one) against a template. Returns the decoded
 * captures in template order, or undefined when the path does not match, including when a capture is empty or
 * not valid percent-encoding: such a path names no resource, so it is a route miss rather than a field error.
 */
export function matchPathTemplate(template: PathTemplate, parts: readonly string[]): string[] | undefined {
  const { segments } = template;
  if (parts.length !== segments.length) return undefined;
  let captures: string[] | undefined;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const part = parts[i]!;
    if (segment.param === undefined) {
      if (part !== segment.literal) return undefined;
      continue;
    }
    if (part.length === 0) return undefined;
    const value = decodeSegment(part);
    if (value === undefined) return undefined;
    (captures ??= []).push(value);
  }
  return captures ?? [];
}

function decodeSegment(part: string): string | undefined {
  if (!part.includes('%')) return part;
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}
