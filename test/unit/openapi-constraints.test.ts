import { describe, expect, it } from 'vitest';
import { FIELD_RULES, type FieldRule } from '../../src/domain/validation/index.js';
import { constrain, MAX_BYTES_KEYWORD, RuleBook, ruleNotes, type Schema } from '../../src/edge/http/openapi/constraints.js';
import { buildOpenApi, firstSentence, withoutSubject } from '../../src/edge/http/openapi/document.js';
import { readRoutes } from '../../src/edge/http/routes.js';
import { RequestService } from '../../src/gen/ferry/v1/request_service_pb.js';
import { ScheduleService } from '../../src/gen/ferry/v1/schedule_service_pb.js';

const services = [RequestService, ScheduleService];

describe('constrain', () => {
  it('states a byte limit of a string as maxLength and as the bytes extension', () => {
    expect(constrain({ type: 'string' }, { minLength: 1, maxBytes: 255 })).toEqual({ type: 'string', minLength: 1, maxLength: 255, [MAX_BYTES_KEYWORD]: 255 });
    expect(constrain({ type: 'string' }, { maxLength: 64, maxBytes: 120 })).toMatchObject({ maxLength: 64, [MAX_BYTES_KEYWORD]: 120 });
  });

  it('gives a map its count, its key rule and its value rule', () => {
    const map = { type: 'object', additionalProperties: { type: 'string' } };
    expect(constrain(map, { maxProperties: 3, maxBytes: 100, keys: { pattern: /^[a-z]+$/ }, values: { maxBytes: 10 } })).toEqual({
      type: 'object',
      maxProperties: 3,
      [MAX_BYTES_KEYWORD]: 100,
      propertyNames: { type: 'string', pattern: '^[a-z]+$' },
      additionalProperties: { type: 'string', maxLength: 10, [MAX_BYTES_KEYWORD]: 10 },
    });
  });

  it('copies ranges, enums and formats, and leaves a rule of presence alone', () => {
    expect(constrain({ type: 'integer' }, { minimum: 60, maximum: 120, multipleOf: 60 })).toEqual({ type: 'integer', minimum: 60, maximum: 120, multipleOf: 60 });
    expect(constrain({ type: 'string' }, { enum: ['a', 'b'], format: 'date-time' })).toEqual({ type: 'string', format: 'date-time', enum: ['a', 'b'] });
    expect(constrain({ $ref: '#/components/schemas/X' }, { required: true })).toEqual({ $ref: '#/components/schemas/X' });
  });

  it('refuses keywords on a message reference, where they would be silently lost', () => {
    expect(() => constrain({ $ref: '#/components/schemas/X' }, { maxLength: 3 })).toThrow(/only make it required/);
  });

  it('says the unit of a byte limit in words', () => {
    expect(ruleNotes({ maxBytes: 5, note: 'Trimmed first.' }, { type: 'string' })).toEqual([
      `At most 5 bytes of UTF-8 (\`${MAX_BYTES_KEYWORD}\`); \`maxLength\` counts characters.`,
      'Trimmed first.',
    ]);
    expect(ruleNotes({ maxBytes: 5 }, {})).toEqual([`At most 5 bytes in all (\`${MAX_BYTES_KEYWORD}\`).`]);
  });
});

describe('RuleBook', () => {
  it('refuses a field without a rule and reports rules nobody asked for', () => {
    const book = new RuleBook({ 'a.B.c': {}, 'a.B.d': { required: true } });
    expect(book.field('a.B.d')).toEqual({ required: true });
    expect(() => book.field('a.B.e')).toThrow(/a\.B\.e has no entry in FIELD_RULES/);
    expect(book.unused()).toEqual(['a.B.c']);
  });

  it('makes the document fail to build when a rule names a field the API does not read', () => {
    expect(() => buildOpenApi(services, new Map(), { ...FIELD_RULES, 'ferry.v1.RequestInput.colour': {} })).toThrow(/ferry\.v1\.RequestInput\.colour/);
  });
});

describe('descriptions from proto comments', () => {
  it('drops the name a comment starts with', () => {
    expect(withoutSubject('SendResponse confirms a quick send.', 'SendResponse')).toBe('Confirms a quick send.');
    expect(withoutSubject('ListRequestsResponse is one page of the list.', 'ListRequestsResponse')).toBe('One page of the list.');
    expect(withoutSubject('Something else.', 'SendResponse')).toBe('Something else.');
  });

  it('takes the first sentence', () => {
    expect(firstSentence('One. Two.')).toBe('One.');
    expect(firstSentence('No stop')).toBe('No stop');
    expect(firstSentence('Version 1.2 here. Next.')).toBe('Version 1.2 here.');
  });
});

/** Where the document states the rule of one field: its schema, and whether the field is marked required. */
interface Placement {
  schema: Schema;
  required: boolean;
}

/** Every place the document shows a field, found by the route reading rather than by the generator's own code. */
function placements(document: Schema): Map<string, Placement[]> {
  const components = (document.components as { schemas: Record<string, Schema> }).schemas;
  const paths = document.paths as Record<string, Record<string, Schema>>;
  const out = new Map<string, Placement[]>();
  const add = (name: string, p: Placement) => out.set(name, [...(out.get(name) ?? []), p]);
  const fromObject = (typeName: string, schema: Schema | undefined) => {
    if (schema === undefined) return;
    const required = (schema.required as string[] | undefined) ?? [];
    add(typeName, { schema, required: false });
    for (const [name, prop] of Object.entries(schema.properties as Record<string, Schema>)) {
      add(`${typeName}.${name}`, { schema: prop, required: required.includes(name) });
    }
  };
  for (const [name, schema] of Object.entries(components)) {
    // A message that travels both ways has its request schema under `<name>Write`; `<name>` is the response one.
    if (components[`${name}Write`] !== undefined) continue;
    const message = name.endsWith('Write') ? name.slice(0, -'Write'.length) : name;
    if (schema.type === 'object') fromObject(`ferry.v1.${message}`, schema);
  }
  for (const route of services.flatMap((s) => readRoutes(s))) {
    const op = paths[route.template.source]![route.httpMethod.toLowerCase()]!;
    const input = route.method.input.typeName;
    for (const p of (op.parameters as Schema[] | undefined) ?? []) {
      const field = route.headers.find((h) => h.name === p.name)?.field.name ?? (p.name as string);
      add(`${input}.${field}`, { schema: p.schema as Schema, required: p.required === true });
    }
    if (route.body.kind === 'json' && route.body.field === undefined) fromObject(input, components[`${route.method.name}Body`]);
    if (route.body.kind === 'json' && route.body.field !== undefined) {
      add(`${input}.${route.body.field.name}`, { schema: {}, required: (op.requestBody as Schema).required === true });
    }
    if (route.body.kind === 'raw') {
      const body = op.requestBody as Schema;
      add(`${input}.${route.body.field.name}`, { schema: { [MAX_BYTES_KEYWORD]: op['x-ferry-max-body-bytes'] }, required: false });
      if (body['x-ferry-content-type'] !== undefined) add(`${input}.content_type`, { schema: body['x-ferry-content-type'] as Schema, required: false });
    }
    const forward = op['x-ferry-forward-headers'] as { schema: Schema } | undefined;
    const prefix = route.headers.find((h) => h.prefix);
    if (forward !== undefined && prefix !== undefined) add(`${input}.${prefix.field.name}`, { schema: forward.schema, required: false });
  }
  return out;
}

/** The keywords a rule must show up as, worked out here independently of the generator. */
function expected(rule: FieldRule, stringLike: boolean): Schema {
  const out: Schema = {};
  const put = (k: string, v: unknown) => v !== undefined && (out[k] = v);
  put('minimum', rule.minimum);
  put('maximum', rule.maximum);
  put('multipleOf', rule.multipleOf);
  put('minLength', rule.minLength);
  put('maxLength', stringLike && rule.maxBytes !== undefined ? Math.min(rule.maxLength ?? Infinity, rule.maxBytes) : rule.maxLength);
  put(MAX_BYTES_KEYWORD, rule.maxBytes);
  put('pattern', rule.pattern?.source);
  put('enum', rule.enum && [...rule.enum]);
  put('format', rule.format);
  put('minItems', rule.minItems);
  put('maxItems', rule.maxItems);
  put('minProperties', rule.minProperties);
  put('maxProperties', rule.maxProperties);
  if (rule.keys) out.propertyNames = expect.objectContaining(expected(rule.keys, true));
  if (rule.values) out.additionalProperties = expect.objectContaining(expected(rule.values, true));
  return out;
}

describe('the OpenAPI document', () => {
  const document = buildOpenApi(services, new Map());
  const found = placements(document);

  it.each(Object.entries(FIELD_RULES))('states the rule of %s wherever the field appears', (name, rule) => {
    const places = found.get(name) ?? [];
    expect(places.length, `${name} does not appear in the document`).toBeGreaterThan(0);
    for (const { schema, required } of places) {
      const stringLike = schema.type === 'string';
      expect(schema).toMatchObject(expected(rule, stringLike));
      if (rule.required) expect(required, `${name} is not required in the document`).toBe(true);
    }
  });
});
