import type { DescField, DescService } from '@bufbuild/protobuf';
import { FeatureSet_FieldPresence } from '@bufbuild/protobuf/wkt';
import { CONFIG_VARIABLES } from '../../../config/variables.js';
import { FIELD_RULES } from '../../../domain/validation/index.js';
import { enumJsonName } from '../enum-names.js';
import { REQUEST_ID_HEADER } from '../envelope.js';
import { readRoutes, type Route } from '../routes.js';
import type { ProtoComments } from './comments.js';
import { describeWith, RuleBook } from './constraints.js';
import { envelopeSchemas, ERROR_RESPONSES, errorResponses, ref, successEnvelope, unroutedResponses } from './responses.js';
import { type Schema, SchemaSet } from './schemas.js';

/** Builds the OpenAPI 3.1 document of the JSON HTTP API from the same route reading the gateway does. */
export function buildOpenApi(services: readonly DescService[], comments: ProtoComments, rules = FIELD_RULES): Schema {
  const routes = services.flatMap((s) => readRoutes(s));
  const book = new RuleBook(rules);
  const schemas = new SchemaSet(comments, book);
  for (const route of routes) {
    const data = route.responseField?.message ?? (route.responseField === undefined ? route.method.output : undefined);
    if (data !== undefined && !route.emptyResponse && route.responseOneof === undefined) schemas.use(data, 'output');
    for (const member of route.responseOneof?.fields ?? []) if (member.message !== undefined) schemas.use(member.message, 'output');
    if (route.metaField?.message !== undefined) schemas.use(route.metaField.message, 'output');
    if (route.body.kind === 'json') schemas.use(route.body.field?.message ?? route.method.input, 'input');
  }

  const paths: Record<string, Record<string, Schema>> = {};
  for (const route of routes) {
    (paths[route.template.source] ??= {})[route.httpMethod.toLowerCase()] = operation(route, schemas, comments);
  }
  const unused = book.unused();
  if (unused.length > 0) throw new Error(`FIELD_RULES names fields the API does not read: ${unused.join(', ')}`);

  return {
    openapi: '3.1.0',
    info: {
      title: 'Ferry API',
      version: services[0]?.file.proto.package.split('.').at(-1) ?? 'v1',
      description: 'The JSON HTTP API of Ferry, a durable HTTP delivery and scheduling service. Generated from the proto definitions; do not edit by hand.',
      license: { name: 'Apache 2.0', identifier: 'Apache-2.0' },
    },
    servers: servers(),
    security: [{ bearerAuth: [] }],
    tags: services.map((s) => ({ name: s.name, ...describeWith(comments.get(s.typeName), []) })),
    paths,
    'x-ferry-unrouted-responses': unroutedResponses(),
    components: {
      schemas: sortKeys({ ...envelopeSchemas(), ...schemas.components() }),
      responses: errorResponses(),
      headers: { [REQUEST_ID_HEADER]: { description: 'The request_id of the envelope, also on responses without a body.', required: true, schema: ref('schemas', 'RequestId') } },
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'A project API key; it selects the project every call is scoped to.' } },
    },
  };
}

/** The embedded default as `ferry serve` starts it (FERRY_HOST and FERRY_HTTP_PORT unset), and any deployment. */
function servers(): Schema[] {
  const fallback = (name: string) => String(CONFIG_VARIABLES.find((v) => v.name === name)?.fallback);
  const local = `http://${fallback('FERRY_HOST')}:${fallback('FERRY_HTTP_PORT')}`;
  return [
    { url: local, description: '`ferry serve` on this machine with the embedded backend and the default FERRY_HOST and FERRY_HTTP_PORT.' },
    {
      url: '{baseUrl}',
      description: 'A deployment of Ferry, at the base URL its operators publish.',
      variables: { baseUrl: { default: local, description: 'Scheme, host and port of the deployment, without a trailing slash.' } },
    },
  ];
}

function operation(route: Route, schemas: SchemaSet, comments: ProtoComments): Schema {
  const { method } = route;
  const comment = comments.get(`${method.parent.typeName}.${method.name}`);
  const notes: string[] = [];
  const parameters: Schema[] = [];
  const param = (where: string, name: string, field: DescField) => {
    const { schema, required } = schemas.inputField(field);
    const { description, ...rest } = schema;
    const implicit = field.presence === FeatureSet_FieldPresence.IMPLICIT && where !== 'header';
    parameters.push({ name, in: where, required: where === 'path' || implicit || required, ...(description === undefined ? {} : { description }), schema: rest });
  };
  for (const field of route.pathFields) param('path', field.name, field);
  for (const [name, field] of route.queryFields) param('query', name, field);
  const extensions: Schema = {};
  for (const h of route.headers) {
    if (h.prefix) {
      // OpenAPI has no parameter for a family of header names: the rule goes in words and as an extension.
      const { schema } = schemas.inputField(h.field);
      const count = `At most ${String(schema.maxProperties)} such headers.`;
      notes.push(`Headers named \`${h.name}<name>\` fill \`${h.field.name}\`, keyed by \`<name>\` as spelled. ${String(schema.description ?? '')} ${count}`);
      extensions['x-ferry-forward-headers'] = { prefix: h.name, schema: withoutDescription(schema) };
    } else if (h.lowerName === 'content-type') {
      // OpenAPI describes Content-Type through the request body, never as a parameter.
      extensions['x-ferry-content-type'] = schemas.inputField(h.field).schema;
    } else {
      param('header', h.name, h.field);
    }
  }

  const summary = firstSentence(comment) ?? method.name;
  const op: Schema = {
    operationId: method.name,
    summary,
    ...describeWith([comment === summary ? undefined : comment, ...notes].filter((s) => s !== undefined).join('\n\n'), []),
    tags: [method.parent.name],
    'x-ferry-rpc': `${method.parent.typeName}.${method.name}`,
  };
  if (parameters.length > 0) op.parameters = parameters;
  if (route.body.kind === 'raw') {
    const limit = schemas.rule(route.body.field).maxBytes;
    if (limit !== undefined && limit !== route.maxBodyBytes) {
      throw new Error(`${method.name}: the route reads ${route.maxBodyBytes} body bytes, validation allows ${limit}`);
    }
    const text = comments.get(`${method.input.typeName}.${route.body.field.name}`);
    const contentType = extensions['x-ferry-content-type'] as Schema | undefined;
    const typeNote = contentType === undefined ? '' : ` A Content-Type header is at most ${String(contentType.maxLength)} bytes.`;
    op.requestBody = {
      ...describeWith(`${text ?? ''} Any Content-Type is accepted; it is forwarded unchanged.${typeNote}`.trim(), []),
      content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
      ...(contentType === undefined ? {} : { 'x-ferry-content-type': withoutDescription(contentType) }),
    };
  } else if (route.body.kind === 'json') {
    let schema: Schema;
    if (route.body.field === undefined) {
      schema = schemas.named(`${method.name}Body`, method.input, route.body.excluded);
    } else {
      schemas.inputField(route.body.field);
      schema = schemas.ref(route.body.field.message!, 'input');
    }
    op.requestBody = { required: true, content: { 'application/json': { schema } } };
  }
  if (route.body.kind !== 'none') op['x-ferry-max-body-bytes'] = route.maxBodyBytes;
  if (extensions['x-ferry-forward-headers'] !== undefined) op['x-ferry-forward-headers'] = extensions['x-ferry-forward-headers'];
  op.responses = responses(route, schemas, comments);
  return op;
}

function withoutDescription(schema: Schema): Schema {
  const { description: _description, ...rest } = schema;
  return rest;
}

function responses(route: Route, schemas: SchemaSet, comments: ProtoComments): Schema {
  const out: Record<string, Schema> = {};
  const headers = { [REQUEST_ID_HEADER]: ref('headers', REQUEST_ID_HEADER) };
  const statuses = [route.successStatus, ...route.statusOverrides.map((o) => o.status)];
  const what = successText(route, comments);
  for (const status of [...new Set(statuses)].sort()) {
    const when = route.statusOverrides.filter((o) => o.status === status)
      .map((o) => `\`${o.field.name}\` is \`${enumJsonName(o.field.enum!.values.find((v) => v.number === o.value)!)}\``);
    const others = route.statusOverrides.filter((o) => o.status !== status).length > 0 && when.length === 0;
    const description = when.length > 0 ? `${what.slice(0, -1)}, when ${when.join(' or ')}.` : others ? `${what.slice(0, -1)}, in every other case.` : what;
    if (route.emptyResponse) {
      out[String(status)] = { description, headers };
      continue;
    }
    const data = route.responseOneof !== undefined ? { oneOf: route.responseOneof.fields.map((f) => schemas.ref(f.message!, 'output')) }
      : route.responseField === undefined ? schemas.ref(route.method.output, 'output')
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

/**
 * What a success answers, from the comment of the response message (`SendResponse confirms a quick send.` gives
 * `Confirms a quick send.`), or of the RPC when the answer has no body.
 */
export function successText(route: Route, comments: ProtoComments): string {
  const [name, comment] = route.emptyResponse
    ? [route.method.name, comments.get(`${route.method.parent.typeName}.${route.method.name}`)]
    : [route.method.output.name, comments.get(route.method.output.typeName)];
  return firstSentence(withoutSubject(comment, name)) ?? 'Success.';
}

/** A comment that starts with the name it documents, as proto comments do, minus that name and capitalised. */
export function withoutSubject(comment: string | undefined, name: string): string | undefined {
  if (comment === undefined || !comment.startsWith(`${name} `)) return comment;
  // `ListRequestsResponse is one page of …` reads `One page of …`.
  const rest = comment.slice(name.length + 1).replace(/^is /, '');
  return rest.charAt(0).toUpperCase() + rest.slice(1);
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

export function firstSentence(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const end = text.search(/\.(\s|$)/);
  return end === -1 ? text : text.slice(0, end + 1);
}
