import type { IncomingMessage } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';

/** Returned instead of the body when it grows past its limit. */
export const TOO_LARGE = Symbol('too large');

const EMPTY = Buffer.alloc(0);

/** Thrown when the client goes away before its body is complete; nobody is left to answer. */
export class ClientGone extends Error {
  override readonly name = 'ClientGone';
}

/**
 * Reads a request body up to `limit` bytes. It stops listening at the first byte past the limit instead of
 * buffering the rest; the caller then answers 413 and closes the connection. With `keep` false the bytes are
 * counted but dropped, for routes that take no body.
 */
export function readBody(req: IncomingMessage | Http2ServerRequest, limit: number, keep: boolean): Promise<Buffer | typeof TOO_LARGE> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.pause();
        resolve(TOO_LARGE);
      } else if (keep) {
        chunks.push(chunk);
      }
    };
    const onEnd = (): void => {
      cleanup();
      if (!keep || size === 0) resolve(EMPTY);
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(new ClientGone('The client aborted the request body.', { cause: err }));
    };
    const onClose = (): void => {
      if (req.complete) return;
      cleanup();
      reject(new ClientGone('The client closed the connection before the body was complete.'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}
