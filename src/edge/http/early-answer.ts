import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import { constants as h2 } from 'node:http2';
import type { FerryError } from '../../domain/errors.js';
import { errorEnvelope, jsonHeaders, sendError } from './envelope.js';

/**
 * After an answer given before the body was read, the rest of an HTTP/1 body is read and dropped up to this many
 * bytes, so that a client still sending reads the answer instead of a reset: closing a socket with unread bytes
 * makes the kernel send RST, which also throws away whatever the client had not read yet, and the client then
 * reports a broken pipe rather than the answer. Past this, the connection is cut.
 */
export const DISCARD_AFTER_ANSWER_BYTES = 64 * 1024 * 1024;

/**
 * Answers a call before (all of) its body is read: an unknown route, a refused header, a body over its limit. The
 * answer goes out at once, whatever the client still sends, and the body never reaches memory.
 *
 * HTTP/2 resets just the stream with NO_ERROR once the answer is out, which tells the client to stop sending
 * (RFC 9113, 8.1). HTTP/1 discards the rest of the body and keeps the connection. A body declared larger than the
 * discard bound gets `Connection: close`; its answer is written but not ended, because Node closes the socket as
 * soon as such a response ends, and the body is discarded up to the bound before the connection is cut.
 */
export function answerEarly(
  req: IncomingMessage | Http2ServerRequest,
  res: Omit<ServerResponse, 'write'> | Omit<Http2ServerResponse, 'write'>,
  err: FerryError,
  requestId: string,
  extra?: Readonly<Record<string, string>>,
): void {
  if ('stream' in req) {
    sendError(res, err, requestId, extra);
    // close() waits for the response to flush before it resets. The compat response only reports 'finish' once
    // the stream is closed, so waiting for that would wait forever.
    req.stream.close(h2.NGHTTP2_NO_ERROR);
    // A closed stream is destroyed only once its readable side ends, which a paused one never would.
    req.resume();
    return;
  }
  if (req.complete) return sendError(res, err, requestId, extra);
  const declared = Number(req.headers['content-length']);
  if (declared > DISCARD_AFTER_ANSWER_BYTES) {
    const body = errorEnvelope(err, requestId);
    const response = res as ServerResponse;
    response.writeHead(err.status, jsonHeaders(body, requestId, { ...extra, Connection: 'close' }));
    response.write(body);
  } else {
    sendError(res, err, requestId, extra);
  }
  discardBody(req);
}

function discardBody(req: IncomingMessage): void {
  let discarded = 0;
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > DISCARD_AFTER_ANSWER_BYTES) req.socket.destroy();
  });
  req.resume();
}
