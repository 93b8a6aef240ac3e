export type { AttemptOutcome, TimedOutcome } from './outcome.js';
export { backoffDelayMs, type BackoffConfig } from './backoff.js';
export {
  MAX_RETRY_AFTER_DELAY_MS,
  RETRY_AFTER_RAW_MAX,
  parseHttpDate,
  parseRetryAfter,
  toPrintable,
  type PrintableText,
  type RetryAfterReading,
} from './retry-after.js';
export {
  DEFAULT_RETRY_CONFIG,
  RETRY_AFTER_STATUSES,
  classifyOutcome,
  decideAttempt,
  isRetryableStatus,
  type AttemptDecision,
  type AttemptInput,
  type RetryConfig,
} from './policy.js';
export {
  RESPONSE_BODY_EXCERPT_BYTES,
  bodyExcerpt,
  bodyText,
  capturedResponse,
  isKeptResponseHeader,
  isWantedResponseHeader,
  keptResponseHeaders,
  receiverStopped,
} from './response.js';
export {
  DEFAULT_TOLERANCE_SECONDS,
  decodeSigningSecret,
  encodeSigningSecret,
  newSigningSecret,
  signPayload,
  verifySignature,
} from './signature.js';
