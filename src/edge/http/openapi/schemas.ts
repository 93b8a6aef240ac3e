import { getOption, ScalarType } from '@bufbuild/protobuf';
import type { DescEnum, DescField, DescMessage } from '@bufbuild/protobuf';
import type { FieldRule } from '../../../domain/validation/index.js';
import { FeatureSet_FieldPresence } from '@bufbuild/protobuf/wkt';
import { always_set } from '../../../gen/ferry/v1/http_pb.js';
import { enumJsonNames } from '../enum-names.js';
import type { ProtoComments } from './comments.js';
import { constrain, describeWith, ruleNotes, type RuleBook, type Schema } from './constraints.js';

export type { Schema } from './constraints.js';

type Variants = NonNullable<FieldRule['variants']>;
type VariantShape = Variants['shapes'][string];

/** Which way a message travels: requests accept absent fields, responses always carry every field. */
export type Direction = 'input' | 'output';

const WKT_INPUT: Record<string, Schema> = {
  'google.protobuf.Timestamp': { type: 'string', format: 'date-time' },
  'google.protobuf.Value': {},
  'google.protobuf.Struct': { type: 'object' },
  'google.protobuf.ListValue': { type: 'array' },
};

const WKT_OUTPUT: Record<string, Schema> = {
  'google.protobuf.Timestamp': { type: ['string', 'null'], format: 'date-time' },
  // Any JSON value, null included, so there is nothing to add for an unset field.
  'google.protobuf.Value': {},
  'google.protobuf.Struct': { type: ['object', 'null'] },
  'google.protobuf.ListValue': { type: ['array', 'null'] },
};

/**
 * Component schemas mirroring the gateway's JSON reader and writer. Response schemas list every field as
 * required, and nullable where the writer may emit null: everywhere it can, except fields marked
 * `(ferry.v1.always_set)` in the proto. Request schemas carry the rules validation applies (required fields,
 * ranges, lengths, patterns, enums), from the validation module's table. A message whose rule has `variants`
 * becomes a `oneOf` of one schema per shape, with a discriminator, both ways.
 *
 * A message used both ways gets two schemas: the response one keeps the message name, the request one is
 * suffixed `Write`. Call `use` for every root before asking for names, so names do not depend on call order.
 */
export class SchemaSet {
  private readonly used = { input: new Set<string>(), output: new Set<string>() };
  private readonly schemas = new Map<string, Schema>();

  constructor(
    private readonly comments: ProtoComments,
    private readonly rules: RuleBook,
  ) {}

  /** Records that `message` and every message under it travel in `direction`. */
  use(message: DescMessage, direction: Direction): void {
    if (message.typeName in WKT_INPUT || this.used[direction].has(message.typeName)) return;
    this.used[direction].add(message.typeName);
    for (const field of message.fields) if (field.message !== undefined) this.use(field.message, direction);
  }

  /** A reference to the schema of a message, building it on first use. */
  ref(message: DescMessage, direction: Direction): Schema {
    const name = this.name(message, direction);
    if (!this.schemas.has(name)) {
      this.schemas.set(name, {});
      const variants = this.rules.message(message.typeName)?.variants;
      this.schemas.set(name, variants === undefined ? this.object(message, direction, new Set()) : this.union(message, direction, variants));
    }
    return { $ref: `#/components/schemas/${name}` };
  }

  /** The schema of a request message minus the fields bound elsewhere, under its own name. */
  named(name: string, message: DescMessage, excluded: ReadonlySet<string>): Schema {
    if (this.schemas.has(name)) throw new Error(`schema name ${name} is taken`);
    this.schemas.set(name, this.object(message, 'input', excluded));
    return { $ref: `#/components/schemas/${name}` };
  }

  /**
   * The schema of one field's value, as the reader takes it or the writer writes it: on output nullable unless
   * the proto marks the field always set.
   */
  field(field: DescField, direction: Direction, nullable = direction === 'output' && !getOption(field, always_set)): Schema {
    switch (field.fieldKind) {
      case 'scalar': {
        const schema = scalar(field.scalar, nullable && field.presence !== FeatureSet_FieldPresence.IMPLICIT);
        const values = direction === 'output' && field.scalar === ScalarType.STRING ? this.rules.enumOf(`${field.parent.typeName}.${field.name}`) : undefined;
        if (values === undefined) return schema;
        return { ...schema, enum: Array.isArray(schema.type) ? [...values, null] : [...values] };
      }
      case 'enum':
        return maybeNull(this.enumRef(field.enum), nullable);
      case 'message':
        return this.message(field.message, direction, nullable);
      case 'list':
        return {
          type: 'array',
          items: field.listKind === 'scalar' ? scalar(field.scalar, false)
            : field.listKind === 'enum' ? this.enumRef(field.enum) : this.message(field.message, direction, false),
        };
      case 'map':
        return {
          type: 'object',
          additionalProperties: field.mapKind === 'scalar' ? scalar(field.scalar, false)
            : field.mapKind === 'enum' ? this.enumRef(field.enum) : this.message(field.message, direction, false),
        };
    }
  }

  components(): Record<string, Schema> {
    return Object.fromEntries(this.schemas);
  }

  private name(message: DescMessage, direction: Direction): string {
    const both = this.used.input.has(message.typeName) && this.used.output.has(message.typeName);
    return direction === 'input' && both ? `${message.name}Write` : message.name;
  }

  private message(message: DescMessage, direction: Direction, nullable = direction === 'output'): Schema {
    const wkt = (nullable ? WKT_OUTPUT : WKT_INPUT)[message.typeName];
    if (wkt !== undefined) return { ...wkt };
    return maybeNull(this.ref(message, direction), nullable);
  }

  /** The validation rule of an input field. */
  rule(field: DescField): FieldRule {
    return this.rules.field(`${field.parent.typeName}.${field.name}`);
  }

  /** The schema of an input field with its rule applied, its description and whether it is required. */
  inputField(field: DescField): { schema: Schema; required: boolean } {
    const rule = this.rule(field);
    const plain = this.field(field, 'input');
    const description = this.comments.get(`${field.parent.typeName}.${field.name}`);
    return { schema: { ...constrain(plain, rule), ...describeWith(description, ruleNotes(rule, plain)) }, required: rule.required === true };
  }

  /** A message with variants: one schema per shape, told apart by the value of the `by` field. */
  private union(message: DescMessage, direction: Direction, variants: Variants): Schema {
    const by = message.fields.find((f) => f.name === variants.by);
    if (by?.fieldKind !== 'scalar' || by.scalar !== ScalarType.STRING) throw new Error(`${message.typeName}: variants need a string field ${variants.by}`);
    const values = Object.keys(variants.shapes);
    const allowed = this.rules.field(`${message.typeName}.${by.name}`).enum;
    if (allowed !== undefined && [...allowed].sort().join() !== [...values].sort().join()) {
      throw new Error(`${message.typeName}: the shapes (${values.join(', ')}) are not the values of ${by.name} (${allowed.join(', ')})`);
    }
    const mapping: Record<string, string> = {};
    for (const value of values) {
      const name = `${value.charAt(0).toUpperCase()}${value.slice(1)}${this.name(message, direction)}`;
      if (this.schemas.has(name)) throw new Error(`schema name ${name} is taken`);
      this.schemas.set(name, this.variant(message, direction, by, value, variants.shapes[value]!));
      mapping[value] = `#/components/schemas/${name}`;
    }
    return {
      ...describeWith(this.comments.get(message.typeName), []),
      oneOf: Object.values(mapping).map(($ref) => ({ $ref })),
      discriminator: { propertyName: by.name, mapping },
    };
  }

  /**
   * One shape of a message with variants: every member, null where the shape has none. On input too, because
   * validation takes null as absent: a value read back, nulls included, can be given again as it is.
   */
  private variant(message: DescMessage, direction: Direction, by: DescField, value: string, shape: VariantShape): Schema {
    const takes = new Set([...shape.required, ...(shape.optional ?? [])]);
    for (const name of takes) {
      if (!message.fields.some((f) => f.name === name)) throw new Error(`${message.typeName} has no field ${name}`);
    }
    const properties: Record<string, Schema> = {};
    const required: string[] = [by.name];
    for (const field of message.fields) {
      const description = this.comments.get(`${message.typeName}.${field.name}`);
      if (field === by) {
        // Asked on input too, so the rule of the field counts as used; its enum is the list of shapes.
        if (direction === 'input') this.inputField(field);
        properties[field.name] = { type: 'string', const: value, description: `\`${value}\` in this shape of \`${message.name}\`.` };
      } else if (!takes.has(field.name)) {
        properties[field.name] = { type: 'null', ...describeWith(description, []) };
      } else if (shape.required.includes(field.name)) {
        properties[field.name] = direction === 'input' ? this.inputField(field).schema : { ...this.field(field, direction, false), ...describeWith(description, []) };
        required.push(field.name);
      } else {
        // Optional: a value, or null as it reads back when unset.
        const schema = direction === 'input' ? this.inputField(field).schema : { ...this.field(field, direction, false), ...describeWith(description, []) };
        if (typeof schema.type === 'string') properties[field.name] = { ...schema, type: [schema.type, 'null'] };
        else if (field.fieldKind === 'message') properties[field.name] = { ...maybeNull(schema, true), ...describeWith(description, []) };
        else throw new Error(`${message.typeName}.${field.name}: an optional member of a shape must be a scalar or a message`);
      }
    }
    const members = (names: readonly string[]) => names.map((n) => `\`${n}\``).join(' and ');
    const others = direction === 'output' ? '; the other members are null' : '; the other members may only be null or absent';
    const optional = shape.optional === undefined || shape.optional.length === 0 ? '' : `, optionally ${members(shape.optional)}`;
    return {
      type: 'object',
      description: `\`${message.name}\` with \`${by.name}\` \`${value}\`: ${members(shape.required)}${optional}${others}.`,
      required: direction === 'output' ? Object.keys(properties) : required,
      properties,
      additionalProperties: false,
    };
  }

  private object(message: DescMessage, direction: Direction, excluded: ReadonlySet<string>): Schema {
    const properties: Record<string, Schema> = {};
    const required: string[] = [];
    for (const field of message.fields) {
      if (excluded.has(field.name)) continue;
      if (direction === 'input') {
        const input = this.inputField(field);
        properties[field.name] = input.schema;
        if (input.required) required.push(field.name);
        continue;
      }
      const description = this.comments.get(`${message.typeName}.${field.name}`);
      properties[field.name] = { ...this.field(field, direction), ...(description ? { description } : {}) };
    }
    const whole = direction === 'input' ? this.rules.message(message.typeName) : undefined;
    const description = describeWith(this.comments.get(message.typeName), whole === undefined ? [] : ruleNotes(whole, {}));
    const outRequired = direction === 'output' ? Object.keys(properties) : required;
    return constrain({
      type: 'object',
      ...description,
      ...(direction === 'output' || outRequired.length > 0 ? { required: outRequired } : {}),
      properties,
      additionalProperties: false,
    }, whole ?? {});
  }

  private enumRef(desc: DescEnum): Schema {
    const name = desc.name;
    if (!this.schemas.has(name)) {
      const values = enumJsonNames(desc);
      const lines = values.map(({ value, json }) => {
        const text = this.comments.get(`${desc.typeName}.${value.name}`);
        return `- \`${json}\`${text ? `: ${text}` : ''}`;
      });
      const intro = this.comments.get(desc.typeName);
      this.schemas.set(name, {
        type: 'string',
        description: [intro, ...lines].filter((s) => s !== undefined).join('\n'),
        enum: values.map((v) => v.json),
      });
    }
    return { $ref: `#/components/schemas/${name}` };
  }
}

function maybeNull(schema: Schema, nullable: boolean): Schema {
  return nullable ? { oneOf: [schema, { type: 'null' }] } : schema;
}

function scalar(type: ScalarType, nullable: boolean): Schema {
  const schema = scalarSchema(type);
  return nullable ? { ...schema, type: [schema.type, 'null'] } : schema;
}

function scalarSchema(type: ScalarType): Schema {
  switch (type) {
    case ScalarType.STRING:
      return { type: 'string' };
    case ScalarType.BOOL:
      return { type: 'boolean' };
    case ScalarType.BYTES:
      return { type: 'string', contentEncoding: 'base64' };
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return { type: 'number' };
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.SINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return { type: 'integer', format: 'int64' };
    default:
      return { type: 'integer', format: 'int32' };
  }
}
