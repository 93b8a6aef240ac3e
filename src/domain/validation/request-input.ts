import { FerryError } from '../errors.js';
import { HTTP_METHODS, type HttpMethod, type RequestDefinition } from '../request.js';
import { resolveDeliveryTime, parseTimeout } from './durations.js';
import { parseFlowKeysHeader, validateFlowKeys } from './flow-keys.js';
import { validateContentType, validateDestinationHeaders } from './headers.js';
import { JsonText } from './json-text.js';
import {
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_METHOD,
  DEFAULT_QUEUE,
  DEFAULT_RETRY,
  DEFAULT_TIMEOUT_SECONDS,
  MAX_BATCH_ITEMS,
  MAX_BODY_BYTES,
  MAX_IDEMPOTENCY_KEY_BYTES,
  MAX_MAX_ATTEMPTS,
  MAX_QUEUE_LENGTH,
  MAX_RETRY,
  MIN_BATCH_ITEMS,
  MIN_MAX_ATTEMPTS,
  utf8Bytes,
  utf8Length,
} from './limits.js';
import { validateMetadata } from './metadata.js';
import { QUEUE_PATTERN as QUEUE, RETRY_BACKOFFS } from './patterns.js';
import { validateDestinationUrl } from './url.js';
import { validateCallbackHeaders, validateCallbacks, type CallbacksInput } from './callbacks.js';

/** Quick send: query parameters, raw body, and `X-Forward-` headers already stripped of their prefix. */
export interface SendInput {
  url: string;
  method?: string;
  retry?: number;
  delay?: string;
  deliverAt?: string;
  timeout?: string;
  queue?: string;
  contentType?: string;
  /** The `Flow-Keys` header as sent: keys separated by commas. */
  flowKeys?: string;
  /** The `Callback-On-Success` and `Callback-On-Failure` headers. */
  callbackOnSuccess?: string;
  callbackOnFailure?: string;
  forwardHeaders: ReadonlyArray<readonly [string, string]>;
  body: Uint8Array;
}

/** Advanced create, and each batch item. */
export interface CreateInput {
  url: string;
  method?: string;
  headers: Record<string, string>;
  /** Any JSON value, or its text when parsing would change it; undefined means no body. */
  body?: unknown;
  delay?: string;
  deliverAt?: string;
  timeout?: string;
  retry?: { maxAttempts?: number; backoff?: string };
  queue?: string;
  /** Absent means none; given only when the caller named some, so inputs without keys fingerprint as before. */
  flowKeys?: string[];
  metadata: Record<string, string>;
  /** Absent means none; given only when the caller named some, so inputs without them fingerprint as before. */
  callbacks?: CallbacksInput;
}

export interface ValidatedRequest {
  definition: RequestDefinition;
  /** Absolute delivery time, or null when the request is due at once. */
  deliverAt: number | null;
}

export interface ValidationOptions {
  allowPrivateDestinations: boolean;
  now: number;
}


export function validateMethod(method: string | undefined, field = 'method'): HttpMethod {
  if (method === undefined) return DEFAULT_METHOD;
  if (!(HTTP_METHODS as readonly string[]).includes(method)) {
    throw new FerryError('INVALID_METHOD', `The method must be one of ${HTTP_METHODS.join(', ')} (upper case).`, field);
  }
  return method as HttpMethod;
}

export function validateQueue(queue: string | undefined, field = 'queue'): string {
  if (queue === undefined) return DEFAULT_QUEUE;
  if (typeof queue !== 'string' || queue.length > MAX_QUEUE_LENGTH || !QUEUE.test(queue)) {
    throw new FerryError('INVALID_QUEUE', `The queue must be 1 to ${MAX_QUEUE_LENGTH} letters, digits, dots, hyphens or underscores.`, field);
  }
  return queue;
}

function isIntegerIn(n: unknown, min: number, max: number): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n >= min && n <= max;
}

/** `retry` counts additional attempts; the definition stores the total. */
export function validateRetryCount(retry: number | undefined, field = 'retry'): number {
  const n = retry ?? DEFAULT_RETRY;
  if (!isIntegerIn(n, 0, MAX_RETRY)) {
    throw new FerryError('INVALID_RETRY', `retry must be an integer from 0 to ${MAX_RETRY} (additional attempts after the first).`, field);
  }
  return n + 1;
}

function validateMaxAttempts(n: unknown, field: string): number {
  if (!isIntegerIn(n, MIN_MAX_ATTEMPTS, MAX_MAX_ATTEMPTS)) {
    throw new FerryError('INVALID_RETRY', `max_attempts must be an integer from ${MIN_MAX_ATTEMPTS} to ${MAX_MAX_ATTEMPTS}.`, field);
  }
  return n;
}

function checkBodySize(size: number, field = 'body'): void {
  if (size > MAX_BODY_BYTES) {
    // Worded as the JSON API words a raw body it refuses before reading it, so every protocol says the same.
    throw new FerryError('PAYLOAD_TOO_LARGE', `The body is over its limit of ${MAX_BODY_BYTES} bytes.`, field);
  }
}

/** An empty URL counts as absent: Protobuf cannot tell the two apart, and every protocol answers alike. */
export function requireUrl(url: string | undefined, field = 'url'): string {
  if (url === undefined || url === null || url === '') throw new FerryError('MISSING_FIELD', `${field} is required.`, field);
  return url;
}

function timeoutOf(timeout: string | undefined): number {
  return timeout === undefined ? DEFAULT_TIMEOUT_SECONDS : parseTimeout(timeout);
}

export function validateSend(input: SendInput, opts: ValidationOptions): ValidatedRequest {
  const url = validateDestinationUrl(requireUrl(input.url), { allowPrivate: opts.allowPrivateDestinations });
  const method = validateMethod(input.method);
  const maxAttempts = validateRetryCount(input.retry);
  const deliverAt = resolveDeliveryTime({ delay: input.delay, deliverAt: input.deliverAt, now: opts.now });
  const timeoutSeconds = timeoutOf(input.timeout);
  const queue = validateQueue(input.queue);
  const flowKeys = parseFlowKeysHeader(input.flowKeys);
  const contentType = input.contentType === undefined ? null : validateContentType(input.contentType);
  const headers = validateDestinationHeaders(input.forwardHeaders, 'X-Forward-');
  const callbacks = validateCallbackHeaders(input.callbackOnSuccess, input.callbackOnFailure, { allowPrivate: opts.allowPrivateDestinations });
  checkBodySize(input.body.byteLength);
  // An empty HTTP body and no body are the same thing on the wire; null keeps one representation.
  const body = input.body.byteLength === 0 ? null : input.body;
  return {
    definition: { url, method, headers, body, contentType, maxAttempts, timeoutSeconds, queue, flowKeys, metadata: {}, callbacks },
    deliverAt,
  };
}

/** Content-Type given among structured headers describes the body, so it moves to the definition's own field. */
function splitContentType(headers: Record<string, string>): { contentType: string | undefined; rest: [string, string][] } {
  const all = Object.entries(headers ?? {});
  const typed = all.filter(([name]) => typeof name === 'string' && name.toLowerCase() === 'content-type');
  const rest = all.filter(([name]) => !(typeof name === 'string' && name.toLowerCase() === 'content-type'));
  if (typed.length > 1) {
    const name = typed[1]?.[0] ?? 'Content-Type';
    throw new FerryError('INVALID_HEADERS', `The header ${name} is given more than once (names are case-insensitive).`, `headers.${name}`);
  }
  const first = typed[0];
  return { contentType: first === undefined ? undefined : validateContentType(first[1], `headers.${first[0]}`), rest };
}

/** A JSON body as the UTF-8 bytes delivered: its own text when it comes as JsonText; undefined means no body. */
export function validateJsonBody(body: unknown, field = 'body'): Uint8Array | null {
  if (body === undefined) return null;
  const text = body instanceof JsonText ? body.text : JSON.stringify(body);
  if (text === undefined) throw new FerryError('INVALID_FIELD', 'The body must be a JSON value.', field);
  const bytes = utf8Bytes(text);
  checkBodySize(bytes.byteLength, field);
  return bytes;
}

export function validateCreate(input: CreateInput, opts: ValidationOptions): ValidatedRequest {
  const url = validateDestinationUrl(requireUrl(input.url), { allowPrivate: opts.allowPrivateDestinations });
  const method = validateMethod(input.method);
  const { contentType: explicitType, rest } = splitContentType(input.headers);
  const headers = validateDestinationHeaders(rest, 'headers');
  const body = validateJsonBody(input.body);
  const contentType = explicitType ?? (body === null ? null : 'application/json');
  const deliverAt = resolveDeliveryTime({ delay: input.delay, deliverAt: input.deliverAt, now: opts.now });
  const timeoutSeconds = timeoutOf(input.timeout);
  const maxAttempts = validateMaxAttempts(input.retry?.maxAttempts ?? DEFAULT_MAX_ATTEMPTS, 'retry.max_attempts');
  const backoff = input.retry?.backoff;
  if (backoff !== undefined && !(RETRY_BACKOFFS as readonly string[]).includes(backoff)) {
    throw new FerryError('INVALID_RETRY', 'The only supported backoff is exponential.', 'retry.backoff');
  }
  const queue = validateQueue(input.queue);
  const flowKeys = validateFlowKeys(input.flowKeys);
  const metadata = validateMetadata(input.metadata ?? {});
  const callbacks = validateCallbacks(input.callbacks, { allowPrivate: opts.allowPrivateDestinations });
  return {
    definition: { url, method, headers, body, contentType, maxAttempts, timeoutSeconds, queue, flowKeys, metadata, callbacks },
    deliverAt,
  };
}

export function validateIdempotencyKey(key: string | undefined, required: boolean, field = 'Idempotency-Key'): string | null {
  if (key === undefined) {
    if (required) throw new FerryError('INVALID_IDEMPOTENCY_KEY', `The ${field} header is required for this operation.`, field);
    return null;
  }
  const bytes = typeof key === 'string' ? utf8Length(key) : 0;
  if (bytes < 1 || bytes > MAX_IDEMPOTENCY_KEY_BYTES) {
    throw new FerryError('INVALID_IDEMPOTENCY_KEY', `The idempotency key must be 1 to ${MAX_IDEMPOTENCY_KEY_BYTES} bytes.`, field);
  }
  return key;
}

export type BatchItemInput = CreateInput & { idempotencyKey?: string };

/** Validates every item before any is accepted, so a batch is all or nothing. */
export function validateBatch(
  items: ReadonlyArray<BatchItemInput>,
  opts: ValidationOptions,
): Array<ValidatedRequest & { idempotencyKey: string | null }> {
  if (!Array.isArray(items) || items.length < MIN_BATCH_ITEMS || items.length > MAX_BATCH_ITEMS) {
    throw new FerryError('INVALID_BATCH', `A batch must hold ${MIN_BATCH_ITEMS} to ${MAX_BATCH_ITEMS} requests.`, 'requests');
  }
  const keyIndex = new Map<string, number>();
  return items.map((item, i) => {
    const prefix = `requests[${i}]`;
    try {
      const validated = validateCreate(item, opts);
      const idempotencyKey = validateIdempotencyKey(item.idempotencyKey, false, 'idempotency_key');
      if (idempotencyKey !== null) {
        const earlier = keyIndex.get(idempotencyKey);
        if (earlier !== undefined) {
          throw new FerryError('INVALID_IDEMPOTENCY_KEY', `The idempotency key repeats the one of requests[${earlier}]; keys must be unique within a batch.`, 'idempotency_key');
        }
        keyIndex.set(idempotencyKey, i);
      }
      return { ...validated, idempotencyKey };
    } catch (e) {
      throw e instanceof FerryError ? e.under(prefix) : e;
    }
  });
}

/**
 * Limits can tighten after a request was stored; a replay must not deliver what a new request could not.
 * Every failure is reported as INVALID_STORED_DEFINITION, keeping the field and the reason of the rule it broke.
 */
export function validateDefinition(def: RequestDefinition, opts: Pick<ValidationOptions, 'allowPrivateDestinations'>): void {
  try {
    validateDestinationUrl(def.url, { allowPrivate: opts.allowPrivateDestinations });
    validateMethod(def.method);
    validateDestinationHeaders(def.headers, 'headers');
    if (def.contentType !== null) validateContentType(def.contentType, 'content_type');
    if (def.body !== null) checkBodySize(def.body.byteLength);
    validateMaxAttempts(def.maxAttempts, 'max_attempts');
    parseTimeout(`${def.timeoutSeconds}s`, 'timeout_seconds');
    validateQueue(def.queue);
    validateFlowKeys(def.flowKeys);
    validateMetadata(def.metadata as Record<string, string>);
    if (def.callbacks !== null) {
      const { onSuccess, onFailure } = def.callbacks;
      validateCallbacks({ ...(onSuccess !== null ? { onSuccess } : {}), ...(onFailure !== null ? { onFailure } : {}) }, { allowPrivate: opts.allowPrivateDestinations });
    }
  } catch (e) {
    if (!(e instanceof FerryError)) throw e;
    throw new FerryError('INVALID_STORED_DEFINITION', `The stored request no longer passes validation: ${e.message}`, e.field);
  }
}
