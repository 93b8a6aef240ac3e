// Loaded before the real delivery thread's module (see exiting-transport-thread.ts), so that this listener sees each
// message first and the thread exits before it starts the attempt.
import { parentPort } from 'node:worker_threads';
import type { ToTransportThread } from '../../src/adapters/http/transport-thread-protocol.js';

parentPort!.on('message', (message: ToTransportThread) => {
  if (typeof message === 'object' && 'sends' in message && message.sends.some((s) => s.request.url.endsWith('/exit-thread'))) process.exit(7);
});
