import type { HandlerContext } from '@connectrpc/connect';

/** A context that can read one request header without materialising a Headers object (the JSON gateway's). */
interface HeaderReader {
  header(lowerCaseName: string): string | null;
}

function isHeaderReader(ctx: object): ctx is HeaderReader {
  return typeof (ctx as Partial<HeaderReader>).header === 'function';
}

/** One request header of a call on any protocol. */
export function requestHeader(ctx: HandlerContext, lowerCaseName: string): string | null {
  return isHeaderReader(ctx) ? ctx.header(lowerCaseName) : ctx.requestHeader.get(lowerCaseName);
}
