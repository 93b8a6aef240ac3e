import { fromBinary, type DescMethod } from '@bufbuild/protobuf';
import { Code, ConnectError, createContextValues } from '@connectrpc/connect';
import { compressionBrotli, compressionGzip } from '@connectrpc/connect-node';
import { FerryError } from '../../domain/errors.js';
import { noteUnreadableInput } from '../calls/notes.js';
import { toFerryError } from '../calls/failure.js';
import { rpcJsonReader } from '../http/rpc-json.js';
import { routeOf } from '../http/routes.js';
import { unaryFraming, wrappedHandler, type RpcHandler, type RpcRequest, type RpcResponse, type UnaryFraming as Framing } from './connect-hook.js';

/** Connect's own decompressors, so that a body decompresses here exactly as Connect would decompress it. */
type Compression = typeof compressionGzip;

const CODINGS: ReadonlyMap<string, Compression> = new Map([
  ['gzip', compressionGzip],
  ['br', compressionBrotli],
]);

/** The gRPC frame header: a flags byte and the message length as four bytes, big-endian. */
const FRAME_HEADER_BYTES = 5;
const COMPRESSED_FLAG = 0b1;

/** The body as read: the message bytes Connect will decode, or why there are none. */
type Read = { readonly message: Uint8Array } | { readonly unreadable: FerryError } | { readonly asSent: AsyncIterable<Uint8Array> };

/**
 * Reads the request message of a unary API call before Connect does, the way the JSON API reads its body, and
 * hands Connect a message that cannot fail to decode. Connect decodes before the call reaches the chain: there a
 * malformed Protobuf message or a body that does not decompress is an `internal` error, answered before the
 * caller's key is looked at and neither logged nor counted. Here, input that cannot be read is noted on the call
 * (`noteUnreadableInput`) and Connect gets an empty message instead; the service answers the note once the
 * caller has authenticated, so it is refused like any invalid input, with its catalogue code and ErrorDetail.
 *
 * JSON is read by the JSON API's reader (rpc-json.ts), so the same input gets the same answer on every protocol;
 * Connect then decodes the canonical JSON that reader wrote. The route's size limit applies to either encoding.
 * Requests this does not recognise (another content type or method, a body over `readMaxBytes`) pass to Connect
 * as they came, for its own answer.
 */
export function readInputFirst(method: DescMethod, handler: RpcHandler, readMaxBytes: number): RpcHandler {
  const readJson = rpcJsonReader(method);
  const route = routeOf(method);
  const limit = route?.body.kind === 'json' ? route.maxBodyBytes : undefined;

  const decode = (bytes: Uint8Array, binary: boolean): Read => {
    if (!binary) return { message: new TextEncoder().encode(readJson(bytes)) };
    if (limit !== undefined && bytes.byteLength > limit) {
      return { unreadable: new FerryError('PAYLOAD_TOO_LARGE', `The body is over its limit of ${limit} bytes.`) };
    }
    try {
      fromBinary(method.input, bytes);
    } catch (err) {
      return { unreadable: unreadableProtobuf(`The body is not a ${method.input.typeName} message: ${(err as Error).message}.`) };
    }
    return { message: bytes };
  };

  const wrapped = async (req: RpcRequest): Promise<RpcResponse> => {
    const framing = req.method === 'POST' ? unaryFraming(req.header.get('content-type')) : undefined;
    if (framing === undefined || !isByteStream(req.body)) return handler(req);
    const headers = new Headers(req.header);
    const values = req.contextValues ?? createContextValues();
    const read = await readMessage(req.body, framing, headers, readMaxBytes, decode);
    if ('asSent' in read) return handler({ ...req, body: read.asSent });
    let message: Uint8Array;
    if ('message' in read) {
      message = read.message;
    } else {
      noteUnreadableInput(values, read.unreadable);
      message = framing.binary ? new Uint8Array(0) : new TextEncoder().encode('{}');
    }
    const body = framing.enveloped ? frame(message) : message;
    // What Connect reads now: one uncompressed message of this length.
    headers.delete(framing.codingHeader);
    headers.set('content-length', String(body.byteLength));
    return handler({ ...req, header: headers, body: once(body), contextValues: values });
  };
  return wrappedHandler(handler, wrapped);
}

function isByteStream(body: RpcRequest['body']): body is AsyncIterable<Uint8Array> {
  return typeof body === 'object' && body !== null && Symbol.asyncIterator in body;
}

async function readMessage(
  body: AsyncIterable<Uint8Array>,
  framing: Framing,
  headers: Headers,
  readMaxBytes: number,
  decode: (bytes: Uint8Array, binary: boolean) => Read,
): Promise<Read> {
  const max = readMaxBytes + (framing.enveloped ? FRAME_HEADER_BYTES : 0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const it = body[Symbol.asyncIterator]();
  try {
    for (let next = await it.next(); next.done !== true; next = await it.next()) {
      chunks.push(next.value);
      size += next.value.byteLength;
      // Over the protocol's own limit: Connect refuses it as it always has, with the rest of the body still to come.
      if (size > max) return { asSent: replay(chunks, it) };
    }
  } catch (err) {
    return { asSent: failing(err) };
  }
  const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
  const codingName = headers.get(framing.codingHeader)?.trim().toLowerCase() ?? 'identity';
  const coding = codingName === 'identity' ? null : CODINGS.get(codingName);
  if (coding === undefined) {
    return { unreadable: new FerryError('UNSUPPORTED_MEDIA_TYPE', `The body's ${headerName(framing)} "${codingName.slice(0, 32)}" is not one of gzip, br or identity.`, headerName(framing)) };
  }
  try {
    if (!framing.enveloped) return decode(coding === null ? bytes : await coding.decompress(bytes, readMaxBytes), framing.binary);
    const unframed = unframe(bytes);
    if (unframed instanceof FerryError) return { unreadable: unframed };
    if (!unframed.compressed) return decode(unframed.message, framing.binary);
    if (coding === null) return { unreadable: unreadableProtobuf('The gRPC message is marked compressed, but no grpc-encoding names its compression.') };
    return decode(await coding.decompress(unframed.message, readMaxBytes), framing.binary);
  } catch (err) {
    return { unreadable: decodingFailure(err, framing) };
  }
}

/** The one message of a gRPC body, or why the body is not exactly one frame. */
function unframe(bytes: Uint8Array): { compressed: boolean; message: Uint8Array } | FerryError {
  if (bytes.byteLength < FRAME_HEADER_BYTES) {
    return unreadableProtobuf(bytes.byteLength === 0 ? 'The body holds no gRPC message.' : 'The body ends inside a gRPC frame header.');
  }
  const flags = bytes[0]!;
  const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(1);
  const end = FRAME_HEADER_BYTES + length;
  if (flags & ~COMPRESSED_FLAG) return unreadableProtobuf(`The gRPC frame has flags ${flags}; a request message takes 0 or 1.`);
  if (bytes.byteLength < end) return unreadableProtobuf(`The gRPC frame announces ${length} bytes, and ${bytes.byteLength - FRAME_HEADER_BYTES} came.`);
  if (bytes.byteLength > end) return unreadableProtobuf('The body holds more than one gRPC message; this call takes one.');
  return { compressed: (flags & COMPRESSED_FLAG) !== 0, message: bytes.subarray(FRAME_HEADER_BYTES, end) };
}

function frame(message: Uint8Array): Uint8Array {
  const framed = new Uint8Array(FRAME_HEADER_BYTES + message.byteLength);
  new DataView(framed.buffer).setUint32(1, message.byteLength);
  framed.set(message, FRAME_HEADER_BYTES);
  return framed;
}

function headerName(framing: Framing): string {
  return framing.codingHeader === 'content-encoding' ? 'Content-Encoding' : 'grpc-encoding';
}

function unreadableProtobuf(message: string): FerryError {
  return new FerryError('INVALID_PROTOBUF', message);
}

/** A failure while reading a message: the JSON reader's own refusals, or a body that did not decompress. */
function decodingFailure(err: unknown, framing: Framing): FerryError {
  if (err instanceof FerryError) return err;
  if (err instanceof ConnectError && err.code === Code.ResourceExhausted) {
    return new FerryError('PAYLOAD_TOO_LARGE', 'The body is over its size limit once decompressed.');
  }
  if (err instanceof ConnectError) {
    const what = `The body does not decompress as its ${headerName(framing)} says.`;
    return framing.binary ? unreadableProtobuf(what) : new FerryError('INVALID_JSON', what);
  }
  return toFerryError(err);
}

async function* once(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

/** The chunks already read, then the rest of the body as it comes. */
async function* replay(read: readonly Uint8Array[], rest: AsyncIterator<Uint8Array>): AsyncIterable<Uint8Array> {
  yield* read;
  for (let next = await rest.next(); next.done !== true; next = await rest.next()) yield next.value;
}

// eslint-disable-next-line require-yield
async function* failing(err: unknown): AsyncIterable<Uint8Array> {
  throw err;
}
