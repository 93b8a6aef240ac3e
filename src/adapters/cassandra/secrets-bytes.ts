/** The driver returns Buffers over its receive buffers; callers get plain Uint8Arrays of their own, as from any other backend. */
export function plainBytes(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes);
}

/** The driver binds only Buffers to blob columns; this one shares the caller's memory. */
export function blob(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
