import { ScalarType } from '@bufbuild/protobuf';
import type { DescEnum, DescField, DescMessage } from '@bufbuild/protobuf';
import type { ListValue, Struct, Timestamp, Value } from '@bufbuild/protobuf/wkt';
import { enumJsonNames } from './enum-names.js';
import { listToJson, structToJson, timestampToJson, valueToJson } from './json-wkt.js';

/** Writes a value of one field (or one list item or map value) as JSON text. */
export type ValueWriter = (value: unknown) => string;

const plans = new WeakMap<DescMessage, ValueWriter>();

/**
 * The writer of a message's JSON form: proto field names in declaration order, every field always present, null
 * for unset messages, unset `optional` scalars and unspecified enums. The plan is built once per message type;
 * writing is string concatenation only, since JSON.stringify of an intermediate object would walk it twice.
 */
export function messageWriter(desc: DescMessage): ValueWriter {
  let writer = plans.get(desc);
  if (writer === undefined) {
    writer = compileMessage(desc);
    plans.set(desc, writer);
  }
  return writer;
}

/** Writes a whole message (or a message init shape that `create` already filled in) as JSON text. */
export function writeMessage(desc: DescMessage, message: object): string {
  return messageWriter(desc)(message);
}

/** The writer of one field's value as found on its message, for a response field that becomes `data`. */
export function fieldWriter(field: DescField): ValueWriter {
  switch (field.fieldKind) {
    case 'scalar':
      return scalarWriter(field.scalar);
    case 'enum':
      return enumWriter(field.enum);
    case 'message':
      return nestedWriter(field.message);
    case 'list': {
      const item = field.listKind === 'scalar' ? scalarWriter(field.scalar)
        : field.listKind === 'enum' ? enumWriter(field.enum) : nestedWriter(field.message);
      return (value) => {
        const list = value as unknown[] | undefined;
        if (list === undefined || list.length === 0) return '[]';
        let out = `[${item(list[0])}`;
        for (let i = 1; i < list.length; i++) out += `,${item(list[i])}`;
        return `${out}]`;
      };
    }
    case 'map': {
      const item = field.mapKind === 'scalar' ? scalarWriter(field.scalar)
        : field.mapKind === 'enum' ? enumWriter(field.enum) : nestedWriter(field.message);
      return (value) => {
        if (value === undefined) return '{}';
        const map = value as Record<string, unknown>;
        let out = '{';
        let first = true;
        for (const key of Object.keys(map)) {
          out += `${first ? '' : ','}${JSON.stringify(key)}:${item(map[key])}`;
          first = false;
        }
        return `${out}}`;
      };
    }
  }
}

function compileMessage(desc: DescMessage): ValueWriter {
  // Filled lazily so that recursive message types do not recurse at compile time.
  let parts: { key: string; get: (message: Record<string, unknown>) => unknown; write: ValueWriter }[] | undefined;
  return (message) => {
    parts ??= desc.fields.map((field, i) => ({
      key: `${i === 0 ? '{' : ','}${JSON.stringify(field.name)}:`,
      get: getter(field),
      write: fieldWriter(field),
    }));
    if (parts.length === 0) return '{}';
    const m = message as Record<string, unknown>;
    let out = '';
    for (const part of parts) out += part.key + part.write(part.get(m));
    return `${out}}`;
  };
}

function getter(field: DescField): (message: Record<string, unknown>) => unknown {
  const { localName, oneof } = field;
  if (oneof === undefined) return (m) => m[localName];
  return (m) => {
    const group = m[oneof.localName] as { case: string | undefined; value?: unknown } | undefined;
    return group?.case === localName ? group.value : undefined;
  };
}

function nestedWriter(desc: DescMessage): ValueWriter {
  switch (desc.typeName) {
    case 'google.protobuf.Timestamp':
      return (v) => (v === undefined ? 'null' : timestampToJson(v as Timestamp));
    case 'google.protobuf.Value':
      return (v) => valueToJson(v as Value | undefined);
    case 'google.protobuf.Struct':
      return (v) => (v === undefined ? 'null' : structToJson(v as Struct));
    case 'google.protobuf.ListValue':
      return (v) => (v === undefined ? 'null' : listToJson(v as ListValue));
  }
  let write: ValueWriter | undefined;
  return (v) => (v === undefined ? 'null' : (write ??= messageWriter(desc))(v));
}

function enumWriter(desc: DescEnum): ValueWriter {
  const names = new Map<unknown, string>(enumJsonNames(desc).map((n) => [n.value.number, JSON.stringify(n.json)]));
  return (v) => names.get(v) ?? 'null';
}

function scalarWriter(scalar: ScalarType): ValueWriter {
  switch (scalar) {
    case ScalarType.STRING:
      return (v) => (v === undefined ? 'null' : JSON.stringify(v));
    case ScalarType.BOOL:
      return (v) => (v === undefined ? 'null' : v ? 'true' : 'false');
    case ScalarType.BYTES:
      return (v) => {
        if (v === undefined) return 'null';
        const bytes = v as Uint8Array;
        return `"${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')}"`;
      };
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.SINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      // Written as a JSON number, as the API documents; clients past 2^53 must parse with care.
      return (v) => (v === undefined ? 'null' : String(v));
    default:
      return (v) => (typeof v === 'number' && Number.isFinite(v) ? String(v) : 'null');
  }
}
