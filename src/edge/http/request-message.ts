import { create } from '@bufbuild/protobuf';
import type { Message } from '@bufbuild/protobuf';
import { FerryError } from '../../domain/errors.js';
import type { ScannedHeaders } from './headers.js';
import { messageReader } from './json-reader.js';
import { noteRespelledNumbers } from './json-source.js';
import { isObject } from './json-util.js';
import { compileQuery } from './query.js';
import type { Route } from './routes.js';

/** Everything of an HTTP call that can bind into the request message. */
export interface HttpInput {
  readonly captures: readonly string[];
  readonly query: string;
  readonly headers: ScannedHeaders;
  readonly body: Buffer;
}

export type RequestBinder = (input: HttpInput) => Message;

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Compiles how a route builds its request message from the path, query, headers and body. */
export function compileRequestBinder(route: Route): RequestBinder {
  const { method, pathFields, headers: bindings, body } = route;
  const bindQuery = compileQuery(route.queryFields);
  const readBody = body.kind !== 'json' ? undefined
    : messageReader(body.field?.message ?? method.input, body.field === undefined ? body.excluded : undefined);

  return ({ captures, query, headers, body: bytes }) => {
    const message = create(method.input) as unknown as Record<string, unknown>;
    for (let i = 0; i < pathFields.length; i++) message[pathFields[i]!.localName] = captures[i];
    if (query !== '') bindQuery(query, message);
    for (let i = 0; i < bindings.length; i++) {
      const value = headers.bound[i];
      if (value !== undefined) message[bindings[i]!.field.localName] = value;
    }
    if (body.kind === 'raw') {
      message[body.field.localName] = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    } else if (body.kind === 'json') {
      const json = parseJsonBody(bytes, headers.contentType);
      if (body.field === undefined) {
        readBody!(json, message, '');
      } else {
        const nested = create(body.field.message!) as unknown as Record<string, unknown>;
        readBody!(json, nested, '');
        message[body.field.localName] = nested;
      }
    }
    return message as unknown as Message;
  };
}

/**
 * Parses a JSON body whose top level must be an object; a Content-Type, when sent, must say JSON. The values of
 * members whose numbers JSON.parse respelled keep their text (see json-source.ts).
 */
export function parseJsonBody(bytes: Buffer, contentType: string | undefined): Record<string, unknown> {
  if (contentType !== undefined && !isJsonMediaType(contentType)) {
    throw new FerryError('INVALID_CONTENT_TYPE', 'The Content-Type must be application/json.');
  }
  const { json, text } = parseJsonObject(bytes);
  // Body values are delivered; where JSON.parse respelled a number, the reader keeps the text as written.
  noteRespelledNumbers(text, json);
  return json;
}

/** Parses UTF-8 JSON text whose top level must be an object, refusing anything else with INVALID_JSON. */
export function parseJsonObject(bytes: Uint8Array): { json: Record<string, unknown>; text: string } {
  if (bytes.length === 0) throw new FerryError('INVALID_JSON', 'The body is empty; a JSON object is expected.');
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new FerryError('INVALID_JSON', 'The body is not valid UTF-8.');
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new FerryError('INVALID_JSON', `The body is not valid JSON: ${(err as Error).message}`);
  }
  if (!isObject(json)) throw new FerryError('INVALID_JSON', 'The body must be a JSON object.');
  return { json, text };
}

function isJsonMediaType(value: string): boolean {
  const end = value.indexOf(';');
  return (end === -1 ? value : value.slice(0, end)).trim().toLowerCase() === 'application/json';
}
