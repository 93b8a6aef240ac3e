/** The driver returns Buffers; callers get plain Uint8Arrays over the same memory, as from any other backend. */
export function plainBytes(bytes: Uint8Array | null): Uint8Array | null {
  return bytes === null ? null : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
