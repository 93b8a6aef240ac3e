import { inflateRawSync } from 'node:zlib';
import { bodyText } from '../../domain/delivery/response.js';
import type { BodyExcerpt } from '../../domain/request.js';

/**
 * How a response body excerpt is stored: as the API answers it, `body_text` and `body_encoding` (the string the
 * delivery thread made of the bytes, written and read without a conversion). Rows written by earlier versions keep
 * the bytes in `body` instead, as read or deflated (`deflated` 1), and are read back as the API shows bytes.
 *
 * Why not deflated any more: deflating 2 KiB costs 15–35 µs of the writer thread (zlib's set-up for each call,
 * mostly), whose time every write of the process waits on, and that cost more deliveries per second than the
 * smaller rows saved in I/O (test/bench/README.md#response-capture: −25 % against −12 % with 2 KiB answers).
 */
export function excerptFromStorage(text: string | null, encoding: string | null, bytes: Uint8Array | null, deflated: number | null): BodyExcerpt | null {
  if (text !== null) return { text, encoding: encoding === 'base64' ? 'base64' : 'utf8' };
  if (bytes === null) return null;
  return bodyText(deflated === 1 ? inflateRawSync(bytes) : bytes);
}

/** What `body` holds for an excerpt stored as text: the column is `NOT NULL`; an empty blob takes one byte. */
export const NO_BYTES = new Uint8Array(0);
