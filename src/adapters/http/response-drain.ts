import type { Readable } from 'node:stream';

/**
 * Reads and discards a response body so the connection can be reused, but never more than `maxBytes`: past that the
 * body is destroyed, which makes undici close the connection instead of reading on. Nothing is kept.
 * Resolves once the body ended or was cut off; rejects if reading failed (reset, timeout, abort).
 */
export function drainBounded(body: Readable, maxBytes: number): Promise<void> {
  return new Promise((resolve, reject) => {
    if (body.destroyed) {
      // Aborted between the headers and here: its error event may already be gone.
      body.on('error', ignore);
      reject(body.errored ?? new Error('The response body was closed before it was read.'));
      return;
    }
    let received = 0;
    const stop = (): void => {
      body.off('data', onData).off('end', onEnd).off('error', onError);
      // Destroying an unfinished undici body emits an abort error later; nobody is waiting for it any more.
      body.on('error', ignore);
    };
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > maxBytes) {
        stop();
        body.destroy();
        resolve();
      }
    };
    const onEnd = (): void => {
      stop();
      resolve();
    };
    const onError = (err: Error): void => {
      stop();
      reject(err);
    };
    body.on('data', onData).once('end', onEnd).once('error', onError);
  });
}

function ignore(): void {}
