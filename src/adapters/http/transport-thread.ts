// A delivery thread: runs attempts handed over by the main thread on a transport of its own, so TLS, HTTP parsing
// and socket writes of deliveries do not take turns with the API and the engine on the main event loop.
import { parentPort, workerData } from 'node:worker_threads';
import { packExcerpts } from './outcome-batch.js';
import { createHttpTransport } from './transport.js';
import type { FromTransportThread, ThreadSend, ToTransportThread, TransportThreadData } from './transport-thread-protocol.js';

if (parentPort === null) throw new Error('The delivery thread runs only as a worker thread.');
const port = parentPort;
const transport = createHttpTransport({ ...(workerData as TransportThreadData), excerptViews: true });
let finished: Array<FromTransportThread[number]> = [];
let replyScheduled = false;

port.on('message', (message: ToTransportThread) => {
  if (message === 'close') void transport.close().then(() => port.close());
  else if (message === 'abort') transport.abortInFlight();
  else if ('prepare' in message) transport.prepare?.(message.prepare.url, message.prepare.connections);
  else for (const send of message.sends) void run(send);
});

async function run({ id, request }: ThreadSend): Promise<void> {
  // Settled first and pushed after: `finished` is replaced each time a batch leaves.
  let result: FromTransportThread[number];
  try {
    result = [id, await transport.send(request)];
  } catch (err) {
    // The caller fails the attempt with this, as it would have failed on the caller's own thread.
    result = [id, null, err instanceof Error ? (err.stack ?? err.message) : String(err)];
  }
  finished.push(result);
  if (!replyScheduled) {
    replyScheduled = true;
    // Outcomes that end in the same turn go back as one message.
    setImmediate(reply);
  }
}

function reply(): void {
  replyScheduled = false;
  const batch = finished;
  finished = [];
  port.postMessage(batch satisfies FromTransportThread, packExcerpts(batch));
}
