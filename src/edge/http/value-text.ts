/**
 * The JSON text a caller wrote for a body `google.protobuf.Value`, kept beside the Value when parsing respelled a
 * number of it (see json-source.ts). Whoever turns a body Value into bytes or JSON uses this text when there is
 * one, so the destination gets the numbers as written.
 */
const texts = new WeakMap<object, string>();

export function keepValueText(value: object, text: string): void {
  texts.set(value, text);
}

export function valueText(value: object): string | undefined {
  return texts.get(value);
}
