import { ScalarType } from '@bufbuild/protobuf';
import type { DescField } from '@bufbuild/protobuf';
import { FerryError } from '../../domain/errors.js';

const DECIMAL = /^-?[0-9]{1,20}$/;
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const UINT32_MAX = 4294967295;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/**
 * Converts the text of a query parameter, header or path segment to the value of a singular scalar field.
 * Integers are plain decimal only: `1e3`, ` 3`, `0x10` and `3.0` are refused rather than guessed at.
 */
export function scalarFromText(field: DescField, text: string, name: string): unknown {
  if (field.fieldKind !== 'scalar') throw new Error(`${field.name} is not a scalar field`);
  switch (field.scalar) {
    case ScalarType.STRING:
      return text;
    case ScalarType.BOOL:
      if (text === 'true') return true;
      if (text === 'false') return false;
      throw invalid(name, 'must be true or false');
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return int32(text, name, INT32_MIN, INT32_MAX);
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return int32(text, name, 0, UINT32_MAX);
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return int64(text, name, 0n, UINT64_MAX, field.longAsString);
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return int64(text, name, INT64_MIN, INT64_MAX, field.longAsString);
    default:
      throw new Error(`${field.name} cannot be bound from text`);
  }
}

function int32(text: string, name: string, min: number, max: number): number {
  if (!DECIMAL.test(text)) throw invalid(name, 'must be a decimal integer');
  const n = Number(text);
  if (n < min || n > max) throw invalid(name, 'is out of range');
  return n;
}

function int64(text: string, name: string, min: bigint, max: bigint, asString: boolean): bigint | string {
  if (!DECIMAL.test(text)) throw invalid(name, 'must be a decimal integer');
  const n = BigInt(text);
  if (n < min || n > max) throw invalid(name, 'is out of range');
  return asString ? n.toString() : n;
}

function invalid(name: string, why: string): FerryError {
  return new FerryError('INVALID_FIELD', `${name} ${why}.`, name);
}
