/**
 * Every documented limit in one place, so validation, protocol edges and documentation cannot drift apart.
 * Sizes are UTF-8 bytes unless a name says otherwise; durations carry their unit in the name.
 */

const KIB = 1024;
const SECOND_MS = 1000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

export const MAX_URL_BYTES = 2048;
export const MAX_BODY_BYTES = 256 * KIB;
export const MAX_STRUCTURED_REQUEST_BYTES = 512 * KIB;
export const MAX_BATCH_HTTP_BODY_BYTES = 32 * KIB * KIB;
export const MIN_BATCH_ITEMS = 1;
export const MAX_BATCH_ITEMS = 100;

export const MAX_HEADER_ENTRIES = 64;
export const MAX_HEADER_BYTES = 32 * KIB;
export const MAX_CONTENT_TYPE_BYTES = 255;

export const MAX_METADATA_ENTRIES = 32;
export const MAX_METADATA_KEY_BYTES = 64;
export const MAX_METADATA_VALUE_BYTES = 1024;
export const MAX_METADATA_BYTES = 16 * KIB;

export const MAX_IDEMPOTENCY_KEY_BYTES = 255;
export const IDEMPOTENCY_RETENTION_MS = DAY_MS;

export const MAX_QUEUE_LENGTH = 64;
export const DEFAULT_QUEUE = 'default';
export const DEFAULT_METHOD = 'POST';

export const MIN_DELAY_MS = SECOND_MS;
export const MAX_DELAY_MS = 30 * DAY_MS;
export const MAX_DELIVER_AT_AHEAD_MS = 30 * DAY_MS;

export const MIN_TIMEOUT_SECONDS = 1;
export const MAX_TIMEOUT_SECONDS = 5 * 60;
export const DEFAULT_TIMEOUT_SECONDS = 50;

/** `retry` of send and schedules counts additional attempts; `retry.max_attempts` of create counts all of them. */
export const MAX_RETRY = 19;
export const DEFAULT_RETRY = 0;
export const MIN_MAX_ATTEMPTS = 1;
export const MAX_MAX_ATTEMPTS = MAX_RETRY + 1;
export const DEFAULT_MAX_ATTEMPTS = 3;

export const MAX_SEARCH_BYTES = 2048;
/** The status codes a response can have (RFC 9110 section 15): the `response_status_code` filter's range. */
export const MIN_STATUS_CODE = 100;
export const MAX_STATUS_CODE = 599;
export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 50;

export const MAX_SCHEDULE_NAME_BYTES = 120;
/**
 * Every minute, hour, day, month and weekday listed one by one comes to about 390 bytes: a longer expression is
 * never needed, and an unbounded one would be stored and sent back in every schedule list.
 */
export const MAX_CRON_EXPRESSION_BYTES = 512;
export const MIN_INTERVAL_SECONDS = 60;
export const MAX_INTERVAL_SECONDS = 30 * 24 * 60 * 60;
/** Intervals are whole minutes. */
export const INTERVAL_STEP_SECONDS = 60;
export const DEFAULT_PREVIEW_COUNT = 10;
export const MAX_PREVIEW_COUNT = 100;

const encoder = new TextEncoder();

/** Limits are stated in bytes on the wire, not in UTF-16 code units. */
export function utf8Length(s: string): number {
  return encoder.encode(s).length;
}

export function utf8Bytes(s: string): Uint8Array {
  return encoder.encode(s);
}
