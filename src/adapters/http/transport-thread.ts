// A delivery thread: runs attempts handed over by the main thread on a transport of its own, so TLS, HTTP parsing
// and socket writes of deliveries do not take turns with the API and the engine on the main event loop.
import { parentPort, workerData } from 'node:worker_threads';
import type { TimedOutcome } from '../../domain/delivery/outcome.js';
import { createHttpTransport } from './transport.js';
import type { FromTransportThread, ThreadSend, ToTransportThread, TransportThreadData } from './transport-thread-protocol.js';

if (parentPort === null) throw new Error('The delivery thread runs only as a worker thread.');
const port = parentPort;
const transport = createHttpTransport(workerData as TransportThreadData);
let finished: Array<readonly [number, TimedOutcome]> = [];
let replyScheduled = false;

port.on('message', (message: ToTransportThread) => {
  if (message === 'close') void transport.close().then(() => port.close());
  else if (message === 'abort') transport.abortInFlight();
  else for (const send of message.sends) void run(send);
});

async function run({ id, request }: ThreadSend): Promise<void> {
  let timed: TimedOutcome;
  try {
    timed = await transport.send(request);
  } catch (err) {
    // The transport reports everything a destination does as an outcome; this is a fault of Ferry's own, and the
    // attempt is handed back rather than recorded.
    console.error('delivery thread: attempt failed', err);
    timed = { outcome: { kind: 'aborted' }, startedAt: Date.now(), durationMs: 0 };
  }
  finished.push([id, timed]);
  if (!replyScheduled) {
    replyScheduled = true;
    // Outcomes that end in the same turn go back as one message.
    setImmediate(reply);
  }
}

function reply(): void {
  replyScheduled = false;
  const batch: FromTransportThread = finished;
  finished = [];
  port.postMessage(batch);
}
