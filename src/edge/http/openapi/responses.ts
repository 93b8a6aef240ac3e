import { ERROR_CATALOGUE, type ErrorCode } from '../../../domain/errors.js';
import { REQUEST_ID_HEADER } from '../envelope.js';
import type { Route } from '../routes.js';
import type { Schema } from './constraints.js';

export const ref = (kind: string, name: string): Schema => ({ $ref: `#/components/${kind}/${name}` });

// Calls refused for the state of what they act on: cancel of a completed request. (Replay of an active one also
// conflicts, and takes an idempotency key anyway.)
const STATEFUL_RPCS = new Set(['ferry.v1.RequestService.CancelRequest']);

function takesIdempotencyKey(route: Route): boolean {
  return route.headers.some((h) => h.lowerName === 'idempotency-key');
}

/** How long to wait before calling again, on the refusals that know it. */
const RETRY_AFTER: Record<string, Schema> = {
  'Retry-After': {
    description:
      'Whole seconds to wait before trying again, when the refusal knows: to the start of the next UTC month for ' +
      '`MONTHLY_ALLOWANCE_EXCEEDED`, 1 for `SHUTTING_DOWN`.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
};

interface ErrorResponseSpec {
  readonly status: number | 'default';
  readonly applies: (route: Route) => boolean;
  readonly headers?: Record<string, Schema>;
}

/** The error responses of the routes, by the component name of each, with the routes each applies to. */
export const ERROR_RESPONSES: Record<string, ErrorResponseSpec> = {
  // Refused by the HTTP server before any route: a request it cannot parse, or headers over its limit.
  BadRequest: { status: 400, applies: () => true },
  Unauthenticated: { status: 401, applies: () => true },
  NotFound: { status: 404, applies: (r) => r.pathFields.length > 0 },
  RequestTimeout: { status: 408, applies: () => true },
  // Only calls that create something take an idempotency key, and only they meet its conflicts and the allowance.
  Conflict: { status: 409, applies: (r) => takesIdempotencyKey(r) || STATEFUL_RPCS.has(`${r.method.parent.typeName}.${r.method.name}`) },
  PayloadTooLarge: { status: 413, applies: (r) => r.body.kind !== 'none' },
  UnsupportedMediaType: { status: 415, applies: (r) => r.body.kind !== 'none' },
  UnprocessableContent: { status: 422, applies: () => true },
  TooManyRequests: { status: 429, applies: takesIdempotencyKey, headers: RETRY_AFTER },
  RequestHeaderFieldsTooLarge: { status: 431, applies: () => true },
  ServiceUnavailable: { status: 503, applies: () => true, headers: RETRY_AFTER },
  Error: { status: 'default', applies: () => true },
};

function errorResponse(status: number | 'default', headers: Record<string, Schema> = {}): Schema {
  const codes = (Object.keys(ERROR_CATALOGUE) as ErrorCode[]).filter((c) => ERROR_CATALOGUE[c].status === status);
  const lines = codes.map((c) => `- \`${c}\`: ${ERROR_CATALOGUE[c].summary}`);
  return {
    description: status === 'default' ? 'Any other failure, such as `INTERNAL`.' : [`Failure with status ${status}; the code is one of:`, ...lines].join('\n'),
    headers: { [REQUEST_ID_HEADER]: ref('headers', REQUEST_ID_HEADER), ...headers },
    content: { 'application/json': { schema: ref('schemas', 'ErrorEnvelope') } },
  };
}

export function errorResponses(): Record<string, Schema> {
  return Object.fromEntries(Object.entries(ERROR_RESPONSES).map(([name, { status, headers }]) => [name, errorResponse(status, headers)]));
}

/**
 * The answers to a method and path that match no operation, by status, which no operation can list:
 * ROUTE_NOT_FOUND comes as `NotFound`, METHOD_NOT_ALLOWED with the methods the path has in `Allow`.
 */
export function unroutedResponses(): Schema {
  return {
    404: ref('responses', 'NotFound'),
    405: errorResponse(405, { Allow: { description: 'The methods the path takes, comma-separated.', required: true, schema: { type: 'string' } } }),
  };
}

export function successEnvelope(data: Schema, meta: Schema): Schema {
  return {
    type: 'object',
    required: ['success', 'data', 'error', 'meta', 'request_id'],
    properties: { success: { const: true }, data, error: { type: 'null' }, meta, request_id: ref('schemas', 'RequestId') },
    additionalProperties: false,
  };
}

export function envelopeSchemas(): Record<string, Schema> {
  return {
    ErrorEnvelope: {
      type: 'object',
      description: 'The envelope of every failed call.',
      required: ['success', 'data', 'error', 'meta', 'request_id'],
      properties: { success: { const: false }, data: { type: 'null' }, error: ref('schemas', 'Error'), meta: { type: 'null' }, request_id: ref('schemas', 'RequestId') },
      additionalProperties: false,
    },
    Error: {
      type: 'object',
      description: 'What went wrong, from the error catalogue.',
      required: ['code', 'message', 'field'],
      properties: {
        code: { type: 'string', description: 'The stable machine-readable code.', enum: Object.keys(ERROR_CATALOGUE) },
        message: { type: 'string', description: 'A human-readable explanation; not stable.' },
        field: { type: ['string', 'null'], description: 'The input field at fault as a JSON path such as `requests[2].url`, or null.' },
      },
      additionalProperties: false,
    },
    RequestId: { type: 'string', format: 'uuid', description: 'Identifies the API call; quote it to support. Not a resource ID.' },
  };
}
