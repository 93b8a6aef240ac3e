import { getOption, type DescMessage } from '@bufbuild/protobuf';
import { FeatureSet_FieldPresence } from '@bufbuild/protobuf/wkt';
import { describe, expect, it } from 'vitest';
import type { FerryError } from '../../src/domain/errors.js';
import { FIELD_RULES, TIMING_TYPES, validateTiming, type FieldRule } from '../../src/domain/validation/index.js';
import { constrain, MAX_BYTES_KEYWORD, RuleBook, ruleNotes, type Schema } from '../../src/edge/http/openapi/constraints.js';
import { buildOpenApi, firstSentence, withoutSubject } from '../../src/edge/http/openapi/document.js';
import { readRoutes } from '../../src/edge/http/routes.js';
import { BudgetService } from '../../src/gen/ferry/v1/budget_service_pb.js';
import { BulkActionService } from '../../src/gen/ferry/v1/bulk_action_service_pb.js';
import { always_set } from '../../src/gen/ferry/v1/http_pb.js';
import { RequestService } from '../../src/gen/ferry/v1/request_service_pb.js';
import { ScheduleService } from '../../src/gen/ferry/v1/schedule_service_pb.js';

const services = [RequestService, ScheduleService, BudgetService, BulkActionService];

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

  it('gives a list its count, uniqueness and item rule', () => {
    const list = { type: 'array', items: { type: 'string' } };
    expect(constrain(list, { maxItems: 4, uniqueItems: true, items: { pattern: /^[a-z]+$/ } })).toEqual({
      type: 'array',
      maxItems: 4,
      uniqueItems: true,
      items: { type: 'string', pattern: '^[a-z]+$' },
    });
    expect(() => constrain({ type: 'string' }, { items: {} })).toThrow(/needs a list/);
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
      // A member another shape of a message with variants takes: only null here, so no rule of it applies.
      if (prop.type === 'null') continue;
      add(`${typeName}.${name}`, { schema: prop, required: required.includes(name) });
    }
  };
  // A message with variants is a `oneOf` of one schema per shape; each shape shows fields of that message.
  const unionOf = new Map<string, string>();
  for (const [name, schema] of Object.entries(components)) {
    for (const variant of (schema.oneOf as Schema[] | undefined) ?? []) unionOf.set(String(variant.$ref).split('/').at(-1)!, name);
  }
  for (const [name, schema] of Object.entries(components)) {
    const owner = unionOf.get(name) ?? name;
    // A message that travels both ways has its request schema under `<name>Write`; `<name>` is the response one.
    if (components[`${owner}Write`] !== undefined) continue;
    const message = owner.endsWith('Write') ? owner.slice(0, -'Write'.length) : owner;
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
  put('uniqueItems', rule.uniqueItems);
  put('minProperties', rule.minProperties);
  put('maxProperties', rule.maxProperties);
  if (rule.items) out.items = expect.objectContaining(expected(rule.items, true));
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
      if (schema.const !== undefined) {
        // The field that tells variants apart: one value of its enum in each shape.
        const { enum: values, ...rest } = expected(rule, stringLike);
        expect(values).toContain(schema.const);
        expect(schema).toMatchObject(rest);
      } else {
        expect(schema).toMatchObject(expected(rule, stringLike));
      }
      if (rule.required) expect(required, `${name} is not required in the document`).toBe(true);
    }
  });
});

/** True when a response schema lets the value be null. */
function admitsNull(schema: Schema): boolean {
  const type = schema.type;
  // Any JSON value (google.protobuf.Value), null among them.
  if (type === undefined && schema.$ref === undefined && schema.oneOf === undefined && schema.const === undefined) return true;
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
  return ((schema.oneOf as Schema[] | undefined) ?? []).some(admitsNull);
}

/** Every message a response of the services carries, found through the fields of their outputs. */
function responseMessages(): DescMessage[] {
  const seen = new Map<string, DescMessage>();
  const visit = (message: DescMessage) => {
    if (message.typeName.startsWith('google.') || seen.has(message.typeName)) return;
    seen.set(message.typeName, message);
    for (const field of message.fields) if (field.message !== undefined) visit(field.message);
  };
  for (const service of services) for (const method of service.methods) visit(method.output);
  return [...seen.values()];
}

describe('response schemas', () => {
  const components = (buildOpenApi(services, new Map()).components as { schemas: Record<string, Schema> }).schemas;

  it('allow null exactly where the writer may write it, and never for a field the proto marks always set', () => {
    const checked: string[] = [];
    for (const message of responseMessages()) {
      const schema = components[message.name];
      if (schema?.type !== 'object') continue;
      for (const field of message.fields) {
        const property = (schema.properties as Record<string, Schema>)[field.name]!;
        const unsetWritesNull = field.fieldKind === 'message' || field.fieldKind === 'enum'
          || (field.fieldKind === 'scalar' && field.presence !== FeatureSet_FieldPresence.IMPLICIT);
        const alwaysSet = getOption(field, always_set);
        expect(admitsNull(property), `${message.name}.${field.name}`).toBe(unsetWritesNull && !alwaysSet);
        if (alwaysSet) checked.push(`${message.name}.${field.name}`);
      }
    }
    // The fields a client reads without a null check, as the issue that introduced the option listed them.
    expect(checked).toEqual(expect.arrayContaining([
      'Acceptance.status', 'Acceptance.created_at', 'RequestSummary.status', 'RequestSummary.created_at',
      'Attempt.status', 'Attempt.started_at', 'Attempt.completed_at', 'Request.created_at', 'Request.updated_at',
      'ScheduleSummary.timing', 'ScheduleSummary.status', 'ScheduleSummary.created_at', 'ScheduleSummary.updated_at',
      'Schedule.timing', 'Schedule.request',
    ]));
  });

  it('give a timing read back one shape per type: its own members set, the other type\'s null', () => {
    expect(components.Timing).toMatchObject({ discriminator: { propertyName: 'type' } });
    const cron = components.CronTiming!.properties as Record<string, Schema>;
    const interval = components.IntervalTiming!.properties as Record<string, Schema>;
    expect([cron.type!.const, admitsNull(cron.expression!), admitsNull(cron.timezone!), cron.every_seconds!.type, admitsNull(cron.starts_at!), admitsNull(cron.ends_at!)])
      .toEqual(['cron', false, false, 'null', true, true]);
    expect(cron.dst!.oneOf).toEqual([expect.objectContaining({ $ref: '#/components/schemas/DstPolicy' }), { type: 'null' }]);
    expect([interval.type!.const, interval.expression!.type, interval.timezone!.type, admitsNull(interval.every_seconds!), admitsNull(interval.starts_at!)])
      .toEqual(['interval', 'null', 'null', false, true]);
    expect([interval.dst!.type, admitsNull(interval.ends_at!)]).toEqual(['null', true]);
  });
});

describe('the timing shapes of the document and validation', () => {
  const components = (buildOpenApi(services, new Map()).components as { schemas: Record<string, Schema> }).schemas;
  const union = components.TimingWrite!;
  const shapes = (union.oneOf as Schema[]).map((v) => components[String(v.$ref).split('/').at(-1)!]!);
  const members = [...new Set(shapes.flatMap((s) => Object.keys(s.properties as Schema)))].filter((m) => m !== 'type');
  const NOW = Date.parse('2030-01-01T00:00:00Z');
  // A valid value of each member, whichever shape takes it.
  const SAMPLE: Record<string, unknown> = {
    expression: '0 9 * * 1',
    timezone: 'Europe/Berlin',
    every_seconds: 3600,
    starts_at: '2030-01-02T00:00:00Z',
    ends_at: '2030-03-01T00:00:00Z',
    dst: { gap: 'skip', overlap: 'both' },
  };
  const camel = (name: string) => name.replace(/_(\w)/g, (_, c: string) => c.toUpperCase());
  const input = (json: Record<string, unknown>) => Object.fromEntries(Object.entries(json).map(([k, v]) => [camel(k), v]));
  const refusal = (json: Record<string, unknown>) => {
    try {
      validateTiming(input(json), { now: NOW, creating: true });
      return null;
    } catch (error) {
      return [(error as FerryError).code, (error as FerryError).field];
    }
  };

  it('has one shape per timing type', () => {
    expect(shapes.map((s) => (s.properties as Record<string, Schema>).type!.const)).toEqual([...TIMING_TYPES]);
    expect(members.sort()).toEqual(['dst', 'ends_at', 'every_seconds', 'expression', 'starts_at', 'timezone']);
  });

  it.each(TIMING_TYPES)('%s: validation accepts what the shape takes, misses what it requires and refuses what it does not take', (type) => {
    const shape = shapes.find((s) => (s.properties as Record<string, Schema>).type!.const === type)!;
    const properties = shape.properties as Record<string, Schema>;
    const takes = members.filter((m) => properties[m]!.type !== 'null');
    const whole: Record<string, unknown> = { type, ...Object.fromEntries(takes.map((m) => [m, SAMPLE[m]])) };
    expect(refusal(whole)).toBeNull();
    for (const member of takes) {
      const { [member]: _dropped, ...without } = whole;
      const required = (shape.required as string[]).includes(member);
      expect(refusal(without), `${type} without ${member}`).toEqual(required ? ['MISSING_FIELD', `timing.${member}`] : null);
    }
    for (const member of members.filter((m) => !takes.includes(m))) {
      expect(refusal({ ...whole, [member]: SAMPLE[member] }), `${type} with ${member}`).toEqual(['INVALID_TIMING', `timing.${member}`]);
    }
    // Where the document lets a member be null (as a timing reads back), validation takes it as absent.
    for (const member of members.filter((m) => admitsNull(properties[m]!))) {
      expect(refusal({ ...whole, [member]: null }), `${type} with ${member} null`).toBeNull();
    }
  });
});
