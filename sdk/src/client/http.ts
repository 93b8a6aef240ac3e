/**
 * The one place the client talks HTTP. It is written on plain `fetch` rather than a generated client or a request
 * library because what it must do is exactly what those leave out: buffer the body so a retry resends the same
 * bytes, give every attempt its own timeout and the caller's abort signal, keep one idempotency key across the
 * attempts of a call, and turn each outcome into a Ferry result or one of the SDK's error classes. It needs nothing
 * beyond the Fetch standard, so the SDK runs unchanged on Node, Deno, Bun, workers and browsers.
 */
import { errorFromResponse, FerryAbortError, FerryConnectionError, FerryTimeoutError, type FerryApiError } from '../errors.js';
import type { CallOptions, RawBody } from '../types.js';
import { SDK_VERSION } from '../version.js';
import { backoffMs, isRetriedAnswer, retryAfterMs, retryDelayMs } from './retry-policy.js';

/** What the client was built with, defaults applied. */
export interface HttpConfig {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  maxRetries: number;
  fetch: typeof fetch;
}

/** One API call, as the resources describe it. */
export interface HttpCall {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The path below the base URL, path parameters already encoded. */
  path: string;
  query?: Record<string, string | number | undefined>;
  /** A JSON body. */
  json?: unknown;
  /** A raw body, sent byte for byte with `contentType` (or a Blob's own type), or without a Content-Type. */
  raw?: { body: RawBody | undefined; contentType: string | undefined };
  headers?: Record<string, string>;
  /** For creates: every attempt carries `Idempotency-Key`, the caller's or one generated for this call. */
  idempotent?: { key: string | undefined };
  options?: CallOptions;
}

/** The parts of a successful envelope the resources use; `data` is undefined for `204 No Content`. */
export interface HttpResult {
  data: unknown;
  meta: unknown;
  requestId: string;
}

type AttemptOutcome = { response: Response; text: string } | { failure: FerryConnectionError | FerryTimeoutError };

export class HttpClient {
  readonly #config: HttpConfig;

  constructor(config: HttpConfig) {
    this.#config = config;
  }

  /** Runs the call, retrying what may be retried, and resolves with the envelope or throws the last failure. */
  async call(call: HttpCall): Promise<HttpResult> {
    const signal = call.options?.signal;
    const maxRetries = checkMaxRetries(call.options?.maxRetries ?? this.#config.maxRetries);
    const timeoutMs = checkTimeoutMs(call.options?.timeoutMs ?? this.#config.timeoutMs);
    throwIfAborted(signal);
    const request = await this.#prepare(call);
    for (let retry = 0; ; retry++) {
      const outcome = await this.#attempt(request, timeoutMs, signal);
      let waitMs: number;
      if ('failure' in outcome) {
        if (retry >= maxRetries) throw outcome.failure;
        waitMs = backoffMs(retry);
      } else {
        const { response, text } = outcome;
        if (response.ok) return readEnvelope(response, text);
        const error = toApiError(response, text);
        if (!isRetriedAnswer(response.status, error.code) || retry >= maxRetries) throw error;
        waitMs = retryDelayMs(retry, response.headers.get('Retry-After'), Date.now());
      }
      await sleep(waitMs, signal);
    }
  }

  /** Everything an attempt sends, fixed once so every attempt of the call sends the same. */
  async #prepare(call: HttpCall): Promise<{ url: string; init: RequestInit }> {
    const url = new URL(this.#config.baseUrl.replace(/\/+$/, '') + call.path);
    for (const [name, value] of Object.entries(call.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = {
      Accept: 'application/json',
      Authorization: `Bearer ${this.#config.apiKey}`,
      'User-Agent': USER_AGENT,
      // Browsers and some workers refuse to set User-Agent; this one always arrives.
      'Ferry-Client': `typescript/${SDK_VERSION}`,
      ...call.headers,
    };
    let body: Uint8Array<ArrayBuffer> | undefined;
    if (call.json !== undefined) {
      body = new TextEncoder().encode(JSON.stringify(call.json));
      headers['Content-Type'] = 'application/json';
    } else if (call.raw) {
      body = await toBytes(call.raw.body ?? new Uint8Array(0));
      const contentType = call.raw.contentType ?? (isBlob(call.raw.body) && call.raw.body.type !== '' ? call.raw.body.type : undefined);
      if (contentType !== undefined) headers['Content-Type'] = contentType;
    }
    if (call.idempotent) headers['Idempotency-Key'] = call.idempotent.key ?? globalThis.crypto.randomUUID();
    // Built here so a header fetch would refuse (a line break in a forwarded value) throws its TypeError once, now,
    // instead of failing every attempt as if the network had.
    return { url: url.toString(), init: { method: call.method, headers: new Headers(headers), body } };
  }

  async #attempt(request: { url: string; init: RequestInit }, timeoutMs: number, signal: AbortSignal | undefined): Promise<AttemptOutcome> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const forwardAbort = () => controller.abort();
    signal?.addEventListener('abort', forwardAbort, { once: true });
    try {
      // The timeout covers reading the body too: an answer that stalls halfway is no answer.
      const response = await this.#config.fetch(request.url, { ...request.init, signal: controller.signal });
      return { response, text: await response.text() };
    } catch (cause) {
      throwIfAborted(signal);
      if (timedOut) return { failure: new FerryTimeoutError(`Ferry did not answer within ${timeoutMs} ms.`, { cause }) };
      const reason = cause instanceof Error ? (cause.cause instanceof Error ? cause.cause.message : cause.message) : String(cause);
      return { failure: new FerryConnectionError(`Could not reach Ferry at ${new URL(request.url).origin}: ${reason}`, { cause }) };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', forwardAbort);
    }
  }
}

/** The longest delay timers take: a longer one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export function checkTimeoutMs(value: number): number {
  if (typeof value !== 'number' || !(value > 0 && value <= MAX_TIMER_MS)) throw new TypeError(`Ferry: timeoutMs must be a number of milliseconds from 1 to ${MAX_TIMER_MS}.`);
  return value;
}

export function checkMaxRetries(value: number): number {
  if (!Number.isInteger(value) || value < 0) throw new TypeError('Ferry: maxRetries must be a whole number, 0 or more.');
  return value;
}

/** `ferry-sdk-typescript/<version>`, with the runtime when it can be read without importing anything. */
const USER_AGENT = `ferry-sdk-typescript/${SDK_VERSION}${runtimeLabel()}`;

function runtimeLabel(): string {
  const g = globalThis as { Deno?: { version?: { deno?: string } }; Bun?: { version?: string }; process?: { versions?: { node?: string } } };
  // Deno and Bun also pose as Node through `process`, so they are asked first.
  if (typeof g.Deno?.version?.deno === 'string') return ` (deno ${g.Deno.version.deno})`;
  if (typeof g.Bun?.version === 'string') return ` (bun ${g.Bun.version})`;
  if (typeof g.process?.versions?.node === 'string') return ` (node ${g.process.versions.node})`;
  return '';
}

function readEnvelope(response: Response, text: string): HttpResult {
  const headerId = response.headers.get('Ferry-Request-Id') ?? '';
  if (response.status === 204) return { data: undefined, meta: null, requestId: headerId };
  const envelope = parseJson(text) as { success?: unknown; data?: unknown; meta?: unknown; request_id?: unknown } | null | undefined;
  if (typeof envelope !== 'object' || envelope === null || envelope.success !== true) throw toApiError(response, text);
  return { data: envelope.data, meta: envelope.meta ?? null, requestId: typeof envelope.request_id === 'string' ? envelope.request_id : headerId };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined; // not JSON: an unexpected response
  }
}

function toApiError(response: Response, text: string): FerryApiError {
  // The error tells the caller what the server asked for, uncut: an allowance refusal's wait runs to the next month.
  const waitMs = retryAfterMs(response.headers.get('Retry-After'), Date.now(), Number.POSITIVE_INFINITY);
  return errorFromResponse(response.status, response.headers, text, waitMs === null ? null : waitMs / 1000);
}

function isBlob(body: RawBody | undefined): body is Blob {
  return typeof Blob !== 'undefined' && body instanceof Blob;
}

/** A private copy of the body: later changes to the caller's buffer cannot reach a retry. */
async function toBytes(body: RawBody): Promise<Uint8Array<ArrayBuffer>> {
  if (typeof body === 'string') return new TextEncoder().encode(body);
  if (isBlob(body)) return new Uint8Array(await body.arrayBuffer());
  const view = body instanceof ArrayBuffer ? new Uint8Array(body) : body;
  return new Uint8Array(view);
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new FerryAbortError('The call was aborted by its signal.', { cause: signal.reason });
}

/** Waits before a retry; the caller's signal ends the wait, and the call, at once. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new FerryAbortError('The call was aborted by its signal.', { cause: signal?.reason }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}
