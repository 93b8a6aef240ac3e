import { getOption, hasOption, ScalarType } from '@bufbuild/protobuf';
import type { DescField, DescMessage, DescMethod, DescOneof, DescService } from '@bufbuild/protobuf';
import { http } from '../../gen/ferry/v1/http_pb.js';
import { compilePathTemplate, type PathTemplate } from './path-template.js';

/**
 * The body limit of routes that declare none. Such routes ignore their body, but reading it unbounded would let a
 * client keep the connection busy for as long as it likes.
 */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

/** A header bound to a field; `lowerName` is what incoming names are compared with. */
export interface HeaderRoute {
  readonly name: string;
  readonly lowerName: string;
  readonly field: DescField;
  readonly prefix: boolean;
  /** A comma-separated list: repeated lines are joined rather than refused. */
  readonly list: boolean;
}

/** A success status chosen by an enum value of the response. */
export interface StatusOverrideRoute {
  readonly field: DescField;
  readonly value: number;
  readonly status: number;
}

export type BodyRoute =
  | { readonly kind: 'none' }
  | { readonly kind: 'raw'; readonly field: DescField }
  /** `field` undefined means `body: "*"`: the JSON fills the request message minus the `excluded` fields. */
  | { readonly kind: 'json'; readonly field: DescField | undefined; readonly excluded: ReadonlySet<string> };

/** One JSON HTTP route, read from the `(ferry.v1.http)` option of an RPC and checked against its messages. */
export interface Route {
  readonly service: DescService;
  readonly method: DescMethod;
  readonly httpMethod: string;
  readonly template: PathTemplate;
  /** The fields bound by the path captures, in template order. */
  readonly pathFields: readonly DescField[];
  /** Query parameter name → field, in declaration order. */
  readonly queryFields: ReadonlyMap<string, DescField>;
  readonly headers: readonly HeaderRoute[];
  readonly body: BodyRoute;
  readonly maxBodyBytes: number;
  readonly successStatus: number;
  readonly statusOverrides: readonly StatusOverrideRoute[];
  /** The response field that becomes `data`; undefined for the whole response message or a oneof. */
  readonly responseField: DescField | undefined;
  /** The response oneof whose set member becomes `data` (an answer of one of several shapes), when named instead. */
  readonly responseOneof: DescOneof | undefined;
  /** The message field of the response that becomes `meta` when set; undefined for a `meta` that is always null. */
  readonly metaField: DescField | undefined;
  readonly emptyResponse: boolean;
}

const HTTP_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
const TEXT_SCALARS = new Set([
  ScalarType.STRING, ScalarType.BOOL,
  ScalarType.INT32, ScalarType.SINT32, ScalarType.SFIXED32, ScalarType.UINT32, ScalarType.FIXED32,
  ScalarType.INT64, ScalarType.SINT64, ScalarType.SFIXED64, ScalarType.UINT64, ScalarType.FIXED64,
]);

/**
 * Reads the routes of every RPC of a service that declares `(ferry.v1.http)`, in declaration order. A route that
 * contradicts its messages throws here, at start-up, rather than failing on the first call.
 */
export function readRoutes(service: DescService): Route[] {
  return service.methods.filter((m) => hasOption(m, http)).map(readRoute);
}

/** The route of one RPC, or undefined when it declares none. */
export function routeOf(method: DescMethod): Route | undefined {
  return hasOption(method, http) ? readRoute(method) : undefined;
}

function readRoute(method: DescMethod): Route {
  const fail = (why: string): never => {
    throw new Error(`(ferry.v1.http) of ${method.parent.typeName}.${method.name}: ${why}`);
  };
  if (method.methodKind !== 'unary') fail('only unary RPCs can have a JSON route');
  const opt = getOption(method, http);
  if (!HTTP_METHODS.has(opt.method)) fail(`unsupported method "${opt.method}"`);
  let template: PathTemplate;
  try {
    template = compilePathTemplate(opt.path);
  } catch (err) {
    return fail((err as Error).message);
  }
  const input = method.input;
  const bound = new Set<string>();
  const bind = (name: string, where: string): DescField => {
    const field = fieldByName(input, name) ?? fail(`${where} names unknown field "${name}"`);
    if (bound.has(name)) fail(`field "${name}" is bound twice`);
    bound.add(name);
    return field;
  };

  const pathFields = template.params.map((name) => {
    const field = bind(name, 'the path');
    if (!isScalar(field, ScalarType.STRING)) fail(`path field "${name}" must be a singular string`);
    return field;
  });

  const queryFields = new Map<string, DescField>();
  for (const name of opt.query) {
    const field = bind(name, 'query');
    if (field.fieldKind !== 'scalar' || !TEXT_SCALARS.has(field.scalar)) fail(`query field "${name}" must be a singular string, bool or integer`);
    queryFields.set(name, field);
  }

  const headers = opt.headers.map((h): HeaderRoute => {
    const field = bind(h.field, `header "${h.name}"`);
    if (h.name === '') fail('a header binding has no name');
    if (h.prefix && h.list) fail(`header "${h.name}" cannot be both a prefix and a list`);
    const ok = h.prefix
      ? field.fieldKind === 'map' && field.mapKey === ScalarType.STRING && field.mapKind === 'scalar' && field.scalar === ScalarType.STRING
      : isScalar(field, ScalarType.STRING);
    if (!ok) fail(`header field "${h.field}" must be ${h.prefix ? 'a map<string, string>' : 'a singular string'}`);
    return { name: h.name, lowerName: h.name.toLowerCase(), field, prefix: h.prefix, list: h.list };
  });

  let body: BodyRoute = { kind: 'none' };
  if (opt.rawBody !== '' && opt.body !== '') fail('body and raw_body exclude each other');
  if (opt.rawBody !== '') {
    const field = bind(opt.rawBody, 'raw_body');
    if (!isScalar(field, ScalarType.BYTES)) fail(`raw_body field "${opt.rawBody}" must be bytes`);
    body = { kind: 'raw', field };
  } else if (opt.body === '*') {
    body = { kind: 'json', field: undefined, excluded: new Set(bound) };
  } else if (opt.body !== '') {
    const field = bind(opt.body, 'body');
    if (field.fieldKind !== 'message') fail(`body field "${opt.body}" must be a message`);
    body = { kind: 'json', field, excluded: new Set() };
  }

  const output = method.output;
  const responseOneof = output.oneofs.find((o) => o.name === opt.responseBody);
  if (responseOneof !== undefined && responseOneof.fields.some((f) => f.fieldKind !== 'message')) fail(`response_body oneof "${opt.responseBody}" must hold only messages`);
  const responseField = opt.responseBody === '' || responseOneof !== undefined
    ? undefined
    : fieldByName(output, opt.responseBody) ?? fail(`response_body names unknown field "${opt.responseBody}"`);

  const metaField = opt.responseMeta === ''
    ? undefined
    : fieldByName(output, opt.responseMeta) ?? fail(`response_meta names unknown field "${opt.responseMeta}"`);
  if (metaField !== undefined && metaField.fieldKind !== 'message') fail(`response_meta field "${opt.responseMeta}" must be a message`);

  const statusOverrides = opt.statusOverrides.map((o): StatusOverrideRoute => {
    const field = fieldByName(output, o.field) ?? fail(`status override names unknown field "${o.field}"`);
    if (field.fieldKind !== 'enum') return fail(`status override field "${o.field}" must be an enum`);
    const value = field.enum.values.find((v) => v.name === o.value) ?? fail(`enum ${field.enum.typeName} has no value "${o.value}"`);
    return { field, value: value.number, status: checkStatus(o.status, fail) };
  });

  const maxBodyBytes = Number(opt.maxBodyBytes);
  if (maxBodyBytes < 0 || !Number.isSafeInteger(maxBodyBytes)) fail('max_body_bytes is out of range');
  if (opt.emptyResponse && (opt.responseBody !== '' || opt.responseMeta !== '')) fail('empty_response excludes response_body and response_meta');

  return {
    service: method.parent,
    method,
    httpMethod: opt.method,
    template,
    pathFields,
    queryFields,
    headers,
    body,
    maxBodyBytes: maxBodyBytes === 0 ? DEFAULT_MAX_BODY_BYTES : maxBodyBytes,
    successStatus: checkStatus(opt.emptyResponse ? opt.successStatus || 204 : opt.successStatus, fail),
    statusOverrides,
    responseField,
    responseOneof,
    metaField,
    emptyResponse: opt.emptyResponse,
  };
}

function checkStatus(status: number, fail: (why: string) => never): number {
  return status >= 200 && status <= 299 ? status : fail(`success status ${status} is not 2xx`);
}

function fieldByName(message: DescMessage, name: string): DescField | undefined {
  return message.fields.find((f) => f.name === name);
}

function isScalar(field: DescField, scalar: ScalarType): boolean {
  return field.fieldKind === 'scalar' && field.scalar === scalar;
}
