import { NullValue } from '@bufbuild/protobuf/wkt';
import type { ListValue, Struct, Timestamp, Value } from '@bufbuild/protobuf/wkt';
import { invalid, isObject, joinPath, setOwn } from './json-util.js';
import { valueText } from './value-text.js';

/**
 * Nesting allowed inside a `google.protobuf.Value`. JSON.parse copes with any depth, but converting and writing
 * recurse, and a body of nested brackets would otherwise end in a stack overflow instead of a 422.
 */
export const MAX_VALUE_DEPTH = 64;

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.(\d{1,9}))?(?:[Zz]|[+-]\d{2}:\d{2})$/;
const FRACTION = /\.\d{1,9}/;

/** Converts any JSON value to a Value (or a Struct or ListValue when the field has that type). */
export function valueFromJson(typeName: string, json: unknown, path: string): Value | Struct | ListValue {
  if (typeName === 'google.protobuf.Struct') {
    if (!isObject(json)) throw invalid(path, 'must be an object');
    return toStruct(json, path, 0);
  }
  if (typeName === 'google.protobuf.ListValue') {
    if (!Array.isArray(json)) throw invalid(path, 'must be an array');
    return toList(json, path, 0);
  }
  return toValue(json, path, 0);
}

function toValue(json: unknown, path: string, depth: number): Value {
  if (depth > MAX_VALUE_DEPTH) throw invalid(path, `is nested more than ${MAX_VALUE_DEPTH} levels deep`);
  const $typeName = 'google.protobuf.Value';
  switch (typeof json) {
    case 'string':
      return { $typeName, kind: { case: 'stringValue', value: json } };
    case 'number':
      return { $typeName, kind: { case: 'numberValue', value: json } };
    case 'boolean':
      return { $typeName, kind: { case: 'boolValue', value: json } };
    case 'object':
      if (json === null) return { $typeName, kind: { case: 'nullValue', value: NullValue.NULL_VALUE } };
      if (Array.isArray(json)) return { $typeName, kind: { case: 'listValue', value: toList(json, path, depth + 1) } };
      return { $typeName, kind: { case: 'structValue', value: toStruct(json as Record<string, unknown>, path, depth + 1) } };
    default:
      throw invalid(path, 'is not a JSON value');
  }
}

function toStruct(json: Record<string, unknown>, path: string, depth: number): Struct {
  const fields: Record<string, Value> = {};
  for (const key of Object.keys(json)) setOwn(fields, key, toValue(json[key], joinPath(path, key), depth));
  return { $typeName: 'google.protobuf.Struct', fields };
}

function toList(json: unknown[], path: string, depth: number): ListValue {
  const values = new Array<Value>(json.length);
  for (let i = 0; i < json.length; i++) values[i] = toValue(json[i], `${path}[${i}]`, depth);
  return { $typeName: 'google.protobuf.ListValue', values };
}

/** Reads an RFC 3339 string into a Timestamp. */
export function timestampFromJson(json: unknown, path: string): Timestamp {
  const match = typeof json === 'string' ? RFC3339.exec(json) : null;
  const ms = match === null ? NaN : Date.parse((json as string).replace(FRACTION, '').toUpperCase());
  if (match === null || !Number.isFinite(ms)) throw invalid(path, 'must be an RFC 3339 timestamp');
  const nanos = match[1] === undefined ? 0 : Number(match[1].padEnd(9, '0'));
  return { $typeName: 'google.protobuf.Timestamp', seconds: BigInt(Math.floor(ms / 1000)), nanos };
}

/** Writes a Timestamp as RFC 3339 in UTC with milliseconds, the one form every response uses. */
export function timestampToJson(ts: Timestamp): string {
  return `"${new Date(Number(ts.seconds) * 1000 + Math.floor(ts.nanos / 1_000_000)).toISOString()}"`;
}

/** Writes a Value as the plain JSON it stands for, or as the text it was read from when that text is kept. */
export function valueToJson(value: Value | undefined): string {
  if (value === undefined) return 'null';
  const kept = valueText(value);
  if (kept !== undefined) return kept;
  const { kind } = value;
  switch (kind.case) {
    case 'stringValue':
      return JSON.stringify(kind.value);
    case 'numberValue':
      return Number.isFinite(kind.value) ? String(kind.value) : 'null';
    case 'boolValue':
      return kind.value ? 'true' : 'false';
    case 'structValue':
      return structToJson(kind.value);
    case 'listValue':
      return listToJson(kind.value);
    default:
      return 'null';
  }
}

export function structToJson(struct: Struct): string {
  let out = '{';
  let first = true;
  for (const key of Object.keys(struct.fields)) {
    out += `${first ? '' : ','}${JSON.stringify(key)}:${valueToJson(struct.fields[key])}`;
    first = false;
  }
  return `${out}}`;
}

export function listToJson(list: ListValue): string {
  let out = '[';
  for (let i = 0; i < list.values.length; i++) out += `${i === 0 ? '' : ','}${valueToJson(list.values[i])}`;
  return `${out}]`;
}
