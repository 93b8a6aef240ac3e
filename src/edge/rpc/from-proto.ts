import { toJson } from '@bufbuild/protobuf';
import { ValueSchema, type Value } from '@bufbuild/protobuf/wkt';
import { JsonText, type CallbacksInput, type CreateInput, type SendInput } from '../../domain/validation/index.js';
import type { SendRequest } from '../../gen/ferry/v1/request_service_pb.js';
import type { BatchItem, Callbacks, RequestInput } from '../../gen/ferry/v1/requests_pb.js';
import { valueText } from '../http/value-text.js';

export function sendInputOf(m: SendRequest): SendInput {
  return {
    url: m.url,
    method: m.method,
    retry: m.retry,
    delay: m.delay,
    deliverAt: m.deliverAt,
    timeout: m.timeout,
    queue: m.queue,
    contentType: m.contentType,
    flowKeys: m.flowKeys,
    callbackOnSuccess: m.callbackOnSuccess,
    callbackOnFailure: m.callbackOnFailure,
    forwardHeaders: Object.entries(m.forwardHeaders),
    body: m.body,
  };
}

/** Create inputs and batch items share their fields, so one mapping serves both. */
export function createInputOf(m: RequestInput | BatchItem | undefined): CreateInput {
  if (m === undefined) return { url: '', headers: {}, metadata: {} };
  return {
    url: m.url,
    method: m.method,
    headers: { ...m.headers },
    body: m.body === undefined ? undefined : bodyOf(m.body),
    delay: m.delay,
    deliverAt: m.deliverAt,
    timeout: m.timeout,
    retry: m.retry === undefined ? undefined : { maxAttempts: m.retry.maxAttempts, backoff: m.retry.backoff },
    queue: m.queue,
    // Left out when none are named, so an input without keys fingerprints as it did before keys existed.
    ...(m.flowKeys.length === 0 ? {} : { flowKeys: [...m.flowKeys] }),
    metadata: { ...m.metadata },
    // Left out when absent, for the same reason.
    ...callbacksInputOf(m.callbacks),
  };
}

/** Callbacks as validation takes them: `{ callbacks }` when the message is present, else nothing. */
export function callbacksInputOf(c: Callbacks | undefined): { callbacks?: CallbacksInput } {
  if (c === undefined) return {};
  return { callbacks: { ...(c.onSuccess !== undefined ? { onSuccess: c.onSuccess } : {}), ...(c.onFailure !== undefined ? { onFailure: c.onFailure } : {}) } };
}

/**
 * A body to deliver: the JSON text the caller wrote when the JSON API kept it (a number that parsing would
 * respell), else the value. gRPC and Connect carry numbers as doubles, so theirs are values.
 */
export function bodyOf(value: Value): unknown {
  const text = valueText(value);
  return text === undefined ? toJson(ValueSchema, value) : new JsonText(text);
}
