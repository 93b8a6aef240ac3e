import { createContextKey, createContextValues, type ContextValues, type HandlerContext } from '@connectrpc/connect';

/** A context that can read one request header without materialising a Headers object (the JSON gateway's). */
interface HeaderReader {
  header(lowerCaseName: string): string | null;
  headerLines(lowerCaseName: string): number;
}

function isHeaderReader(ctx: object): ctx is HeaderReader {
  return typeof (ctx as Partial<HeaderReader>).header === 'function';
}

const RAW_HEADERS = createContextKey<readonly string[] | undefined>(undefined, { description: 'ferry: the request headers as sent' });

/**
 * The context values a gRPC or Connect call starts with: they keep its headers as sent. Connect builds the call's
 * headers from Node's parsed ones, which keep only the first line of some repeated headers (Authorization among
 * them), so a repeated header would read as its first line there and as all of its lines on the JSON API.
 */
export function callContextValues(req: { readonly rawHeaders: readonly string[] }): ContextValues {
  return createContextValues().set(RAW_HEADERS, req.rawHeaders);
}

/**
 * One request header of a call on any protocol. A header sent on several lines reads as its lines joined with
 * ", " on every protocol, so a single-valued header sent twice is refused by whoever reads it (a repeated
 * Authorization is a malformed key) instead of read as one of its lines.
 */
export function requestHeader(ctx: HandlerContext, lowerCaseName: string): string | null {
  if (isHeaderReader(ctx)) return ctx.header(lowerCaseName);
  const raw = ctx.values.get(RAW_HEADERS);
  return raw === undefined ? ctx.requestHeader.get(lowerCaseName) : joinedHeader(raw, lowerCaseName);
}

/** How many lines of a request header a call was sent, on any protocol: more than one for a repeated header. */
export function requestHeaderLines(ctx: HandlerContext, lowerCaseName: string): number {
  if (isHeaderReader(ctx)) return ctx.headerLines(lowerCaseName);
  const raw = ctx.values.get(RAW_HEADERS);
  if (raw === undefined) return ctx.requestHeader.has(lowerCaseName) ? 1 : 0;
  let lines = 0;
  for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i]!.toLowerCase() === lowerCaseName) lines++;
  return lines;
}

/** The lines of one header in Node's `rawHeaders` ([name, value, name, value, ...]) joined with ", ". */
function joinedHeader(raw: readonly string[], lowerCaseName: string): string | null {
  let value: string | null = null;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === lowerCaseName.length && name.toLowerCase() === lowerCaseName) value = value === null ? raw[i + 1]! : `${value}, ${raw[i + 1]!}`;
  }
  return value;
}
