import { MAX_BULK_IDS } from '../bulk-action.js';
import { BUDGET_RANGES, MAX_FLOW_KEYS } from '../flow/budgets.js';
import { SCHEDULE_ID_PATTERN } from '../ids.js';
import { HTTP_METHODS, REQUEST_SOURCES, REQUEST_STATUSES } from '../request.js';
import { DST_GAP_VALUES, DST_OVERLAP_VALUES } from '../schedule/timing.js';
import {
  INTERVAL_STEP_SECONDS,
  MAX_BATCH_ITEMS,
  MAX_BODY_BYTES,
  MAX_CONTENT_TYPE_BYTES,
  MAX_CRON_EXPRESSION_BYTES,
  MAX_HEADER_BYTES,
  MAX_HEADER_ENTRIES,
  MAX_IDEMPOTENCY_KEY_BYTES,
  MAX_INTERVAL_SECONDS,
  MAX_MAX_ATTEMPTS,
  MAX_METADATA_BYTES,
  MAX_METADATA_ENTRIES,
  MAX_METADATA_KEY_BYTES,
  MAX_METADATA_VALUE_BYTES,
  MAX_PAGE_SIZE,
  MAX_PREVIEW_COUNT,
  MAX_QUEUE_LENGTH,
  MAX_RETRY,
  MAX_SCHEDULE_NAME_BYTES,
  MAX_SEARCH_BYTES,
  MAX_STATUS_CODE,
  MAX_URL_BYTES,
  MIN_BATCH_ITEMS,
  MIN_INTERVAL_SECONDS,
  MIN_MAX_ATTEMPTS,
  MIN_STATUS_CODE,
} from './limits.js';
import { MAX_BURST } from './budget-limits.js';
import { formatDuration } from './durations.js';
import {
  DELAY_PATTERN,
  FLOW_KEY_PATTERN,
  FLOW_KEYS_HEADER_PATTERN,
  HEADER_NAME_PATTERN,
  HEADER_VALUE_PATTERN,
  MEDIA_TYPE_PATTERN,
  METADATA_KEY_PATTERN,
  QUEUE_PATTERN,
  RETRY_BACKOFFS,
  TIMEOUT_PATTERN,
  TIMING_TYPES,
} from './patterns.js';

/**
 * What validation demands of one input field, stated the way JSON Schema can say it. Every number and pattern
 * comes from limits.ts and patterns.ts, which the validation functions read too; `note` says in words what a
 * schema cannot (a bound relative to now, a total over several values, a rule between fields).
 */
export interface FieldRule {
  /** Validation refuses the call when the field is absent. */
  readonly required?: true;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly multipleOf?: number;
  readonly minLength?: number;
  /** A length in characters. */
  readonly maxLength?: number;
  /** A length in UTF-8 bytes; for a string it is stated as `maxLength` too, which bounds ASCII exactly. */
  readonly maxBytes?: number;
  readonly pattern?: RegExp;
  readonly enum?: readonly string[];
  readonly format?: 'uri' | 'date-time';
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly uniqueItems?: true;
  /** Each item of a list. */
  readonly items?: FieldRule;
  readonly minProperties?: number;
  readonly maxProperties?: number;
  /** The keys of a map. */
  readonly keys?: FieldRule;
  /** Each value of a map. */
  readonly values?: FieldRule;
  /**
   * For a message that takes one of several shapes, chosen by the value of its string field `by`: each shape by
   * that value. A shape names the members it requires and those it also takes; it refuses the others.
   */
  readonly variants?: { readonly by: string; readonly shapes: Readonly<Record<string, VariantShape>> };
  readonly note?: string;
}

/** One shape of a message with variants: its required members, and the optional ones it also takes. */
export interface VariantShape {
  readonly required: readonly string[];
  readonly optional?: readonly string[];
}

const URL_RULE: FieldRule = {
  required: true,
  maxBytes: MAX_URL_BYTES,
  format: 'uri',
  note: 'An absolute HTTPS URL to a public host, without credentials or fragment.',
};
const METHOD_RULE: FieldRule = { enum: HTTP_METHODS };
const CALLBACK_URL_RULE: FieldRule = { maxBytes: MAX_URL_BYTES, format: 'uri', note: 'Refused as a destination URL is: HTTPS to a public host.' };
const CALLBACKS_RULE: FieldRule = { note: 'At least one of `on_success` and `on_failure`.' };
const DELAY_RULE: FieldRule = { pattern: DELAY_PATTERN, note: 'The pattern checks the spelling; the range is checked beyond it. Not together with `deliver_at`.' };
const DELIVER_AT_RULE: FieldRule = { format: 'date-time', note: 'At most 30 days ahead, which a schema cannot state; not together with `delay`.' };
const TIMEOUT_RULE: FieldRule = { pattern: TIMEOUT_PATTERN, note: 'The pattern checks the spelling; the range is checked beyond it.' };
const QUEUE_RULE: FieldRule = { minLength: 1, maxLength: MAX_QUEUE_LENGTH, pattern: QUEUE_PATTERN };
const KEY_RULE: FieldRule = { minLength: 1, maxBytes: MAX_IDEMPOTENCY_KEY_BYTES };
const RETRY_RULE: FieldRule = { minimum: 0, maximum: MAX_RETRY };
const LIMIT_RULE: FieldRule = { minimum: 1, maximum: MAX_PAGE_SIZE };
const BODY_RULE: FieldRule = { maxBytes: MAX_BODY_BYTES, note: 'Counted as serialized JSON.' };
const HEADERS_RULE: FieldRule = {
  maxProperties: MAX_HEADER_ENTRIES,
  maxBytes: MAX_HEADER_BYTES,
  keys: { pattern: HEADER_NAME_PATTERN },
  values: { pattern: HEADER_VALUE_PATTERN },
  note: 'Names and values count together against the byte limit. Names the delivery controls (Host, Content-Length, '
    + 'Transfer-Encoding, Connection and the like, `Proxy-*`, `Service-*`) are refused, and so is a name given twice '
    + 'in different case.',
};
const CREATE_HEADERS_RULE: FieldRule = {
  ...HEADERS_RULE,
  note: `${HEADERS_RULE.note} A \`Content-Type\` entry sets the content type of the body instead (at most ${MAX_CONTENT_TYPE_BYTES} bytes) and does not count against the entries.`,
};
const METADATA_RULE: FieldRule = {
  maxProperties: MAX_METADATA_ENTRIES,
  maxBytes: MAX_METADATA_BYTES,
  keys: { minLength: 1, maxLength: MAX_METADATA_KEY_BYTES, pattern: METADATA_KEY_PATTERN },
  values: { maxBytes: MAX_METADATA_VALUE_BYTES },
  note: 'Keys and values count together against the byte limit.',
};
// The pattern bounds the length too.
const FLOW_KEY_RULE: FieldRule = { pattern: FLOW_KEY_PATTERN };
const FLOW_KEYS_RULE: FieldRule = { maxItems: MAX_FLOW_KEYS, uniqueItems: true, items: FLOW_KEY_RULE };
const NAME_RULE: FieldRule = { minLength: 1, maxBytes: MAX_SCHEDULE_NAME_BYTES, note: 'Leading and trailing whitespace is trimmed first.' };

/** The rules of a structured request definition, shared by create and each batch item. */
function definitionRules(message: string, headers: FieldRule): Record<string, FieldRule> {
  return {
    [`${message}.url`]: URL_RULE,
    [`${message}.method`]: METHOD_RULE,
    [`${message}.headers`]: headers,
    [`${message}.body`]: BODY_RULE,
    [`${message}.delay`]: DELAY_RULE,
    [`${message}.deliver_at`]: DELIVER_AT_RULE,
    [`${message}.timeout`]: TIMEOUT_RULE,
    [`${message}.retry`]: {},
    [`${message}.queue`]: QUEUE_RULE,
    [`${message}.metadata`]: METADATA_RULE,
    [`${message}.flow_keys`]: FLOW_KEYS_RULE,
    [`${message}.callbacks`]: CALLBACKS_RULE,
  };
}

/** The rules of the budget RPCs of one kind (`Queue`, `FlowKey`), whose path names it by `field`. */
function budgetRules(kind: string, plural: string, field: string, name: FieldRule): Record<string, FieldRule> {
  const { min, max } = BUDGET_RANGES.concurrency;
  return {
    [`ferry.v1.List${plural}Request.limit`]: LIMIT_RULE,
    [`ferry.v1.List${plural}Request.cursor`]: {},
    [`ferry.v1.Get${kind}Request.${field}`]: name,
    [`ferry.v1.Set${kind}LimitsRequest.${field}`]: name,
    [`ferry.v1.Set${kind}LimitsRequest.rate`]: {},
    [`ferry.v1.Set${kind}LimitsRequest.concurrency`]: { minimum: min, maximum: max },
    [`ferry.v1.Set${kind}LimitsRequest.adaptive`]: {},
    [`ferry.v1.Pause${kind}Request.${field}`]: name,
    [`ferry.v1.Resume${kind}Request.${field}`]: name,
  };
}

/**
 * The rule of every field the JSON HTTP API reads, by proto name (`ferry.v1.RequestInput.url`); a message's own
 * name holds a rule of the message as a whole. A field with nothing to check has an empty entry, so a new field
 * has to be looked at here before the OpenAPI document can be generated.
 */
export const FIELD_RULES: Readonly<Record<string, FieldRule>> = {
  'ferry.v1.SendRequest.url': URL_RULE,
  'ferry.v1.SendRequest.method': METHOD_RULE,
  'ferry.v1.SendRequest.retry': RETRY_RULE,
  'ferry.v1.SendRequest.delay': DELAY_RULE,
  'ferry.v1.SendRequest.deliver_at': DELIVER_AT_RULE,
  'ferry.v1.SendRequest.timeout': TIMEOUT_RULE,
  'ferry.v1.SendRequest.queue': QUEUE_RULE,
  // The shortest media type is three characters: `a/b`.
  'ferry.v1.SendRequest.content_type': { minLength: 3, maxBytes: MAX_CONTENT_TYPE_BYTES, pattern: MEDIA_TYPE_PATTERN },
  'ferry.v1.SendRequest.idempotency_key': KEY_RULE,
  'ferry.v1.SendRequest.forward_headers': HEADERS_RULE,
  'ferry.v1.SendRequest.flow_keys': { pattern: FLOW_KEYS_HEADER_PATTERN },
  'ferry.v1.SendRequest.body': { maxBytes: MAX_BODY_BYTES },
  'ferry.v1.SendRequest.callback_on_success': CALLBACK_URL_RULE,
  'ferry.v1.SendRequest.callback_on_failure': CALLBACK_URL_RULE,
  'ferry.v1.Callbacks.on_success': CALLBACK_URL_RULE,
  'ferry.v1.Callbacks.on_failure': CALLBACK_URL_RULE,

  'ferry.v1.CreateRequestRequest.idempotency_key': KEY_RULE,
  'ferry.v1.CreateRequestRequest.input': { required: true },
  ...definitionRules('ferry.v1.RequestInput', CREATE_HEADERS_RULE),
  'ferry.v1.RetryPolicy.max_attempts': { minimum: MIN_MAX_ATTEMPTS, maximum: MAX_MAX_ATTEMPTS },
  'ferry.v1.RetryPolicy.backoff': { enum: RETRY_BACKOFFS },

  'ferry.v1.BatchCreateRequestsRequest.idempotency_key': { ...KEY_RULE, required: true },
  'ferry.v1.BatchCreateRequestsRequest.requests': { required: true, minItems: MIN_BATCH_ITEMS, maxItems: MAX_BATCH_ITEMS },
  ...definitionRules('ferry.v1.BatchItem', CREATE_HEADERS_RULE),
  'ferry.v1.BatchItem.idempotency_key': { ...KEY_RULE, note: 'Unique within the batch.' },

  'ferry.v1.ListRequestsRequest.status': { enum: REQUEST_STATUSES },
  'ferry.v1.ListRequestsRequest.search': { maxBytes: MAX_SEARCH_BYTES },
  'ferry.v1.ListRequestsRequest.method': METHOD_RULE,
  'ferry.v1.ListRequestsRequest.source': { enum: REQUEST_SOURCES },
  'ferry.v1.ListRequestsRequest.schedule_id': { pattern: SCHEDULE_ID_PATTERN },
  'ferry.v1.ListRequestsRequest.queue': QUEUE_RULE,
  'ferry.v1.ListRequestsRequest.flow_key': FLOW_KEY_RULE,
  'ferry.v1.ListRequestsRequest.response_status_code': { minimum: MIN_STATUS_CODE, maximum: MAX_STATUS_CODE },
  'ferry.v1.ListRequestsRequest.from': { format: 'date-time' },
  'ferry.v1.ListRequestsRequest.to': { format: 'date-time' },
  'ferry.v1.ListRequestsRequest.cursor': {},
  'ferry.v1.ListRequestsRequest.limit': LIMIT_RULE,

  'ferry.v1.GetRequestRequest.request_id': {},
  'ferry.v1.ListAttemptsRequest.request_id': {},
  'ferry.v1.CancelRequestRequest.request_id': {},
  'ferry.v1.ReplayRequestRequest.request_id': {},
  'ferry.v1.ReplayRequestRequest.idempotency_key': KEY_RULE,

  'ferry.v1.CreateBulkActionRequest.action': { required: true },
  'ferry.v1.CreateBulkActionRequest.ids': { minItems: 1, maxItems: MAX_BULK_IDS, note: 'Either `ids` or `filter`, not both.' },
  'ferry.v1.CreateBulkActionRequest.filter': {},
  'ferry.v1.BulkActionFilter': { minProperties: 1, note: 'Either `ids` or `filter`, not both; at least one condition.' },
  'ferry.v1.CreateBulkActionRequest.dry_run': {},
  'ferry.v1.CreateBulkActionRequest.idempotency_key': { ...KEY_RULE, note: 'Required unless `dry_run` is true.' },
  'ferry.v1.BulkActionFilter.status': { enum: REQUEST_STATUSES },
  'ferry.v1.BulkActionFilter.search': { maxBytes: MAX_SEARCH_BYTES },
  'ferry.v1.BulkActionFilter.method': METHOD_RULE,
  'ferry.v1.BulkActionFilter.source': { enum: REQUEST_SOURCES },
  'ferry.v1.BulkActionFilter.schedule_id': { pattern: SCHEDULE_ID_PATTERN },
  'ferry.v1.BulkActionFilter.queue': QUEUE_RULE,
  'ferry.v1.BulkActionFilter.flow_key': FLOW_KEY_RULE,
  'ferry.v1.BulkActionFilter.response_status_code': { minimum: 100, maximum: 599 },
  'ferry.v1.BulkActionFilter.from': { format: 'date-time' },
  'ferry.v1.BulkActionFilter.to': { format: 'date-time' },
  'ferry.v1.GetBulkActionRequest.id': {},
  'ferry.v1.ListBulkActionsRequest.limit': LIMIT_RULE,
  'ferry.v1.ListBulkActionsRequest.cursor': {},
  'ferry.v1.CancelBulkActionRequest.id': {},

  'ferry.v1.CreateScheduleRequest.idempotency_key': { ...KEY_RULE, required: true },
  'ferry.v1.CreateScheduleRequest.name': { ...NAME_RULE, required: true },
  'ferry.v1.CreateScheduleRequest.timing': { required: true },
  'ferry.v1.CreateScheduleRequest.request': { required: true },
  'ferry.v1.ListSchedulesRequest.limit': LIMIT_RULE,
  'ferry.v1.ListSchedulesRequest.cursor': {},
  'ferry.v1.PreviewScheduleRequest.timing': { note: 'Required unless `schedule_id` is given; not together with it.' },
  'ferry.v1.PreviewScheduleRequest.after': { format: 'date-time' },
  'ferry.v1.PreviewScheduleRequest.count': { minimum: 1, maximum: MAX_PREVIEW_COUNT },
  'ferry.v1.PreviewScheduleRequest.schedule_id': { note: 'A schedule of the project; not together with `timing`.' },
  'ferry.v1.GetScheduleRequest.schedule_id': {},
  'ferry.v1.UpdateScheduleRequest': { minProperties: 1 },
  'ferry.v1.UpdateScheduleRequest.schedule_id': {},
  'ferry.v1.UpdateScheduleRequest.name': NAME_RULE,
  'ferry.v1.UpdateScheduleRequest.timing': {},
  'ferry.v1.UpdateScheduleRequest.request': {},
  'ferry.v1.PauseScheduleRequest.schedule_id': {},
  'ferry.v1.ResumeScheduleRequest.schedule_id': {},
  'ferry.v1.DeleteScheduleRequest.schedule_id': {},

  // Each timing type takes members of its own and refuses the other type's (timing.ts).
  'ferry.v1.Timing': {
    variants: {
      by: 'type',
      shapes: {
        cron: { required: ['expression', 'timezone'], optional: ['dst', 'starts_at', 'ends_at'] },
        interval: { required: ['every_seconds'], optional: ['starts_at', 'ends_at'] },
      },
    },
  },
  'ferry.v1.Timing.type': { required: true, enum: TIMING_TYPES },
  'ferry.v1.Timing.expression': {
    maxBytes: MAX_CRON_EXPRESSION_BYTES,
    note: 'Five fields that fire at least once; a step is at most the field\'s largest value.',
  },
  'ferry.v1.Timing.timezone': { note: 'An IANA time zone name such as `Europe/Berlin` or `UTC`.' },
  'ferry.v1.Timing.every_seconds': {
    minimum: MIN_INTERVAL_SECONDS,
    maximum: MAX_INTERVAL_SECONDS,
    multipleOf: INTERVAL_STEP_SECONDS,
  },
  'ferry.v1.Timing.starts_at': { format: 'date-time', note: 'In the future when a schedule is created or changed (not in a preview).' },
  'ferry.v1.Timing.ends_at': {
    format: 'date-time',
    note: 'Exclusive. In the future, after `starts_at` and after the first occurrence when a schedule is created or changed (not in a preview).',
  },
  'ferry.v1.Timing.dst': {},
  'ferry.v1.DstPolicy.gap': { enum: DST_GAP_VALUES },
  'ferry.v1.DstPolicy.overlap': { enum: DST_OVERLAP_VALUES },
  'ferry.v1.ScheduleRequestInput.url': URL_RULE,
  'ferry.v1.ScheduleRequestInput.body': BODY_RULE,
  'ferry.v1.ScheduleRequestInput.headers': HEADERS_RULE,
  'ferry.v1.ScheduleRequestInput.retry': RETRY_RULE,
  'ferry.v1.ScheduleRequestInput.flow_keys': FLOW_KEYS_RULE,
  'ferry.v1.ScheduleRequestInput.callbacks': CALLBACKS_RULE,
  'ferry.v1.ScheduleRequestInput.queue': QUEUE_RULE,
  'ferry.v1.ScheduleRequestInput.timeout': TIMEOUT_RULE,
  'ferry.v1.ScheduleRequestInput.metadata': METADATA_RULE,

  // A schedule's policy (schedule-policy.ts), and the calls that make requests outside its timing.
  'ferry.v1.CreateScheduleRequest.policy': {},
  'ferry.v1.UpdateScheduleRequest.policy': {},
  'ferry.v1.SchedulePolicy.overlap': { enum: ['allow_all', 'skip', 'buffer_one'] },
  'ferry.v1.SchedulePolicy.max_runs': { minimum: 1 },
  'ferry.v1.SchedulePolicy.jitter_seconds': { minimum: 0, note: 'Shorter than the shortest gap between two occurrences.' },
  'ferry.v1.SchedulePolicy.pause_after_failures': { minimum: 1, maximum: 100 },
  'ferry.v1.TriggerScheduleRequest.schedule_id': {},
  'ferry.v1.TriggerScheduleRequest.idempotency_key': { ...KEY_RULE, required: true },
  'ferry.v1.BackfillScheduleRequest.schedule_id': {},
  'ferry.v1.BackfillScheduleRequest.idempotency_key': { ...KEY_RULE, required: true },
  'ferry.v1.BackfillScheduleRequest.from': { required: true, format: 'date-time' },
  'ferry.v1.BackfillScheduleRequest.to': { required: true, format: 'date-time' },

  ...budgetRules('Queue', 'Queues', 'name', QUEUE_RULE),
  ...budgetRules('FlowKey', 'FlowKeys', 'key', FLOW_KEY_RULE),
  'ferry.v1.RateLimit.limit': { required: true, minimum: BUDGET_RANGES.rateLimit.min, maximum: BUDGET_RANGES.rateLimit.max },
  'ferry.v1.RateLimit.period': {
    required: true,
    pattern: DELAY_PATTERN,
    note: `The pattern checks the spelling; the range, ${formatDuration(BUDGET_RANGES.periodMs.min)} to ${formatDuration(BUDGET_RANGES.periodMs.max)}, is checked beyond it.`,
  },
  'ferry.v1.RateLimit.burst': { minimum: 1, maximum: MAX_BURST },
};
