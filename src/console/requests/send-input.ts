import type { RequestInput } from '../../../sdk/src/types.js';
import { readUtcField } from '../ui/utc-field.js';

/** The send form as typed: every field a string, as its input holds it. */
export interface SendDraft {
  url: string;
  method: string;
  headers: string;
  body: string;
  when: 'now' | 'delay' | 'at';
  delay: string;
  deliverAt: string;
  maxAttempts: string;
  timeout: string;
  metadata: string;
  idempotencyKey: string;
  /** Comma-separated, as the `Flow-Keys` header of `/send` takes them. */
  flowKeys: string;
}

/** The form's fields, named as the API names the input (`field` of a 422) by its first segment. */
export type SendField = 'url' | 'method' | 'headers' | 'body' | 'delay' | 'deliver_at' | 'retry' | 'timeout' | 'metadata' | 'idempotency_key' | 'flow_keys';

export const EMPTY_DRAFT: SendDraft = {
  url: '',
  method: 'POST',
  headers: '',
  body: '',
  when: 'now',
  delay: '',
  deliverAt: '',
  maxAttempts: '',
  timeout: '',
  metadata: '',
  idempotencyKey: '',
  flowKeys: '',
};

export type Built = { ok: true; input: RequestInput } | { ok: false; field: SendField; message: string };

/**
 * The form as a `POST /requests` input. Only what cannot be sent at all is refused here (a header line without a
 * colon, a body or metadata that is not JSON, a delivery time that is not a UTC time); every rule of the API
 * itself is left to the API, whose 422 is shown next to the field it names.
 */
export function buildInput(draft: SendDraft): Built {
  const input: RequestInput = { url: draft.url.trim() };
  if (draft.method !== '') input.method = draft.method as RequestInput['method'];

  const headers: Record<string, string> = {};
  const lines = draft.headers.split(/\r?\n/);
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    const colon = line.indexOf(':');
    if (colon <= 0) return { ok: false, field: 'headers', message: `Line ${index + 1} is not "Name: value".` };
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  if (Object.keys(headers).length > 0) input.headers = headers;

  if (draft.body.trim() !== '') {
    try {
      input.body = JSON.parse(draft.body) as unknown;
    } catch {
      return { ok: false, field: 'body', message: 'The body is not JSON. Ferry delivers it as application/json; quote plain text ("like this").' };
    }
  }

  if (draft.when === 'delay' && draft.delay.trim() !== '') input.delay = draft.delay.trim();
  if (draft.when === 'at') {
    const at = readUtcField(draft.deliverAt);
    if (!at.ok) return { ok: false, field: 'deliver_at', message: at.message };
    if (at.rfc3339 !== '') input.deliver_at = at.rfc3339;
  }
  if (draft.maxAttempts.trim() !== '') input.retry = { max_attempts: Number(draft.maxAttempts) };
  if (draft.timeout.trim() !== '') input.timeout = draft.timeout.trim();
  const flowKeys = flowKeysOf(draft.flowKeys);
  if (flowKeys.length > 0) input.flow_keys = flowKeys;

  if (draft.metadata.trim() !== '') {
    let metadata: unknown;
    try {
      metadata = JSON.parse(draft.metadata);
    } catch {
      return { ok: false, field: 'metadata', message: 'The metadata is not JSON: give an object of strings, such as {"order": "42"}.' };
    }
    input.metadata = metadata as Record<string, string>;
  }
  return { ok: true, input };
}

/**
 * Flow keys typed as the `Flow-Keys` header takes them: separated by commas, spaces around each trimmed. Empty text
 * is no keys; anything else goes to the API as typed (an empty key between two commas, a key named twice), for
 * its 422 to name the key at fault.
 */
export function flowKeysOf(text: string): string[] {
  if (text.trim() === '') return [];
  return text.split(',').map((key) => key.trim());
}

/** The form field a 422's `field` points at: `headers.X-Id` → headers, `retry.max_attempts` → retry, `flow_keys[1]` → flow_keys. */
export function formFieldOf(apiField: string | null): SendField | null {
  if (apiField === null) return null;
  const first = apiField.split(/[.[]/, 1)[0]?.toLowerCase() ?? '';
  if (first === 'idempotency-key' || first === 'idempotency_key') return 'idempotency_key';
  const known: readonly string[] = ['url', 'method', 'headers', 'body', 'delay', 'deliver_at', 'retry', 'timeout', 'metadata', 'flow_keys'];
  return known.includes(first) ? (first as SendField) : null;
}
