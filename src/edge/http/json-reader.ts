import { create, ScalarType } from '@bufbuild/protobuf';
import type { DescEnum, DescField, DescMessage, Message } from '@bufbuild/protobuf';
import { FerryError } from '../../domain/errors.js';
import { enumJsonNames } from './enum-names.js';
import { respelledText } from './json-source.js';
import { invalid, isObject, joinPath, setOwn } from './json-util.js';
import { timestampFromJson, valueFromJson } from './json-wkt.js';
import { keepValueText } from './value-text.js';

/** Reads a JSON object into a message, field by field; `path` is the JSON path of the object in the body. */
export type MessageReader = (json: unknown, target: Record<string, unknown>, path: string) => void;

/**
 * Which spelling of the JSON a reader takes. `api` is the JSON HTTP API's: proto field names only, enum values
 * as the API writes them (`queued`). `protobuf` is the canonical Protobuf JSON that gRPC and Connect clients send:
 * lowerCamelCase field names as well, enum value names or numbers, 64-bit integers also as strings. Everything
 * else, and every refusal, is the same in both.
 */
export type JsonDialect = 'api' | 'protobuf';

type Convert = (value: unknown, path: string) => unknown;

interface FieldPlan {
  readonly field: DescField;
  readonly convert: Convert;
  /** A Value, Struct or ListValue field, whose JSON text is kept when parsing respelled a number of it. */
  readonly keepsText: boolean;
}

const plans: Record<JsonDialect, WeakMap<DescMessage, MessageReader>> = { api: new WeakMap(), protobuf: new WeakMap() };

/**
 * A reader for the JSON form of a message. It treats `null` as absent and refuses anything it does not know with
 * UNKNOWN_FIELD or INVALID_FIELD and the JSON path of the culprit, fields named by their proto names. `excluded`
 * names fields that the body may not carry because the path, query or headers bind them.
 */
export function messageReader(desc: DescMessage, excluded?: ReadonlySet<string>, dialect: JsonDialect = 'api'): MessageReader {
  if (excluded !== undefined && excluded.size > 0) return compile(desc, excluded, dialect);
  let reader = plans[dialect].get(desc);
  if (reader === undefined) {
    reader = compile(desc, undefined, dialect);
    plans[dialect].set(desc, reader);
  }
  return reader;
}

/** Reads a whole message from a parsed JSON body, whose top level must be an object. */
export function readJsonMessage<T extends Message>(desc: DescMessage, json: unknown): T {
  if (!isObject(json)) throw new FerryError('INVALID_JSON', 'The body must be a JSON object.');
  const message = create(desc) as unknown as Record<string, unknown>;
  messageReader(desc)(json, message, '');
  return message as unknown as T;
}

function compile(desc: DescMessage, excluded: ReadonlySet<string> | undefined, dialect: JsonDialect): MessageReader {
  // Filled lazily so that recursive message types do not recurse at compile time.
  let fields: Map<string, FieldPlan> | undefined;
  return (json, target, path) => {
    if (!isObject(json)) throw invalid(path, 'must be an object');
    fields ??= fieldPlan(desc, excluded, dialect);
    for (const key of Object.keys(json)) {
      const entry = fields.get(key);
      if (entry === undefined) {
        const at = joinPath(path, key);
        throw new FerryError('UNKNOWN_FIELD', `Unknown field "${at}".`, at);
      }
      const value = json[key];
      if (value === null) continue;
      const { field } = entry;
      const at = joinPath(path, field.name);
      const converted = entry.convert(value, at);
      if (entry.keepsText) {
        const text = respelledText(json, key);
        if (text !== undefined) keepValueText(converted as object, text);
      }
      if (field.oneof === undefined) {
        target[field.localName] = converted;
        continue;
      }
      const current = target[field.oneof.localName] as { case: string | undefined };
      if (current.case !== undefined && current.case !== field.localName) throw invalid(at, `cannot be combined with another field of ${field.oneof.name}`);
      target[field.oneof.localName] = { case: field.localName, value: converted };
    }
  };
}

const TEXT_KEEPING_TYPES = new Set(['google.protobuf.Value', 'google.protobuf.Struct', 'google.protobuf.ListValue']);

function fieldPlan(desc: DescMessage, excluded: ReadonlySet<string> | undefined, dialect: JsonDialect): Map<string, FieldPlan> {
  const plan = new Map<string, FieldPlan>();
  for (const field of desc.fields) {
    if (excluded?.has(field.name)) continue;
    const keepsText = field.fieldKind === 'message' && TEXT_KEEPING_TYPES.has(field.message.typeName);
    const entry = { field, convert: fieldConverter(field, dialect), keepsText };
    plan.set(field.name, entry);
    if (dialect === 'protobuf') plan.set(field.jsonName, entry);
  }
  return plan;
}

function fieldConverter(field: DescField, dialect: JsonDialect): Convert {
  switch (field.fieldKind) {
    case 'scalar':
      return scalarConverter(field.scalar, field.longAsString, dialect);
    case 'enum':
      return enumConverter(field.enum, dialect);
    case 'message':
      return messageConverter(field.message, dialect);
    case 'list': {
      const item = field.listKind === 'scalar' ? scalarConverter(field.scalar, field.longAsString, dialect)
        : field.listKind === 'enum' ? enumConverter(field.enum, dialect) : messageConverter(field.message, dialect);
      return (value, path) => {
        if (!Array.isArray(value)) throw invalid(path, 'must be an array');
        const out = new Array<unknown>(value.length);
        for (let i = 0; i < value.length; i++) {
          const at = `${path}[${i}]`;
          if (value[i] === null) throw invalid(at, 'must not be null');
          out[i] = item(value[i], at);
        }
        return out;
      };
    }
    case 'map': {
      const item = field.mapKind === 'scalar' ? scalarConverter(field.scalar, false, dialect)
        : field.mapKind === 'enum' ? enumConverter(field.enum, dialect) : messageConverter(field.message, dialect);
      const key = mapKeyConverter(field.mapKey);
      return (value, path) => {
        if (!isObject(value)) throw invalid(path, 'must be an object');
        const out: Record<string, unknown> = {};
        for (const k of Object.keys(value)) {
          const at = joinPath(path, k);
          if (value[k] === null) throw invalid(at, 'must not be null');
          setOwn(out, key(k, at), item(value[k], at));
        }
        return out;
      };
    }
  }
}

function messageConverter(desc: DescMessage, dialect: JsonDialect): Convert {
  switch (desc.typeName) {
    case 'google.protobuf.Value':
    case 'google.protobuf.Struct':
    case 'google.protobuf.ListValue':
      return (value, path) => valueFromJson(desc.typeName, value, path);
    case 'google.protobuf.Timestamp':
      return timestampFromJson;
  }
  return (value, path) => {
    const message = create(desc) as unknown as Record<string, unknown>;
    messageReader(desc, undefined, dialect)(value, message, path);
    return message;
  };
}

function enumConverter(desc: DescEnum, dialect: JsonDialect): Convert {
  const numbers = new Map(dialect === 'api' ? enumJsonNames(desc).map((n) => [n.json, n.value.number]) : desc.values.map((v) => [v.name, v.number]));
  return (value, path) => {
    const n = typeof value === 'string' ? numbers.get(value)
      : dialect === 'protobuf' && typeof value === 'number' && Number.isInteger(value) && Math.abs(value) <= 2147483647 ? value : undefined;
    if (n === undefined) throw invalid(path, `must be one of ${[...numbers.keys()].join(', ')}`);
    return n;
  };
}

const INTEGER_KEY = /^-?(?:0|[1-9][0-9]*)$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function scalarConverter(scalar: ScalarType, longAsString: boolean, dialect: JsonDialect): Convert {
  switch (scalar) {
    case ScalarType.STRING:
      return (v, path) => (typeof v === 'string' ? v : fail(path, 'must be a string'));
    case ScalarType.BOOL:
      return (v, path) => (typeof v === 'boolean' ? v : fail(path, 'must be a boolean'));
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return (v, path) => (typeof v === 'number' ? v : fail(path, 'must be a number'));
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return integer(-2147483648, 2147483647, undefined);
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return integer(0, 4294967295, undefined);
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return integer(0, Number.MAX_SAFE_INTEGER, longAsString, dialect === 'protobuf');
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      // A JSON number past 2^53 has already lost digits in JSON.parse, so only exact integers are taken.
      return integer(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, longAsString, dialect === 'protobuf');
    case ScalarType.BYTES:
      return (v, path) => (typeof v === 'string' && BASE64.test(v) ? new Uint8Array(Buffer.from(v, 'base64')) : fail(path, 'must be base64'));
  }
}

/** `textual` also takes the decimal text of an integer, as Protobuf JSON writes 64-bit integers. */
function integer(min: number, max: number, long: boolean | undefined, textual = false): Convert {
  return (value, path) => {
    const v = textual && typeof value === 'string' && INTEGER_KEY.test(value) ? Number(value) : value;
    if (typeof v !== 'number' || !Number.isInteger(v)) return fail(path, 'must be an integer');
    if (v < min || v > max) return fail(path, 'is out of range');
    if (long === undefined) return v;
    return long ? String(v) : BigInt(v);
  };
}

function mapKeyConverter(scalar: ScalarType): (key: string, path: string) => string {
  if (scalar === ScalarType.STRING) return (key) => key;
  if (scalar === ScalarType.BOOL) return (key, path) => (key === 'true' || key === 'false' ? key : fail(path, 'has a key that is not true or false'));
  return (key, path) => (INTEGER_KEY.test(key) ? key : fail(path, 'has a key that is not an integer'));
}

function fail(path: string, why: string): never {
  throw invalid(path, why);
}
