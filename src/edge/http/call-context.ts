import type { DescMethod, DescService } from '@bufbuild/protobuf';
import { createContextValues, type ContextValues, type HandlerContext } from '@connectrpc/connect';

/**
 * The HandlerContext of a JSON HTTP call. It is built on the hot path of every call, so whatever an
 * implementation rarely reads (abort signal, headers, URL) is made on first use only, the context values once
 * the chain keeps the call's notes there; Connect's own context builds them all up front, which costs more than
 * the rest of a small call.
 */
export class GatewayCallContext implements HandlerContext {
  readonly protocolName = 'json';
  private controller: AbortController | undefined;
  private pendingReason: unknown;
  private aborted = false;
  private headers: Headers | undefined;
  private responseHeaders: Headers | undefined;
  private trailers: Headers | undefined;
  private contextValues: ContextValues | undefined;

  constructor(
    readonly service: DescService,
    readonly method: DescMethod,
    readonly requestMethod: string,
    private readonly pairs: ReadonlyArray<readonly [string, string]>,
    private readonly makeUrl: () => string,
  ) {}

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.pendingReason);
    }
    return this.controller.signal;
  }

  readonly timeoutMs = (): number | undefined => undefined;

  get requestHeader(): Headers {
    return (this.headers ??= new Headers(this.pairs as [string, string][]));
  }

  get responseHeader(): Headers {
    return (this.responseHeaders ??= new Headers());
  }

  get responseTrailer(): Headers {
    return (this.trailers ??= new Headers());
  }

  get values(): ContextValues {
    return (this.contextValues ??= createContextValues());
  }

  get url(): string {
    return this.makeUrl();
  }

  /**
   * Reads one request header (name in lower case) without building a Headers object. Repeated lines are joined
   * with ", " as `Headers.get` joins them for gRPC and Connect calls, so a repeated Authorization is the same
   * malformed key on every protocol instead of its first line here.
   */
  header(name: string): string | null {
    let value: string | null = null;
    for (const [n, v] of this.pairs) {
      if (n.length === name.length && n.toLowerCase() === name) value = value === null ? v : `${value}, ${v}`;
    }
    return value;
  }

  /** How many lines of the header (name in lower case) the call was sent. */
  headerLines(name: string): number {
    let lines = 0;
    for (const [n] of this.pairs) if (n.length === name.length && n.toLowerCase() === name) lines++;
    return lines;
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.pendingReason = reason;
    this.controller?.abort(reason);
  }
}
