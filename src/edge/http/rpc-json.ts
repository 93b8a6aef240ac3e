import { create, toJsonString } from '@bufbuild/protobuf';
import type { DescMethod } from '@bufbuild/protobuf';
import { FerryError } from '../../domain/errors.js';
import { messageReader, type MessageReader } from './json-reader.js';
import { isObject, setOwn } from './json-util.js';
import { parseJsonObject } from './request-message.js';
import { routeOf } from './routes.js';

/**
 * Reads the JSON request of a gRPC or Connect call the way the JSON API reads its body, so that the same input
 * gets the same answer on every protocol: the same refusals of unknown fields and wrong types, with the same code,
 * message and field. Only the spelling differs, that of canonical Protobuf JSON (see JsonDialect). Where the RPC
 * has a JSON route whose body is one field (`input` of CreateRequest), that field is read as the JSON API reads
 * its body, so errors in it name the same paths (`url`, not `input.url`); so is the route's size limit.
 *
 * The result is the message as canonical Protobuf JSON text, for the Connect runtime to decode: it was written by
 * Protobuf itself and cannot fail there.
 * @throws FerryError INVALID_JSON, UNKNOWN_FIELD, INVALID_FIELD or PAYLOAD_TOO_LARGE.
 */
export function rpcJsonReader(method: DescMethod): (bytes: Uint8Array) => string {
  const route = routeOf(method);
  const input = method.input;
  const limit = route?.body.kind === 'json' ? route.maxBodyBytes : undefined;
  const bodyField = route?.body.kind === 'json' ? route.body.field : undefined;
  let readRest: MessageReader;
  let readBody: MessageReader | undefined;
  if (bodyField === undefined) {
    readRest = messageReader(input, undefined, 'protobuf');
  } else {
    readRest = messageReader(input, new Set([bodyField.name]), 'protobuf');
    readBody = messageReader(bodyField.message!, undefined, 'protobuf');
  }
  const bodyKeys = bodyField === undefined ? undefined : new Set([bodyField.name, bodyField.jsonName]);

  return (bytes) => {
    if (limit !== undefined && bytes.byteLength > limit) {
      throw new FerryError('PAYLOAD_TOO_LARGE', `The body is over its limit of ${limit} bytes.`);
    }
    const { json } = parseJsonObject(bytes);
    const message = create(input) as unknown as Record<string, unknown>;
    if (bodyKeys === undefined) {
      readRest(json, message, '');
      return toJsonString(input, message as never);
    }
    const rest: Record<string, unknown> = {};
    let body: unknown;
    for (const key of Object.keys(json)) {
      if (bodyKeys.has(key)) body = json[key];
      else setOwn(rest, key, json[key]);
    }
    readRest(rest, message, '');
    if (body !== undefined && body !== null) {
      if (!isObject(body)) throw new FerryError('INVALID_JSON', 'The body must be a JSON object.');
      const nested = create(bodyField!.message!) as unknown as Record<string, unknown>;
      readBody!(body, nested, '');
      message[bodyField!.localName] = nested;
    }
    return toJsonString(input, message as never);
  };
}
