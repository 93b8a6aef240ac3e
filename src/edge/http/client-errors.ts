import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { FerryError } from '../../domain/errors.js';
import type { ApiCallObserver } from '../../ports/telemetry.js';
import { refusalAnswer } from '../calls/failure.js';
import { reportRefused, UNMATCHED } from '../calls/observe.js';
import { errorEnvelope, REQUEST_ID_HEADER } from './envelope.js';

/** How long a connection answered for a request Node could not read stays open for the client to read the answer. */
const LINGER_MS = 2_000;

export interface ClientErrorOptions {
  /** The most request header bytes the listener reads, for the 431 message. */
  readonly maxHeaderBytes: number;
  /** Whether a response is being written on the connection; one must not be cut into. */
  readonly answering: (socket: Duplex) => boolean;
  readonly observer?: ApiCallObserver;
}

/**
 * Answers an HTTP/1 request that Node could not read (a malformed request line or header, headers over the
 * limit, a request that did not arrive in time) as every other refusal is answered: a status with the JSON
 * envelope and a request ID, instead of Node's bare status line. Node hands these over before there is a request
 * or a response object, so the answer is written to the connection itself, which then closes.
 */
export function clientErrorHandler(opts: ClientErrorOptions): (err: Error & { code?: string; reason?: unknown }, socket: Duplex) => void {
  const answered = new WeakSet<Duplex>();
  return (err, socket) => {
    // A parser that failed fails again on the next bytes: the connection is answered once.
    if (answered.has(socket)) return;
    answered.add(socket);
    if (err.code === 'ECONNRESET' || !socket.writable || opts.answering(socket)) {
      socket.destroy();
      return;
    }
    const refusal = refusalOf(err, opts.maxHeaderBytes);
    const requestId = randomUUID();
    const body = errorEnvelope(refusal, requestId);
    socket.end(
      `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? ''}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${REQUEST_ID_HEADER}: ${requestId}\r\n` +
        `Connection: close\r\n\r\n${body}`,
    );
    // Whatever the client still sends is read and dropped, so that closing does not reset the answer away.
    socket.resume();
    const linger = setTimeout(() => socket.destroy(), LINGER_MS);
    linger.unref();
    socket.once('close', () => clearTimeout(linger));
    // A request that never became a call: no route, and no time spent on it that Node would tell.
    reportRefused(opts.observer, { protocol: 'json', route: UNMATCHED, rpc: UNMATCHED, requestId, durationMs: 0 }, refusalAnswer(refusal, undefined));
  };
}

function refusalOf(err: Error & { code?: string; reason?: unknown }, maxHeaderBytes: number): FerryError {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new FerryError('HEADERS_TOO_LARGE', `The request headers are over ${maxHeaderBytes} bytes in all.`);
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new FerryError('PAYLOAD_TOO_LARGE', 'The chunk extensions of the body are over their limit.');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new FerryError('REQUEST_TIMEOUT', 'The request did not arrive in full in time.');
    default: {
      // llhttp's reason names the rule broken ("Invalid header value char"), never the bytes that broke it.
      const reason = typeof err.reason === 'string' ? `: ${err.reason}` : '';
      return new FerryError('MALFORMED_REQUEST', `The HTTP request is malformed${reason}.`);
    }
  }
}
