import type { Dispatcher } from 'undici';
import type { AttemptOutcome } from '../../domain/delivery/outcome.js';
import { isWantedResponseHeader } from '../../domain/delivery/response.js';
import type { HeaderEntry } from '../../domain/request.js';
import { outcomeOfError } from './outcome-of-error.js';

export type AttemptPhase = 'connect' | 'headers' | 'body';

/** The reason given to undici when Ferry ends an exchange itself; what undici reports after it is not looked at. */
class AttemptHalted extends Error {
  constructor() {
    super('The attempt was ended by Ferry.');
  }
}

/**
 * One exchange as undici's dispatch sees it, turned into one outcome. It works at the level of undici's callbacks,
 * not its `request` API: that API wraps every response in a stream and every attempt in an abort signal, and on
 * the delivery hot path those cost about as much as the exchange itself.
 *
 * The phase moves to `headers` once undici hands the request a connected socket (before that the attempt is
 * connecting, or waiting for a free connection, which from the destination's point of view is the same), and to
 * `body` with the status line. The response body is counted and dropped, but for its first `captureBytes` bytes,
 * copied on the way (the excerpt an attempt keeps): past `maxResponseBytes` the exchange is aborted, which makes
 * undici close the connection instead of reading on.
 *
 * The first outcome wins: `halt` (deadline, shutdown) settles at once, even while undici still waits for a
 * connection, and aborts the exchange as soon as undici gives it a way to.
 */
export class AttemptHandler implements Dispatcher.DispatchHandler {
  phase: AttemptPhase = 'connect';
  private controller: Dispatcher.DispatchController | undefined;
  private settled = false;
  private status = 0;
  private retryAfter: string | null = null;
  private headers: HeaderEntry[] = [];
  private received = 0;
  /**
   * Views of undici's chunks, for the attempt's lifetime only: the outcome carries a copy (`excerptViews` false) or
   * a view its taker copies before the chunk could go anywhere else (a delivery thread packs a batch's excerpts into
   * one buffer). A view kept on would hold the whole chunk alive and clone all of it across threads.
   */
  private captured: Uint8Array[] = [];
  private capturedBytes = 0;

  constructor(
    private readonly maxResponseBytes: number,
    private readonly captureBytes: number,
    /** Whether a one-chunk excerpt may be handed over as a view of the chunk (see `captured`). */
    private readonly excerptViews: boolean,
    private readonly finish: (outcome: AttemptOutcome) => void,
    /** Errors that reveal a bug in the request Ferry built (see `outcomeOfError`). */
    private readonly fail: (err: unknown) => void,
  ) {}

  /** Ends the attempt with `outcome` unless it already has one, and stops the exchange. */
  halt(outcome: AttemptOutcome): void {
    if (!this.settle(outcome)) return;
    this.controller?.abort(new AttemptHalted());
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // Halted while waiting for a connection: aborting here stops undici before it writes a byte.
    if (this.settled) controller.abort(new AttemptHalted());
    else this.phase = 'headers';
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    // Informational responses (1xx) come before the real one.
    if (statusCode < 200) return;
    this.phase = 'body';
    this.status = statusCode;
    this.retryAfter = firstValue(headers['retry-after']);
    // undici gives names lower-cased, repeated lines as an array.
    for (const name in headers) {
      const value = headers[name];
      if (value !== undefined && isWantedResponseHeader(name)) this.headers.push([name, Array.isArray(value) ? value.join(', ') : value]);
    }
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.received += chunk.length;
    if (this.capturedBytes < this.captureBytes) {
      const take = Math.min(chunk.length, this.captureBytes - this.capturedBytes);
      this.captured.push(chunk.subarray(0, take));
      this.capturedBytes += take;
    }
    if (this.received > this.maxResponseBytes) this.halt(this.response());
  }

  onResponseEnd(): void {
    this.settle(this.response());
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, err: Error): void {
    if (this.settled) return;
    let outcome: AttemptOutcome;
    try {
      outcome = outcomeOfError(err);
    } catch (bug) {
      this.settled = true;
      this.fail(bug);
      return;
    }
    this.settle(outcome);
  }

  private response(): AttemptOutcome {
    const base = { kind: 'response', status: this.status, retryAfter: this.retryAfter, headers: this.headers } as const;
    if (this.captureBytes === 0) return base;
    return { ...base, bodyStart: this.bodyStart(), bodyTruncated: this.received > this.capturedBytes };
  }

  private bodyStart(): Uint8Array {
    if (this.captured.length === 1) {
      const only = this.captured[0]!;
      return this.excerptViews ? only : Uint8Array.prototype.slice.call(only);
    }
    const start = new Uint8Array(this.capturedBytes);
    let at = 0;
    for (const piece of this.captured) {
      start.set(piece, at);
      at += piece.length;
    }
    return start;
  }

  private settle(outcome: AttemptOutcome): boolean {
    if (this.settled) return false;
    this.settled = true;
    this.finish(outcome);
    return true;
  }
}

function firstValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}
