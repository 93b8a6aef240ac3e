import type { DescMessage, DescService } from '@bufbuild/protobuf';
import { FeatureSet_FieldPresence } from '@bufbuild/protobuf/wkt';
import { ERROR_CATALOGUE, type ErrorCode } from '../../../src/domain/errors.js';
import { enumJsonName } from '../../../src/edge/http/enum-names.js';
import { REQUEST_ID_HEADER } from '../../../src/edge/http/envelope.js';
import { readRoutes, type Route } from '../../../src/edge/http/routes.js';
import type { ProtoComments } from './comments.js';
import { type Schema, SchemaSet } from './schemas.js';

/** The error responses every route may give, by the component name of each. */
const ERROR_RESPONSES: Record<string, { status: number | 'default'; applies: (route: Route) => boolean }> = {
  Unauthenticated: { status: 401, applies: () => true },
  NotFound: { status: 404, applies: (r) => r.pathFields.length > 0 },
  // Only calls that create something take an idempotency key, and only they meet its conflicts and the allowance.
  Conflict: { status: 409, applies: takesIdempotencyKey },
  PayloadTooLarge: { status: 413, applies: (r) => r.body.kind !== 'none' },
  UnprocessableContent: { status: 422, applies: () => true },
  TooManyRequests: { status: 429, applies: takesIdempotencyKey },
  ServiceUnavailable: { status: 503, applies: () => true },
  Error: { status: 'default', applies: () => true },
};

function takesIdempotencyKey(route: Route): boolean {
  return route.headers.some((h) => h.lowerName === 'idempotency-key');
}

const ref = (kind: string, name: string): Schema => ({ $ref: `#/components/${kind}/${name}` });

/** Builds the OpenAPI 3.1 document of the JSON HTTP API from the same route reading the gateway does. */
export function buildOpenApi(services: readonly DescService[], comments: ProtoComments): Schema {
  const routes = services.flatMap((s) => readRoutes(s));
  const schemas = new SchemaSet(comments);
  for (const route of routes) {
    const data = route.responseField?.message ?? (route.responseField === undefined ? route.method.output : undefined);
    if (data !== undefined && !route.emptyResponse) schemas.use(data, 'output');
    if (route.metaField?.message !== undefined) schemas.use(route.metaField.message, 'output');
    if (route.body.kind === 'json') schemas.use(route.body.field?.message ?? route.method.input, 'input');
  }

  const paths: Record<string, Record<string, Schema>> = {};
  for (const route of routes) {
    (paths[route.template.source] ??= {})[route.httpMethod.toLowerCase()] = operation(route, schemas, comments);
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Ferry API',
      version: services[0]?.file.proto.package.split('.').at(-1) ?? 'v1',
      description: 'The JSON HTTP API of Ferry, a durable HTTP delivery and scheduling service. Generated from the proto definitions; do not edit by hand.',
    },
    security: [{ bearerAuth: [] }],
    tags: services.map((s) => ({ name: s.name, ...describe(comments.get(s.typeName)) })),
    paths,
    components: {
      schemas: sortKeys({ ...envelopeSchemas(), ...schemas.components() }),
      responses: errorResponses(),
      headers: { [REQUEST_ID_HEADER]: { description: 'The request_id of the envelope, also on responses without a body.', schema: ref('schemas', 'RequestId') } },
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'A project API key; it selects the project every call is scoped to.' } },
    },
  };
}

function operation(route: Route, schemas: SchemaSet, comments: ProtoComments): Schema {
  const { method } = route;
  const comment = comments.get(`${method.parent.typeName}.${method.name}`);
  const notes: string[] = [];
  const parameters: Schema[] = [];
  const param = (where: string, name: string, message: DescMessage, fieldName: string, required: boolean) => {
    const field = message.fields.find((f) => f.name === fieldName)!;
    parameters.push({ name, in: where, required, ...describe(comments.get(`${message.typeName}.${field.name}`)), schema: schemas.field(field, 'input') });
  };
  for (const field of route.pathFields) param('path', field.name, method.input, field.name, true);
  for (const [name, field] of route.queryFields) param('query', name, method.input, field.name, field.presence === FeatureSet_FieldPresence.IMPLICIT);
  for (const h of route.headers) {
    if (h.prefix) notes.push(`Headers named \`${h.name}<name>\` fill \`${h.field.name}\`, keyed by \`<name>\` as spelled. ${comments.get(`${method.input.typeName}.${h.field.name}`) ?? ''}`.trim());
    // OpenAPI describes Content-Type through the request body, never as a parameter.
    else if (h.lowerName !== 'content-type') param('header', h.name, method.input, h.field.name, false);
  }

  const summary = firstSentence(comment) ?? method.name;
  const op: Schema = {
    operationId: method.name,
    summary,
    ...describe([comment === summary ? undefined : comment, ...notes].filter((s) => s !== undefined).join('\n\n')),
    tags: [method.parent.name],
    'x-ferry-rpc': `${method.parent.typeName}.${method.name}`,
  };
  if (parameters.length > 0) op.parameters = parameters;
  if (route.body.kind === 'raw') {
    const text = comments.get(`${method.input.typeName}.${route.body.field.name}`);
    op.requestBody = {
      ...describe(`${text ?? ''} Any Content-Type is accepted; it is forwarded unchanged.`.trim()),
      content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
    };
  } else if (route.body.kind === 'json') {
    const schema = route.body.field === undefined
      ? schemas.named(`${method.name}Body`, method.input, route.body.excluded)
      : schemas.ref(route.body.field.message!, 'input');
    op.requestBody = { required: true, content: { 'application/json': { schema } } };
  }
  if (route.body.kind !== 'none') op['x-ferry-max-body-bytes'] = route.maxBodyBytes;
  op.responses = responses(route, schemas);
  return op;
}

function responses(route: Route, schemas: SchemaSet): Schema {
  const out: Record<string, Schema> = {};
  const headers = { [REQUEST_ID_HEADER]: ref('headers', REQUEST_ID_HEADER) };
  const statuses = [route.successStatus, ...route.statusOverrides.map((o) => o.status)];
  for (const status of [...new Set(statuses)].sort()) {
    const when = route.statusOverrides.filter((o) => o.status === status)
      .map((o) => `\`${o.field.name}\` is \`${enumJsonName(o.field.enum!.values.find((v) => v.number === o.value)!)}\``);
    const description = when.length > 0 ? `Success, when ${when.join(' or ')}.` : 'Success.';
    if (route.emptyResponse) {
      out[String(status)] = { description, headers };
      continue;
    }
    const data = route.responseField === undefined ? schemas.ref(route.method.output, 'output')
      : route.responseField.fieldKind === 'message' ? schemas.ref(route.responseField.message, 'output')
        : schemas.field(route.responseField, 'output');
    const meta: Schema = route.metaField?.message === undefined ? { type: 'null' }
      : { oneOf: [{ type: 'null' }, schemas.ref(route.metaField.message, 'output')] };
    out[String(status)] = { description, headers, content: { 'application/json': { schema: successEnvelope(data, meta) } } };
  }
  for (const [name, { status, applies }] of Object.entries(ERROR_RESPONSES)) {
    if (applies(route)) out[String(status)] = ref('responses', name);
  }
  return out;
}

function successEnvelope(data: Schema, meta: Schema): Schema {
  return {
    type: 'object',
    required: ['success', 'data', 'error', 'meta', 'request_id'],
    properties: { success: { const: true }, data, error: { type: 'null' }, meta, request_id: ref('schemas', 'RequestId') },
    additionalProperties: false,
  };
}

function envelopeSchemas(): Record<string, Schema> {
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

function errorResponses(): Record<string, Schema> {
  const out: Record<string, Schema> = {};
  for (const [name, { status }] of Object.entries(ERROR_RESPONSES)) {
    const codes = (Object.keys(ERROR_CATALOGUE) as ErrorCode[]).filter((c) => ERROR_CATALOGUE[c].status === status);
    const lines = codes.map((c) => `- \`${c}\`: ${ERROR_CATALOGUE[c].summary}`);
    out[name] = {
      description: status === 'default' ? 'Any other failure, such as `INTERNAL`.' : [`Failure with status ${status}; the code is one of:`, ...lines].join('\n'),
      headers: { [REQUEST_ID_HEADER]: ref('headers', REQUEST_ID_HEADER) },
      content: { 'application/json': { schema: ref('schemas', 'ErrorEnvelope') } },
    };
  }
  return out;
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function describe(text: string | undefined): { description?: string } {
  return text === undefined || text === '' ? {} : { description: text };
}

function firstSentence(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const end = text.search(/\.(\s|$)/);
  return end === -1 ? text : text.slice(0, end + 1);
}
