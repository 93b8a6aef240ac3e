/**
 * When the client tries a call again, and how long it waits first. Pure functions of their inputs, so the rules can
 * be checked without a network or a clock.
 */

/** The ceiling of the first retry's wait; it doubles with each retry after it. */
export const BACKOFF_BASE_MS = 500;
/** The largest ceiling of an exponential wait. */
export const BACKOFF_CAP_MS = 8_000;
/** The longest wait a `Retry-After` header can ask for; a longer one is cut to this. */
export const RETRY_AFTER_CAP_MS = 60_000;

/**
 * 429 (a rate limit in front of Ferry) and the gateway statuses: nothing was applied, or the answer never
 * arrived. Creates carry an idempotency key, so trying again never makes a second request.
 */
const RETRIED_STATUSES = new Set([429, 502, 503, 504]);

/** Ferry's own 429s say an allowance is used up: that lasts until the period ends, not for seconds. */
const FINAL_CODES = new Set(['MONTHLY_ALLOWANCE_EXCEEDED', 'SCHEDULE_ALLOWANCE_EXCEEDED']);

/** Another call with the same idempotency key is still running: its outcome arrives in moments. */
const RETRIED_CODES = new Set(['IDEMPOTENCY_KEY_IN_USE']);

/** Whether an error answer is tried again (while retries are left), by its status and Ferry's code if any. */
export function isRetriedAnswer(status: number, code: string | null): boolean {
  if (code !== null && RETRIED_CODES.has(code)) return true;
  if (code !== null && FINAL_CODES.has(code)) return false;
  return RETRIED_STATUSES.has(status);
}

/**
 * The wait before retry number `retry` (0 for the first retry): "full jitter", a uniform draw below a ceiling of
 * base × 2^retry capped at {@link BACKOFF_CAP_MS}, so many clients failing together spread their retries out.
 */
export function backoffMs(retry: number, random: () => number = Math.random): number {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, retry));
  return Math.floor(random() * ceiling);
}

/**
 * Reads a `Retry-After` value (RFC 9110: delay-seconds or an HTTP date) as a wait in milliseconds, capped at
 * `capMs` ({@link RETRY_AFTER_CAP_MS} for the client's own waits); a date in the past is no wait. Null when the
 * header is absent or unreadable, so the caller falls back to the backoff.
 */
export function retryAfterMs(value: string | null, nowMs: number, capMs: number = RETRY_AFTER_CAP_MS): number | null {
  if (value === null) return null;
  const text = value.trim();
  let waitMs: number;
  if (/^\d+$/.test(text)) {
    waitMs = Number(text) * 1000;
  } else {
    const at = parseHttpDate(text);
    if (at === null) return null;
    waitMs = Math.max(0, at - nowMs);
  }
  return Math.min(waitMs, capMs);
}

// The three shapes of an HTTP date (RFC 9110 §5.6.7): IMF-fixdate and the obsolete RFC 850 form, both in GMT, and
// asctime, which names no zone but means GMT too. Date.parse alone is too lenient ("5 May" is a date to it).
const IMF_OR_RFC850_DATE = /^[A-Za-z]{3,9}, \d{2}[ -][A-Za-z]{3}[ -]\d{2,4} \d{2}:\d{2}:\d{2} GMT$/;
const ASCTIME_DATE = /^[A-Za-z]{3} [A-Za-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/;

function parseHttpDate(text: string): number | null {
  let at = Number.NaN;
  if (IMF_OR_RFC850_DATE.test(text)) at = Date.parse(text);
  else if (ASCTIME_DATE.test(text)) at = Date.parse(`${text} GMT`);
  return Number.isNaN(at) ? null : at;
}

/** The wait before retry number `retry` after a response: what `Retry-After` asks for, else the backoff. */
export function retryDelayMs(retry: number, retryAfter: string | null, nowMs: number, random: () => number = Math.random): number {
  return retryAfterMs(retryAfter, nowMs) ?? backoffMs(retry, random);
}
