/**
 * Delivery policy: what one attempt's outcome means for the attempt record and for the request.
 *
 *   outcome                                  attempt status  retried  reason
 *   2xx response                             succeeded       no       (request succeeds)
 *   408, 425, 429, any 5xx                   failed          yes      http_<status>
 *   any other status (1xx, 3xx, other 4xx)   failed          no       (request fails)
 *   timeout: connect, headers, body, total   timed_out       yes      timeout_<phase>
 *   connection refused, reset, closed early  errored         yes      connection_error
 *   DNS failure                              errored         yes      dns_error
 *   TLS failure                              errored         yes      tls_error
 *   destination not public (blocked)         errored         no       (request fails)
 *   aborted (Ferry stopped the attempt)      not decided here: handed back, not recorded; passing it throws
 *
 * Redirects are final because they are never followed: retrying would reach the same redirect. A blocked
 * destination never gets another try, since the address check would block it again. Other 4xx mean the request
 * itself is wrong; repeating it unchanged cannot help.
 *
 * Budget: a retryable outcome on attempt `maxAttempts` (or later) fails the request; `retry` is then null.
 *
 * Receiver's stop: a retryable response carrying `Service-No-Retry: true` or `webhook-delivery: abort-message`
 * (`response.ts`) fails the request at once. It wins over the budget when both end the request: the receiver's
 * own word says more than a count.
 *
 * Final reason, set exactly when the attempt fails the request: `receiver_stopped`, `attempts_exhausted`, or
 * `final_status` (a status never retried, or a destination refused); null on success and while a retry follows.
 *
 * Delay: backoff = backoffDelayMs(attemptNumber, base, cap) (equal jitter). Retry-After is recorded for every
 * retried response, but used only on 429 and 503, where RFC 9110 gives it that meaning. When used and valid,
 * the delay is min(Retry-After, retryAfterCapMs), even when shorter than the backoff: the destination knows its
 * own state best. Otherwise the backoff applies. next_attempt_at = completedAt + selected delay.
 */
import type { CapturedResponse, FinalReason, RetryDecision } from '../request.js';
import { backoffDelayMs } from './backoff.js';
import type { AttemptOutcome } from './outcome.js';
import { capturedResponse, receiverStopped } from './response.js';
import { parseRetryAfter, toPrintable } from './retry-after.js';

export interface RetryConfig {
  readonly baseMs: number;
  readonly capMs: number;
  readonly retryAfterCapMs: number;
}

export const DEFAULT_RETRY_CONFIG: RetryConfig = { baseMs: 1000, capMs: 3_600_000, retryAfterCapMs: 3_600_000 };

export interface AttemptDecision {
  readonly attemptStatus: 'succeeded' | 'failed' | 'timed_out' | 'errored';
  readonly responseStatusCode: number | null;
  /** Short and human; never holds response bodies; null on success. */
  readonly errorMessage: string | null;
  /** Null when no further attempt follows. */
  readonly retry: RetryDecision | null;
  /** `queued` means waiting for the retry at `retry.nextAttemptAt`. */
  readonly requestStatus: 'succeeded' | 'failed' | 'queued';
  /** Set exactly when `requestStatus` is `failed`. */
  readonly finalReason: FinalReason | null;
  /** What was kept of the response; null when none came. */
  readonly response: CapturedResponse | null;
}

export interface AttemptInput {
  readonly outcome: AttemptOutcome;
  readonly attemptNumber: number;
  readonly maxAttempts: number;
  readonly completedAt: number;
  readonly config: RetryConfig;
  readonly random: () => number;
  /** The attempt's time limit; when given, timeout messages quote it. */
  readonly timeoutSeconds?: number;
}

export const RETRY_AFTER_STATUSES: ReadonlySet<number> = new Set([429, 503]);
const RETRYABLE_4XX: ReadonlySet<number> = new Set([408, 425, 429]);

// Transport messages come from network libraries; bounding and escaping keeps the record small and displayable.
const ERROR_DETAIL_MAX = 200;
const ERROR_CODE_MAX = 40;

interface Classification {
  readonly attemptStatus: AttemptDecision['attemptStatus'];
  readonly responseStatusCode: number | null;
  readonly errorMessage: string | null;
  /** The retry reason, or null when the outcome is final. */
  readonly reason: string | null;
}

export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_4XX.has(status) || (status >= 500 && status <= 599);
}

export function classifyOutcome(outcome: AttemptOutcome, timeoutSeconds?: number): Classification {
  switch (outcome.kind) {
    case 'response':
      return classifyResponse(outcome.status);
    case 'timeout':
      return { attemptStatus: 'timed_out', responseStatusCode: null, errorMessage: timeoutMessage(outcome.phase, timeoutSeconds), reason: `timeout_${outcome.phase}` };
    case 'connection_error':
      return networkError('connection_error', 'connection failed', outcome.code, outcome.message);
    case 'dns_error':
      return networkError('dns_error', 'DNS lookup failed', outcome.code, outcome.message);
    case 'tls_error':
      return networkError('tls_error', 'TLS handshake failed', outcome.code, outcome.message);
    case 'blocked':
      return networkError(null, 'destination is not a public address', '', outcome.message);
    case 'aborted':
      throw new Error('An aborted attempt is handed back, not decided: it must not reach the delivery policy');
    default:
      return assertNever(outcome);
  }
}

function classifyResponse(status: number): Classification {
  if (!Number.isInteger(status) || status < 100 || status > 999) throw new RangeError(`Not an HTTP status code: ${status}`);
  if (status >= 200 && status <= 299) return { attemptStatus: 'succeeded', responseStatusCode: status, errorMessage: null, reason: null };
  const retryable = isRetryableStatus(status);
  return { attemptStatus: 'failed', responseStatusCode: status, errorMessage: responseMessage(status), reason: retryable ? `http_${status}` : null };
}

function responseMessage(status: number): string {
  if (status < 200) return `HTTP ${status} (unexpected informational status as final response)`;
  if (status >= 300 && status <= 399) return `HTTP ${status} (redirects are not followed)`;
  return `HTTP ${status}`;
}

const PHASE_TEXT = {
  connect: 'timed out connecting to the destination',
  headers: 'timed out waiting for response headers',
  body: 'timed out reading the response body',
  total: 'timed out: the attempt exceeded its time limit',
} as const;

function timeoutMessage(phase: keyof typeof PHASE_TEXT, timeoutSeconds: number | undefined): string {
  const known = timeoutSeconds !== undefined && Number.isFinite(timeoutSeconds) && timeoutSeconds > 0;
  return known ? `${PHASE_TEXT[phase]} after ${timeoutSeconds} s` : PHASE_TEXT[phase];
}

function networkError(reason: string | null, label: string, code: string, message: string): Classification {
  const safeCode = toPrintable(code, ERROR_CODE_MAX).text;
  const safeDetail = toPrintable(message, ERROR_DETAIL_MAX).text;
  const head = safeCode === '' ? label : `${label} (${safeCode})`;
  return { attemptStatus: 'errored', responseStatusCode: null, errorMessage: safeDetail === '' ? head : `${head}: ${safeDetail}`, reason };
}

function assertNever(x: never): never {
  throw new Error(`Unknown attempt outcome: ${JSON.stringify(x)}`);
}

export function decideAttempt(input: AttemptInput): AttemptDecision {
  const { outcome, attemptNumber, maxAttempts, completedAt } = input;
  if (!Number.isSafeInteger(attemptNumber) || attemptNumber < 1) throw new RangeError(`attemptNumber must be a positive integer; got ${attemptNumber}`);
  if (!Number.isSafeInteger(maxAttempts) || maxAttempts < 1) throw new RangeError(`maxAttempts must be a positive integer; got ${maxAttempts}`);
  if (!Number.isFinite(completedAt)) throw new RangeError(`completedAt must be finite; got ${completedAt}`);
  const cap = input.config.retryAfterCapMs;
  if (!Number.isFinite(cap) || cap < 0) throw new RangeError(`retryAfterCapMs must be finite and non-negative; got ${cap}`);

  const c = classifyOutcome(outcome, input.timeoutSeconds);
  const response = outcome.kind === 'response' ? capturedResponse(outcome) : null;
  const base = { attemptStatus: c.attemptStatus, responseStatusCode: c.responseStatusCode, errorMessage: c.errorMessage, response };
  if (c.attemptStatus === 'succeeded') return { ...base, retry: null, requestStatus: 'succeeded', finalReason: null };
  const finalReason = finalReasonOf(c.reason, input);
  if (finalReason !== null) return { ...base, retry: null, requestStatus: 'failed', finalReason };
  return { ...base, retry: retryDecision(c.reason!, input), requestStatus: 'queued', finalReason: null };
}

/** Why a failed attempt ends its request, or null when a retry follows. */
function finalReasonOf(reason: string | null, input: AttemptInput): FinalReason | null {
  if (reason === null) return 'final_status';
  const { outcome } = input;
  if (outcome.kind === 'response' && outcome.headers !== undefined && receiverStopped(outcome.headers)) return 'receiver_stopped';
  return input.attemptNumber >= input.maxAttempts ? 'attempts_exhausted' : null;
}

function retryDecision(reason: string, input: AttemptInput): RetryDecision {
  const { outcome, attemptNumber, completedAt, config, random } = input;
  const isResponse = outcome.kind === 'response';
  const reading = parseRetryAfter(isResponse ? outcome.retryAfter : null, completedAt);
  const backoff = backoffDelayMs(attemptNumber, config, random);
  const honoured = isResponse && RETRY_AFTER_STATUSES.has(outcome.status) && reading.status === 'valid';
  const selected = honoured ? Math.min(reading.delayMs, config.retryAfterCapMs) : backoff;
  return {
    reason,
    retryAfterRaw: reading.raw,
    retryAfterTruncated: reading.truncated,
    retryAfterEscaped: reading.escaped,
    retryAfterStatus: reading.status,
    retryAfterDelayMs: reading.delayMs,
    backoffDelayMs: backoff,
    selectedDelayMs: selected,
    delaySource: honoured ? 'retry_after' : 'backoff',
    nextAttemptAt: completedAt + selected,
  };
}
