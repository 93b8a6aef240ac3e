import type { DescEnum, DescEnumValue } from '@bufbuild/protobuf';

/**
 * The JSON spelling of an enum value: its name without the enum's prefix, lower-cased
 * (REQUEST_STATUS_QUEUED → "queued"). The zero `*_UNSPECIFIED` value has no spelling; the API shows it as null.
 */
export function enumJsonName(value: DescEnumValue): string | undefined {
  if (value.number === 0 && value.name.endsWith('_UNSPECIFIED')) return undefined;
  const prefix = value.parent.sharedPrefix;
  return (prefix === undefined ? value.name : value.name.slice(prefix.length)).toLowerCase();
}

/** Every value of an enum with a JSON spelling, in declaration order. */
export function enumJsonNames(desc: DescEnum): { value: DescEnumValue; json: string }[] {
  const names: { value: DescEnumValue; json: string }[] = [];
  for (const value of desc.values) {
    const json = enumJsonName(value);
    if (json !== undefined) names.push({ value, json });
  }
  return names;
}
