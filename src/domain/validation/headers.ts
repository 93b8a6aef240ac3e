import { FerryError } from '../errors.js';
import type { HeaderEntry } from '../request.js';
import { MAX_CONTENT_TYPE_BYTES, MAX_HEADER_BYTES, MAX_HEADER_ENTRIES, utf8Length } from './limits.js';
import { HEADER_NAME_PATTERN as TOKEN, HEADER_VALUE_PATTERN as FIELD_VALUE, MEDIA_TYPE_PATTERN } from './patterns.js';

/**
 * Headers the delivery client owns: framing and connection management, or proxy handling. Letting callers set them
 * would allow request smuggling or confuse intermediaries. Content-Type lives in the definition's own field.
 */
const RESERVED = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'content-type',
]);

// Proxy-* reaches intermediaries, not the destination; Service-* is the namespace of the service's own delivery headers.
const RESERVED_PREFIXES = ['proxy-', 'service-'];

function isReserved(lowerName: string): boolean {
  return RESERVED.has(lowerName) || RESERVED_PREFIXES.some((p) => lowerName.startsWith(p));
}

/** `headers` + `X-Foo` reads `headers.X-Foo`; a prefix ending in `-` is a header-name prefix, so `X-Forward-X-Foo`. */
function fieldOf(prefix: string, name: string): string {
  return prefix.endsWith('-') ? `${prefix}${name}` : `${prefix}.${name}`;
}

function wholeField(prefix: string): string {
  return prefix.endsWith('-') ? `${prefix}*` : prefix;
}

export function isFieldValue(value: string): boolean {
  return FIELD_VALUE.test(value);
}

/**
 * Checks destination headers and returns them in the given order and spelling, since some receivers care about both.
 * `fieldPrefix` names where the caller supplied them, so errors point at the caller's own spelling of the field.
 */
export function validateDestinationHeaders(
  entries: ReadonlyArray<readonly [string, string]>,
  fieldPrefix: string,
): HeaderEntry[] {
  if (entries.length > MAX_HEADER_ENTRIES) {
    throw new FerryError('INVALID_HEADERS', `At most ${MAX_HEADER_ENTRIES} destination headers are allowed; got ${entries.length}.`, wholeField(fieldPrefix));
  }
  const seen = new Set<string>();
  const out: HeaderEntry[] = [];
  let bytes = 0;
  for (const [name, value] of entries) {
    const field = fieldOf(fieldPrefix, name);
    if (typeof name !== 'string' || !TOKEN.test(name)) {
      throw new FerryError('INVALID_HEADERS', 'The header name is not a valid HTTP token.', field);
    }
    const lower = name.toLowerCase();
    if (isReserved(lower)) {
      const why = lower === 'content-type' ? 'it is set from the request\'s content type' : 'it is controlled by the delivery service';
      throw new FerryError('INVALID_HEADERS', `The header ${name} cannot be supplied: ${why}.`, field);
    }
    if (seen.has(lower)) {
      throw new FerryError('INVALID_HEADERS', `The header ${name} is given more than once (names are case-insensitive).`, field);
    }
    seen.add(lower);
    if (typeof value !== 'string' || !isFieldValue(value)) {
      throw new FerryError('INVALID_HEADERS', `The value of ${name} contains characters not allowed in a header (such as CR, LF or NUL).`, field);
    }
    bytes += utf8Length(name) + utf8Length(value);
    out.push([name, value]);
  }
  if (bytes > MAX_HEADER_BYTES) {
    throw new FerryError('INVALID_HEADERS', `Destination header names and values total ${bytes} bytes; at most ${MAX_HEADER_BYTES} are allowed.`, wholeField(fieldPrefix));
  }
  return out;
}

/**
 * Content types are forwarded verbatim, so a value is refused for what could break the header line or its size,
 * and for not being a media type at all: a receiver could not read the body by it.
 */
export function validateContentType(value: string, field = 'Content-Type'): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new FerryError('INVALID_CONTENT_TYPE', 'The content type is empty.', field);
  }
  if (utf8Length(value) > MAX_CONTENT_TYPE_BYTES) {
    throw new FerryError('INVALID_CONTENT_TYPE', `The content type is longer than ${MAX_CONTENT_TYPE_BYTES} bytes.`, field);
  }
  if (!isFieldValue(value)) {
    throw new FerryError('INVALID_CONTENT_TYPE', 'The content type contains characters not allowed in a header.', field);
  }
  if (!MEDIA_TYPE_PATTERN.test(value)) {
    throw new FerryError('INVALID_CONTENT_TYPE', 'The content type is not a media type: type/subtype, then optional "; name=value" parameters, as in "text/plain; charset=utf-8".', field);
  }
  return value;
}
