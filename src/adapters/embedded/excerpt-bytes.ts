import { inflateRawSync } from 'node:zlib';
import { plainBytes } from './bytes.js';

/**
 * How a response body excerpt is stored: as read. Rows written by earlier versions may be deflated (`deflated` 1)
 * and are read back inflated.
 *
 * Why not deflated any more: deflating 2 KiB costs 15–35 µs of the writer thread (zlib's set-up for each call,
 * mostly), whose time every write of the process waits on, and that cost more deliveries per second than the
 * smaller rows saved in I/O (test/bench/README.md#response-capture: −25 % against −12 % with 2 KiB answers).
 */
export function excerptFromStorage(bytes: Uint8Array | null, deflated: number | null): Uint8Array | null {
  if (bytes === null) return null;
  return plainBytes(deflated === 1 ? inflateRawSync(bytes) : bytes);
}
