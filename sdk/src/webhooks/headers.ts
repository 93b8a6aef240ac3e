/**
 * The header shapes receivers meet: a Fetch `Headers` (workers, Deno, Bun, Next.js), Node's `IncomingHttpHeaders`
 * (lower-cased names, `string | string[] | undefined` values) and plain records with any casing.
 */
export type DeliveryHeaders =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/** The value of one header, case-insensitively; repeated values are joined with ", " as Fetch joins them. */
export function headerValue(headers: DeliveryHeaders, name: string): string | undefined {
  if (typeof headers.get === 'function') return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const wanted = name.toLowerCase();
  const key = wanted in record ? wanted : Object.keys(record).find((k) => k.toLowerCase() === wanted);
  const value = key === undefined ? undefined : record[key];
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : value.join(', ');
}
