import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { plainBytes } from './bytes.js';

/**
 * How a response body excerpt is stored: deflated when that makes it markedly smaller, as it is for the text
 * most destinations answer with (JSON, HTML: 2 KiB becomes about 450 bytes).
 *
 * Why: a 2 KiB excerpt stored as read fills a 4 KiB page of its own (one row per page, every page written to the
 * WAL and again at the checkpoint); deflated, eight share a page. The attempt is written on the writer thread,
 * whose time every write of the process waits on: measured in test/bench/README.md#response-capture.
 * A body that does not shrink by an eighth (already compressed, random) is kept as read.
 */
const SHRINK_FACTOR = 7 / 8;
/** Below this, deflate's fixed cost is worth more than the bytes it could save. */
const MIN_DEFLATE_BYTES = 256;
const DEFLATE_OPTIONS = { level: 1 } as const;

export interface StoredExcerpt {
  readonly bytes: Uint8Array;
  readonly deflated: boolean;
}

export function excerptForStorage(body: Uint8Array): StoredExcerpt {
  if (body.length < MIN_DEFLATE_BYTES) return { bytes: body, deflated: false };
  const packed = deflateRawSync(body, DEFLATE_OPTIONS);
  return packed.length <= body.length * SHRINK_FACTOR ? { bytes: packed, deflated: true } : { bytes: body, deflated: false };
}

export function excerptFromStorage(bytes: Uint8Array | null, deflated: number | null): Uint8Array | null {
  if (bytes === null) return null;
  return plainBytes(deflated === 1 ? inflateRawSync(bytes) : bytes);
}
