import type { FieldRule } from '../../../domain/validation/index.js';

export type Schema = Record<string, unknown>;

/** The extension carrying a byte limit, which JSON Schema has no keyword for. */
export const MAX_BYTES_KEYWORD = 'x-ferry-max-bytes';

/**
 * The schema of an input field with the keywords of its validation rule added. `schema` is what the field's type
 * alone gives: a string, an integer, an array, a map (an object with `additionalProperties`) or any JSON value.
 */
export function constrain(schema: Schema, rule: FieldRule): Schema {
  const out: Schema = { ...schema };
  const set = (key: string, value: unknown) => {
    if (value !== undefined) out[key] = value;
  };
  if (schema.$ref !== undefined && Object.keys(keywordsOf(rule)).length > 0) {
    throw new Error(`a rule on a message field can only make it required, not ${Object.keys(keywordsOf(rule)).join(', ')}`);
  }
  for (const [key, value] of Object.entries(keywordsOf(rule))) set(key, value);
  if (rule.maxBytes !== undefined) {
    // A string's bytes are at least its characters, so maxLength is the byte limit's exact bound for ASCII and a
    // necessary one otherwise; maps and JSON values have no character count to state it with.
    if (isString(schema)) out.maxLength = Math.min(rule.maxLength ?? Infinity, rule.maxBytes);
    out[MAX_BYTES_KEYWORD] = rule.maxBytes;
  }
  if (rule.items !== undefined) {
    const items = schema.items;
    if (typeof items !== 'object' || items === null) throw new Error('a rule for list items needs a list');
    out.items = constrain(items as Schema, rule.items);
  }
  if (rule.keys !== undefined) out.propertyNames = constrain({ type: 'string' }, rule.keys);
  if (rule.values !== undefined) {
    const values = schema.additionalProperties;
    if (typeof values !== 'object' || values === null) throw new Error('a rule for map values needs a map');
    out.additionalProperties = constrain(values as Schema, rule.values);
  }
  return out;
}

/** The keywords a rule states directly, in the order the document shows them. */
function keywordsOf(rule: FieldRule): Schema {
  const out: Schema = {};
  const keywords: Array<[string, unknown]> = [
    ['format', rule.format],
    ['enum', rule.enum === undefined ? undefined : [...rule.enum]],
    ['minimum', rule.minimum],
    ['maximum', rule.maximum],
    ['multipleOf', rule.multipleOf],
    ['minLength', rule.minLength],
    ['maxLength', rule.maxLength],
    ['pattern', rule.pattern?.source],
    ['minItems', rule.minItems],
    ['maxItems', rule.maxItems],
    ['uniqueItems', rule.uniqueItems],
    ['minProperties', rule.minProperties],
    ['maxProperties', rule.maxProperties],
  ];
  for (const [key, value] of keywords) if (value !== undefined) out[key] = value;
  return out;
}

function isString(schema: Schema): boolean {
  return schema.type === 'string' || (Array.isArray(schema.type) && schema.type.includes('string'));
}

/**
 * What a rule says that a reader of the description needs in words: the unit of a byte limit (JSON Schema counts
 * characters) and the rule's own note.
 */
export function ruleNotes(rule: FieldRule, schema: Schema): string[] {
  const notes: string[] = [];
  if (rule.maxBytes !== undefined) {
    notes.push(isString(schema)
      ? `At most ${rule.maxBytes} bytes of UTF-8 (\`${MAX_BYTES_KEYWORD}\`); \`maxLength\` counts characters.`
      : `At most ${rule.maxBytes} bytes in all (\`${MAX_BYTES_KEYWORD}\`).`);
  }
  if (rule.values?.maxBytes !== undefined) notes.push(`Each value at most ${rule.values.maxBytes} bytes of UTF-8.`);
  if (rule.note !== undefined) notes.push(rule.note);
  return notes;
}

/** A field's description followed by the notes of its rule. */
export function describeWith(description: string | undefined, notes: readonly string[]): { description?: string } {
  const text = [description, ...notes].filter((s) => s !== undefined && s !== '').join(' ');
  return text === '' ? {} : { description: text };
}

/**
 * The rules of the fields the API reads, handed out by name. A field without one is an error, so a new field is
 * looked at in the validation module's table before it reaches the document; `unused` finds rules of fields that
 * no longer exist.
 */
export class RuleBook {
  private readonly used = new Set<string>();

  constructor(private readonly rules: Readonly<Record<string, FieldRule>>) {}

  field(name: string): FieldRule {
    const rule = this.rules[name];
    if (rule === undefined) throw new Error(`${name} has no entry in FIELD_RULES (src/domain/validation/field-rules.ts)`);
    this.used.add(name);
    return rule;
  }

  /**
   * The values a field written back may take, when the API reads the same field with an enum: a value read back
   * can then be given again as it is, and typed clients see the same union both ways.
   */
  enumOf(name: string): readonly string[] | undefined {
    return this.rules[name]?.enum;
  }

  /** The rule of a message as a whole, when it has one. */
  message(name: string): FieldRule | undefined {
    const rule = this.rules[name];
    if (rule !== undefined) this.used.add(name);
    return rule;
  }

  unused(): string[] {
    return Object.keys(this.rules).filter((name) => !this.used.has(name));
  }
}
